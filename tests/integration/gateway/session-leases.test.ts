// Issue 9 item 6: exclusive leases over real HTTP (R7.2, D7, R11.2) against the simulator: every
// case of the D7 lifecycle table, two owners contending for one connection, the generation fence
// before dispatch, routing around others' leases, persistence, and no token anywhere it must not be.
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type ApiResult, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;
let conns: string[];
let solo: string[];
let leaseKey: string;
let otherLeaseKey: string;
let plainKey: string;
let emptyKey: string;

const owner = () => `vlo_${randomBytes(32).toString("base64url")}`;
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function createKey(body: Record<string, unknown>): Promise<string> {
  const r = await gw.api("POST", "/api/keys", body);
  expect(r.status).toBe(201);
  return r.body.key as string;
}

function lease(body: unknown, headers: Record<string, string> = {}): Promise<ApiResult> {
  return gw.post("/api/v1/session-leases", body, headers);
}

function chat(headers: Record<string, string>, model = "oai/m1"): Promise<ApiResult> {
  return gw.post("/v1/chat/completions", { model, messages: [{ role: "user", content: "hi" }] }, headers);
}

function leased(key: string, ownerToken: string, generation: number): Record<string, string> {
  return { ...bearer(key), "x-omniroute-lease-owner": ownerToken, "x-omniroute-lease-generation": String(generation) };
}

beforeAll(async () => {
  sim = await startSim({ label: "leases" });
  gw = await startGateway({ testClock: true });
  conns = await addProvider(gw, "oai", sim, "openai", ["k-1", "k-2"]);
  solo = await addProvider(gw, "solo", sim, "openai", ["s-1"]);
  leaseKey = await createKey({ name: "agent", scopes: ["lease:exclusive"], allowedConnections: [conns[1], solo[0]] });
  otherLeaseKey = await createKey({ name: "agent-2", scopes: ["lease:exclusive"], allowedConnections: [solo[0]] });
  plainKey = await createKey({ name: "plain", allowedConnections: [conns[0]] });
  emptyKey = await createKey({ name: "no-connections", scopes: ["lease:exclusive"] });
});

let restartedHome: string | null = null;

afterAll(async () => {
  await gw?.close();
  await sim?.close();
  if (restartedHome) rmSync(restartedHome, { recursive: true, force: true });
});

