// Issue 9 item 5: session affinity over real HTTP (R7.1, D7) against the simulator, under the
// test clock: a session stays on its connection when priorities change, a pin to a cooling
// connection is replaced and moves, a pin expires on the engine clock, and session headers
// never reach the upstream. Issue 26 item 3: under every combo strategy a session stays on the
// combo target and the connection that served it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMBO_STRATEGIES } from "../../../shared/catalog.js";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;
let conns: string[];
const TTL_MS = 600_000;

beforeAll(async () => {
  sim = await startSim({ label: "affinity" });
  gw = await startGateway({ testClock: true });
  conns = await addProvider(gw, "oai", sim, "openai", ["k-1", "k-2", "k-3"]);
  expect((await gw.api("PATCH", "/api/settings", { sessionAffinityTtlMs: TTL_MS })).status).toBe(200);
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

async function chat(headers: Record<string, string>, extra: Record<string, unknown> = {}) {
  const r = await gw.post("/v1/chat/completions", { model: "oai/m1", messages: [{ role: "user", content: "hi" }], ...extra }, headers);
  expect(r.status).toBe(200);
  return r.headers.get("x-omniroute-selected-connection-id");
}

async function setPriorities(order: string[]) {
  for (const [priority, id] of order.entries()) expect((await gw.api("PATCH", `/api/connections/${id}`, { priority })).status).toBe(200);
}

describe("session affinity (R7.1, D7)", () => {
  it("R7.1 twenty requests of one session stay on one connection while connection priorities change between them", async () => {
    await setPriorities(conns);
    const first = await chat({ "x-session-id": "agent-run-1" });
    expect(first).toBe(conns[0]);
    const served: Array<string | null> = [];
    for (let i = 0; i < 20; i++) {
      await setPriorities(i % 2 === 0 ? [conns[2], conns[1], conns[0]] : [conns[1], conns[2], conns[0]]);
      served.push(await chat({ "x-session-id": "agent-run-1" }));
    }
    expect(new Set(served)).toEqual(new Set([first]));
    // Without a session the same priorities route elsewhere, so the pin is what held it.
    expect(await chat({})).toBe(conns[1]);
    const pins = await gw.api("GET", "/api/sessions/pins");
    expect(pins.body.items).toContainEqual(expect.objectContaining({ sessionKey: "agent-run-1", provider: "oai", connectionId: conns[0], connectionName: "oai key 1" }));
  });

  it("R7.1 a pinned connection put into cooldown is skipped: the request goes elsewhere and the pin moves", async () => {
    await setPriorities(conns);
    expect(await chat({ "x-codex-session-id": "cool-1" })).toBe(conns[0]);
    sim.addFault("k-1", { status: 429, retryAfter: 30, times: 1 });
    const moved = await chat({ "x-codex-session-id": "cool-1" });
    expect(moved).toBe(conns[1]);
    // The cooldown is over, c1 leads the priorities again, but the session now lives on c2.
    await gw.api("POST", "/api/debug/clock", { advanceMs: 31_000 });
    expect(await chat({})).toBe(conns[0]);
    expect(await chat({ "x-codex-session-id": "cool-1" })).toBe(conns[1]);
  });

  it("R7.1 a pin expires after sessionAffinityTtlMs of the engine clock; each use extends it", async () => {
    await setPriorities([conns[2], conns[0], conns[1]]);
    expect(await chat({ "x-omniroute-session": "ttl-1" })).toBe(conns[2]);
    await setPriorities(conns);
    await gw.api("POST", "/api/debug/clock", { advanceMs: TTL_MS - 60_000 });
    expect(await chat({ "x-omniroute-session": "ttl-1" })).toBe(conns[2]);
    await gw.api("POST", "/api/debug/clock", { advanceMs: TTL_MS - 60_000 });
    expect(await chat({ "x-omniroute-session": "ttl-1" })).toBe(conns[2]);
    await gw.api("POST", "/api/debug/clock", { advanceMs: TTL_MS + 1 });
    expect(await chat({ "x-omniroute-session": "ttl-1" })).toBe(conns[0]);
  });

  it("D7 body keys name the session when no header does, in order; long or unusual keys are kept only as a SHA-256", async () => {
    await setPriorities([conns[1], conns[0], conns[2]]);
    const longKey = "x".repeat(181);
    expect(await chat({}, { metadata: { session_id: "meta-1" }, conversation_id: "conv-1", prompt_cache_key: longKey })).toBe(conns[1]);
    expect(await chat({}, { prompt_cache_key: longKey })).toBe(conns[1]);
    await setPriorities(conns);
    expect(await chat({}, { metadata: { session_id: "meta-1" } })).toBe(conns[1]);
    expect(await chat({}, { conversation_id: "conv-1" })).toBe(conns[0]);
    expect(await chat({}, { prompt_cache_key: longKey })).toBe(conns[1]);
    const keys = (await gw.api("GET", "/api/sessions/pins")).body.items.map((p: { sessionKey: string }) => p.sessionKey);
    expect(keys).toContain("meta-1");
    expect(keys).not.toContain(longKey);
    const hashed = keys.find((k: string) => /^sha256:[0-9a-f]{64}$/.test(k));
    expect(hashed).toBeDefined();
    expect((await gw.api("DELETE", `/api/sessions/pins/${encodeURIComponent(hashed)}`)).body).toEqual({ ok: true, removed: true });
  });

  it("R7.1 DELETE /api/sessions/pins/:key unpins a session; sessionAffinityTtlMs 0 switches pinning off", async () => {
    await setPriorities([conns[2], conns[0], conns[1]]);
    expect(await chat({ "x-session-id": "unpin-1" })).toBe(conns[2]);
    await setPriorities(conns);
    const removed = await gw.api("DELETE", "/api/sessions/pins/unpin-1");
    expect(removed.body).toEqual({ ok: true, removed: true });
    expect(await chat({ "x-session-id": "unpin-1" })).toBe(conns[0]);
    await gw.api("PATCH", "/api/settings", { sessionAffinityTtlMs: 0 });
    await setPriorities([conns[2], conns[0], conns[1]]);
    expect(await chat({ "x-session-id": "unpin-1" })).toBe(conns[2]);
    await gw.api("PATCH", "/api/settings", { sessionAffinityTtlMs: TTL_MS });
  });

  it("R7.1 R16.5 Codex's session-id and thread-id headers name the session: each keeps its pin", async () => {
    for (const header of ["session-id", "thread-id"]) {
      await setPriorities([conns[2], conns[0], conns[1]]);
      expect(await chat({ [header]: `codex-${header}` })).toBe(conns[2]);
      await setPriorities(conns);
      expect(await chat({ [header]: `codex-${header}` })).toBe(conns[2]);
      expect(await chat({})).toBe(conns[0]);
    }
  });

  it("R7.1 session headers are never forwarded upstream", async () => {
    sim.requests.length = 0;
    await chat({ "x-session-id": "hidden-1", "x-codex-session-id": "hidden-2", "x-omniroute-session": "hidden-3", "session-id": "hidden-4", "thread-id": "hidden-5" });
    const received = sim.requests.at(-1)!;
    const names = Object.keys(received.headers).map((h) => h.toLowerCase());
    for (const name of ["x-session-id", "x-codex-session-id", "x-omniroute-session", "session-id", "thread-id"]) expect(names).not.toContain(name);
    expect(JSON.stringify(received.headers)).not.toMatch(/hidden-\d/);
  });
});

describe("session affinity under every combo strategy (R7.1, issue 26 item 3)", () => {
  let cgw: TestGateway;

  beforeAll(async () => {
    cgw = await startGateway({ testClock: true });
    expect((await cgw.api("PATCH", "/api/settings", { sessionAffinityTtlMs: 7 * 86_400_000 })).status).toBe(200);
  });

  afterAll(async () => {
    await cgw?.close();
  });

  const ask = async (combo: string, headers: Record<string, string>) => {
    const r = await cgw.post("/v1/chat/completions", { model: combo, messages: [{ role: "user", content: "hi" }] }, headers);
    expect(r.status).toBe(200);
    return r.headers.get("x-omniroute-selected-connection-id");
  };

  for (const [i, strategy] of COMBO_STRATEGIES.entries()) {
    it(`R7.1 ${strategy}: a session stays on the combo target and connection that served it while they can serve, then on the ones it moved to`, async () => {
      const [a, b] = [`s${i}a`, `s${i}b`];
      const aConns = await addProvider(cgw, a, sim, "openai", [`${a}-1`, `${a}-2`]);
      const bConns = await addProvider(cgw, b, sim, "openai", [`${b}-1`, `${b}-2`]);
      const combo = `sticky-${strategy}`;
      expect((await cgw.api("POST", "/api/combos", { name: combo, strategy, targets: [{ model: `${a}/m1` }, { model: `${b}/m1` }] })).status).toBe(201);
      // Whatever the strategy tries first, only b's second connection can answer the first request.
      const busy = [`${a}-1`, `${a}-2`, `${b}-1`];
      for (const key of busy) sim.addFault(key, { status: 429, retryAfter: 1, times: 1 });
      const session = { "x-session-id": `sticky-${strategy}` };
      expect(await ask(combo, session)).toBe(bConns[1]);
      for (const key of busy) sim.clearFaults(key);
      // Every cooldown the 429s left is over: the first target and b's first connection can serve again.
      await cgw.api("POST", "/api/debug/clock", { advanceMs: 3_600_000 });
      const served: Array<string | null> = [];
      for (let n = 0; n < 6; n++) served.push(await ask(combo, session));
      expect(served).toEqual(Array(6).fill(bConns[1]));
      // The pinned target cannot serve (both its connections cool down): the session moves, and stays.
      for (const key of [`${b}-1`, `${b}-2`]) sim.addFault(key, { status: 429, retryAfter: 1, times: 1 });
      expect(await ask(combo, session)).toBe(aConns[0]);
      await cgw.api("POST", "/api/debug/clock", { advanceMs: 3_600_000 });
      expect([await ask(combo, session), await ask(combo, session), await ask(combo, session)]).toEqual(Array(3).fill(aConns[0]));
    });
  }
});