describe("lease lifecycle, the D7 table", () => {
  it("D7 no client key → 401; the admin token is not a client key", async () => {
    expect((await lease({ action: "acquire", owner: owner() })).status).toBe(401);
    expect((await lease({ action: "acquire", owner: owner() }, bearer(gw.token))).status).toBe(401);
  });

  it("D7 a key without scope lease:exclusive, or with no allowedConnections → 403", async () => {
    expect((await lease({ action: "acquire", owner: owner() }, bearer(plainKey))).status).toBe(403);
    expect((await lease({ action: "acquire", owner: owner() }, { "x-api-key": emptyKey })).status).toBe(403);
  });

  it("D7 a body that is not JSON → 415", async () => {
    const r = await fetch(`${gw.url}/api/v1/session-leases`, { method: "POST", headers: { ...bearer(leaseKey), "content-type": "text/plain" }, body: "action=acquire" });
    expect(r.status).toBe(415);
  });

  it("D7 a missing owner → 400 LEASE_CONTEXT_REQUIRED; a malformed one → 400 LEASE_CONTEXT_INVALID", async () => {
    const missing = await lease({ action: "acquire" }, bearer(leaseKey));
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe("LEASE_CONTEXT_REQUIRED");
    for (const bad of ["vlo_short", `xyz_${randomBytes(32).toString("base64url")}`, `vlo_${"*".repeat(43)}`]) {
      const r = await lease({ action: "acquire", owner: bad }, bearer(leaseKey));
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe("LEASE_CONTEXT_INVALID");
    }
    const viaHeader = await lease({ action: "acquire" }, { ...bearer(leaseKey), "x-omniroute-lease-owner": "vlo_nope" });
    expect(viaHeader.body.error.code).toBe("LEASE_CONTEXT_INVALID");
  });

  it("D7 acquire → 200 {state:ACTIVE, generation} echoing no connection id, secret or owner; renew; stale renew → 409; release is idempotent", async () => {
    const me = owner();
    const acquired = await lease({ action: "acquire", owner: me }, bearer(leaseKey));
    expect(acquired.status).toBe(200);
    expect(acquired.body).toMatchObject({ state: "ACTIVE", generation: expect.any(Number) });
    for (const hidden of [me, conns[1], solo[0], leaseKey, "k-2"]) expect(acquired.text).not.toContain(hidden);
    const generation = acquired.body.generation as number;

    const again = await lease({ action: "acquire", owner: me }, bearer(leaseKey));
    expect(again.body.generation).toBe(generation);
    const renewed = await lease({ action: "renew", owner: me, generation }, bearer(leaseKey));
    expect(renewed.status).toBe(200);
    expect(renewed.body).toMatchObject({ state: "ACTIVE", generation });

    const stale = await lease({ action: "renew", owner: me, generation: generation + 1 }, bearer(leaseKey));
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe("LEASE_FENCE_STALE");
    const otherKey = await lease({ action: "renew", owner: me, generation }, bearer(otherLeaseKey));
    expect(otherKey.status).toBe(409);
    expect(otherKey.body.error.code).toBe("LEASE_FENCE_STALE");

    const released = await lease({ action: "release", owner: me }, bearer(leaseKey));
    expect(released.status).toBe(200);
    expect(released.body).toEqual({ state: "RELEASED" });
    expect((await lease({ action: "release", owner: me }, bearer(leaseKey))).body).toEqual({ state: "RELEASED" });
    expect((await lease({ action: "renew", owner: me, generation }, bearer(leaseKey))).status).toBe(409);
    const next = await lease({ action: "acquire", owner: me }, bearer(leaseKey));
    expect(next.body.generation).toBeGreaterThan(generation);
    await lease({ action: "release", owner: me }, bearer(leaseKey));
  });

  it("D7 two owners contend for one connection: the second gets 429 WAITING_FOR_CAPACITY with Retry-After in 1–120 s", async () => {
    const first = owner();
    const second = owner();
    expect((await lease({ action: "acquire", owner: first }, bearer(otherLeaseKey))).status).toBe(200);
    const waiting = await lease({ action: "acquire", owner: second }, bearer(otherLeaseKey));
    expect(waiting.status).toBe(429);
    expect(waiting.body).toMatchObject({ state: "WAITING_FOR_CAPACITY", reason: "NO_FREE_ELIGIBLE_CONNECTION" });
    const retryAfter = Number(waiting.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(120);
    expect(waiting.body.retryAfter).toBe(retryAfter);
    await lease({ action: "release", owner: first }, bearer(otherLeaseKey));
    expect((await lease({ action: "acquire", owner: second }, bearer(otherLeaseKey))).status).toBe(200);
    await lease({ action: "release", owner: second }, bearer(otherLeaseKey));
  });

  it("R7.2 only known scopes can be given to a key", async () => {
    const r = await gw.api("POST", "/api/keys", { name: "typo", scopes: ["lease:exclusiv"] });
    expect(r.status).toBe(400);
    expect(r.body.error.path).toBe("scopes.0");
  });
});

describe("leased inference (R7.2, R11.2)", () => {
  it("R7.2 a leased request goes only to its leased connection, and lease headers reach neither the upstream nor the log", async () => {
    const me = owner();
    const { generation } = (await lease({ action: "acquire", owner: me }, bearer(leaseKey))).body;
    sim.requests.length = 0;
    const r = await chat(leased(leaseKey, me, generation));
    expect(r.status).toBe(200);
    expect(r.headers.get("x-omniroute-selected-connection-id")).toBe(conns[1]);
    const upstream = JSON.stringify(sim.requests.at(-1)!.headers);
    expect(upstream).not.toContain(me);
    expect(upstream.toLowerCase()).not.toContain("x-omniroute-lease");
    const logs = await gw.api("GET", "/api/logs?limit=5");
    expect(logs.text).not.toContain(me);

    // R11.2: an unleased request skips the connection another owner holds.
    expect((await chat({})).headers.get("x-omniroute-selected-connection-id")).toBe(conns[0]);
    await gw.api("PATCH", `/api/connections/${conns[0]}`, { active: false });
    const blocked = await chat({});
    expect(blocked.status).toBe(429);
    expect(blocked.body.error).toMatchObject({ code: "LEASE_CAPACITY_UNAVAILABLE", state: "WAITING_FOR_CAPACITY", reason: "NO_FREE_ELIGIBLE_CONNECTION" });
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(blocked.headers.get("retry-after"))).toBeLessThanOrEqual(120);
    await gw.api("PATCH", `/api/connections/${conns[0]}`, { active: true });
    await lease({ action: "release", owner: me }, bearer(leaseKey));
  });

  it("R11.2 the emergency fallback never uses a connection another owner holds either", async () => {
    const holder = owner();
    expect((await lease({ action: "acquire", owner: holder }, bearer(otherLeaseKey))).status).toBe(200);
    await gw.api("PATCH", "/api/settings", { emergencyFallback: { enabled: true, model: "solo/m1" } });
    for (const id of conns) await gw.api("PATCH", `/api/connections/${id}`, { active: false });
    try {
      sim.requests.length = 0;
      const r = await chat({});
      expect(r.status).toBe(429);
      expect(r.body.error.code).toBe("LEASE_CAPACITY_UNAVAILABLE");
      expect(sim.requests.filter((q) => q.key === "s-1")).toEqual([]);
    } finally {
      for (const id of conns) await gw.api("PATCH", `/api/connections/${id}`, { active: true });
      await gw.api("PATCH", "/api/settings", { emergencyFallback: { enabled: false, model: null } });
      await lease({ action: "release", owner: holder }, bearer(otherLeaseKey));
    }
  });

  it("R7.2 a stale generation is refused with 409 LEASE_FENCE_STALE in the client's format and never reaches the upstream", async () => {
    const me = owner();
    const { generation } = (await lease({ action: "acquire", owner: me }, bearer(leaseKey))).body;
    const before = sim.requests.length;
    const stale = await chat(leased(leaseKey, me, generation + 1));
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: "LEASE_FENCE_STALE" });
    const anthropic = await gw.post("/v1/messages", { model: "oai/m1", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }, leased(leaseKey, me, generation - 1));
    expect(anthropic.status).toBe(409);
    expect(anthropic.body).toMatchObject({ type: "error", error: { code: "LEASE_FENCE_STALE" } });
    const wrongKey = await chat(leased(otherLeaseKey, me, generation));
    expect(wrongKey.status).toBe(409);
    const noGeneration = await chat({ ...bearer(leaseKey), "x-omniroute-lease-owner": me });
    expect(noGeneration.status).toBe(400);
    expect(noGeneration.body.error.code).toBe("LEASE_CONTEXT_REQUIRED");
    const badOwner = await chat({ ...bearer(leaseKey), "x-omniroute-lease-owner": "vlo_x", "x-omniroute-lease-generation": "1" });
    expect(badOwner.body.error.code).toBe("LEASE_CONTEXT_INVALID");
    expect(sim.requests.length).toBe(before);
    await lease({ action: "release", owner: me }, bearer(leaseKey));
  });

  it("R7.2 a lease expires on the engine clock; the operator lists leases without tokens and can force-release", async () => {
    const me = owner();
    const { generation } = (await lease({ action: "acquire", owner: me }, bearer(leaseKey))).body;
    const listed = await gw.api("GET", "/api/sessions/leases");
    expect(listed.body.items).toEqual([expect.objectContaining({ connectionId: conns[1], connectionName: "oai key 2", provider: "oai", generation, keyName: "agent" })]);
    expect(listed.text).not.toContain(me);
    expect(listed.text).not.toContain(leaseKey);

    const forced = await gw.api("DELETE", `/api/sessions/leases/${conns[1]}`);
    expect(forced.body).toEqual({ ok: true, released: true });
    expect((await chat(leased(leaseKey, me, generation))).status).toBe(409);

    const again = (await lease({ action: "acquire", owner: me }, bearer(leaseKey))).body;
    expect((await chat(leased(leaseKey, me, again.generation))).status).toBe(200);
    await gw.api("POST", "/api/debug/clock", { advanceMs: 301_000 });
    expect((await chat(leased(leaseKey, me, again.generation))).status).toBe(409);
    expect((await gw.api("GET", "/api/sessions/leases")).body.items).toEqual([]);
  });

  it("R7.2 a lease whose connection cools down, is deactivated or deleted moves to a free eligible connection of the key and keeps its generation", async () => {
    const moving = await addProvider(gw, "mv", sim, "openai", ["mv-1", "mv-2", "mv-3", "mv-4"]);
    const key = await createKey({ name: "mover", scopes: ["lease:exclusive"], allowedConnections: moving });
    const [me, other] = [owner(), owner()];
    const { generation } = (await lease({ action: "acquire", owner: me }, bearer(key))).body;
    expect((await lease({ action: "acquire", owner: other }, bearer(key))).status).toBe(200);
    const ask = async () => {
      const r = await chat(leased(key, me, generation), "mv/m1");
      expect(r.status).toBe(200);
      return r.headers.get("x-omniroute-selected-connection-id");
    };
    const held = async () => (await gw.api("GET", "/api/sessions/leases")).body.items.filter((l: { generation: number }) => l.generation === generation);
    expect(await ask()).toBe(moving[0]);
    // Cooling down: the request that meets the 429 fails as before; the next one moves past the other owner's mv-c2.
    sim.addFault("mv-1", { status: 429, retryAfter: 600, times: 1 });
    expect((await chat(leased(key, me, generation), "mv/m1")).status).not.toBe(200);
    expect(await ask()).toBe(moving[2]);
    expect(await held()).toEqual([expect.objectContaining({ connectionId: moving[2], generation })]);
    // Deactivated: the next free eligible one.
    expect((await gw.api("PATCH", `/api/connections/${moving[2]}`, { active: false })).status).toBe(200);
    expect(await ask()).toBe(moving[3]);
    // Deleted: nothing else of the key is free and eligible (c1 cools, c2 is the other owner's, c3 is off) until c3 is back.
    expect((await gw.api("PATCH", `/api/connections/${moving[2]}`, { active: true })).status).toBe(200);
    expect((await gw.api("DELETE", `/api/connections/${moving[3]}`)).status).toBe(200);
    expect(await ask()).toBe(moving[2]);
    // The fence is the one the client holds: renew with it works, a stale one is still refused.
    expect((await lease({ action: "renew", owner: me, generation }, bearer(key))).body).toMatchObject({ state: "ACTIVE", generation });
    expect((await chat(leased(key, me, generation + 1), "mv/m1")).status).toBe(409);
    expect(await held()).toEqual([expect.objectContaining({ connectionId: moving[2], generation })]);
    await lease({ action: "release", owner: me }, bearer(key));
    await lease({ action: "release", owner: other }, bearer(key));
  });

  it("R7.2 leases persist across a restart, and only the owner's SHA-256 is stored", async () => {
    const me = owner();
    const { generation } = (await lease({ action: "acquire", owner: me }, bearer(leaseKey))).body;
    const home = gw.home;
    restartedHome = home;
    await gw.app.close();
    const bytes = readFileSync(path.join(home, "switchyard.db")).toString("latin1");
    expect(bytes).not.toContain(me);
    gw = await startGateway({ testClock: true, home });
    const r = await chat(leased(leaseKey, me, generation));
    expect(r.status).toBe(200);
    expect(r.headers.get("x-omniroute-selected-connection-id")).toBe(conns[1]);
    const other = await lease({ action: "acquire", owner: owner() }, bearer(leaseKey));
    expect(other.status).toBe(200);
    expect(other.body.generation).toBeGreaterThan(generation);
  });
});
