// Issue 25, the session and admission kinds (R19.1, R19.2): two gateways built in-process share
// one real redis-server; the simulator is their upstream. Each gateway names its connections with
// ids of its own (A's "x-a1", B's "x-b1") under the same names, so what B follows it found by the
// group-stable key `<provider>/<connection name>`. Every propagation is timed from the moment the
// change was answered on A, polled every 10 ms, and must be seen on B within 250 ms.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { startGateway, startSim, type ApiResult, type TestGateway } from "../harness.js";
import { startRedis, type RedisProcess } from "../admission/processes.js";

const PROPAGATION_MS = 250;

let redis: RedisProcess;
let sim: Simulator;
let a: TestGateway;
let b: TestGateway;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every 10 ms from `since` (performance.now()); the time it took, or a failure past 250 ms. */
async function propagated(what: string, since: number, check: () => Promise<boolean>): Promise<number> {
  for (;;) {
    const seen = await check();
    const elapsed = performance.now() - since;
    if (seen && elapsed <= PROPAGATION_MS) return elapsed;
    if (elapsed > PROPAGATION_MS) throw new Error(`${what}: not seen on the other gateway within ${PROPAGATION_MS} ms (${Math.round(elapsed)} ms)`);
    await sleep(10);
  }
}

/** A provider on the simulator with connections `<id>-<side><n>` named `<id> key <n>`, keys `<id>-key-<n>`. */
async function provider(
  gw: TestGateway,
  side: "a" | "b",
  id: string,
  n: number,
  extra: { provider?: Record<string, unknown>; connection?: (i: number) => Record<string, unknown> } = {},
): Promise<string[]> {
  const format = extra.provider?.format ?? "openai";
  const baseUrl = format === "openai" ? `${sim.url}/v1` : sim.url;
  const p = await gw.api("POST", "/api/providers", { id, format, baseUrl, category: "apikey", models: ["m1", "m2"], ...extra.provider });
  expect(p.status, p.text).toBe(201);
  const ids: string[] = [];
  for (let i = 1; i <= n; i++) {
    const body = { id: `${id}-${side}${i}`, provider: id, name: `${id} key ${i}`, apiKey: `${id}-key-${i}`, priority: i, ...extra.connection?.(i) };
    const c = await gw.api("POST", "/api/connections", body);
    expect(c.status, c.text).toBe(201);
    ids.push(c.body.id);
  }
  return ids;
}

const chat = (gw: TestGateway, model: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) =>
  gw.post("/v1/chat/completions", { model, messages: [{ role: "user", content: "hi" }], ...extra }, headers);
const selected = (r: ApiResult) => r.headers.get("x-omniroute-selected-connection-id");
const health = async (gw: TestGateway) => (await gw.api("GET", "/api/monitoring/health")).body;

beforeAll(async () => {
  redis = await startRedis();
  sim = await startSim({ label: "kinds" });
  a = await startGateway({ env: { SWITCHYARD_REDIS_URL: redis.url } });
  b = await startGateway({ env: { SWITCHYARD_REDIS_URL: redis.url } });
  for (let i = 0; i < 200; i++) {
    const [ha, hb] = await Promise.all([health(a), health(b)]);
    if (ha.sharedState?.status === "ok" && hb.sharedState?.status === "ok" && ha.sharedLimits.status === "ready" && hb.sharedLimits.status === "ready") break;
    await sleep(25);
  }
  expect((await health(a)).sharedState).toMatchObject({ mode: "redis", status: "ok" });
  expect((await health(b)).sharedState).toMatchObject({ mode: "redis", status: "ok" });
}, 30_000);

afterAll(async () => {
  await a?.close();
  await b?.close();
  await sim?.close();
  await redis?.stop();
});

describe("session pins (R7.1) across the group", () => {
  let pinsA: string[];
  let pinsB: string[];

  beforeAll(async () => {
    // A prefers key 3, B prefers key 1: only the shared pin can take B's session to key 3.
    pinsA = await provider(a, "a", "pin", 3, { connection: (i) => ({ priority: 3 - i }) });
    pinsB = await provider(b, "b", "pin", 3);
  });

  const pinOnB = async (session: string) =>
    ((await b.api("GET", "/api/sessions/pins")).body.items as Array<{ sessionKey: string; connectionId: string }>).find((p) => p.sessionKey === session)?.connectionId;

  it("R19.1 R7.1 a pin made through A is followed through B, on B's own id of the same connection, within 250 ms", async () => {
    const first = await chat(a, "pin/m1", { "x-session-id": "shared-session-1" });
    const since = performance.now();
    expect(first.status).toBe(200);
    expect(selected(first)).toBe(pinsA[2]);
    await propagated("pin", since, async () => (await pinOnB("shared-session-1")) === pinsB[2]);
    // Without the session B goes to its own first choice; with it, to the pinned connection.
    expect(selected(await chat(b, "pin/m1"))).toBe(pinsB[0]);
    const pinned = await chat(b, "pin/m1", { "x-session-id": "shared-session-1" });
    expect(pinned.status).toBe(200);
    expect(selected(pinned)).toBe(pinsB[2]);
    // An operator's unpin on B reaches A too.
    expect((await b.api("DELETE", "/api/sessions/pins/shared-session-1")).body.removed).toBe(true);
    const unpinned = performance.now();
    await propagated(
      "unpin",
      unpinned,
      async () => !((await a.api("GET", "/api/sessions/pins")).body.items as Array<{ sessionKey: string }>).some((p) => p.sessionKey === "shared-session-1"),
    );
  });

  it("R19.1 propagation of 50 pins from A to B: median and max, every one within 250 ms", async () => {
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      const session = `measured-${i}`;
      const r = await chat(a, "pin/m1", { "x-session-id": session });
      const since = performance.now();
      expect(r.status).toBe(200);
      times.push(await propagated(`pin ${i}`, since, async () => (await pinOnB(session)) === pinsB[2]));
    }
    times.sort((x, y) => x - y);
    const median = (times[24] + times[25]) / 2;
    console.log(`propagation median=${median.toFixed(1)}ms max=${times[49].toFixed(1)}ms (n=50, pins A→B, polled every 10 ms)`);
    expect(times[49]).toBeLessThanOrEqual(PROPAGATION_MS);
  }, 60_000);
});

describe("exclusive leases (R7.2) across the group", () => {
  let keyA: string;
  let keyB: string;
  const owner = () => `vlo_${randomBytes(32).toString("base64url")}`;
  const lease = (gw: TestGateway, key: string, body: Record<string, unknown>) => gw.post("/api/v1/session-leases", body, { authorization: `Bearer ${key}` });
  const leasesOn = async (gw: TestGateway) => (await gw.api("GET", "/api/sessions/leases")).body.items as Array<{ connectionId: string; generation: number }>;
  const createKey = async (gw: TestGateway, connectionId: string) => {
    const r = await gw.api("POST", "/api/keys", { name: "agent", scopes: ["lease:exclusive"], allowedConnections: [connectionId] });
    expect(r.status).toBe(201);
    return r.body.key as string;
  };

  beforeAll(async () => {
    const [onA] = await provider(a, "a", "lease", 1);
    const [onB] = await provider(b, "b", "lease", 1);
    keyA = await createKey(a, onA);
    keyB = await createKey(b, onB);
  });

  it("R19.2 R7.2 a lease taken on A is refused on B exactly as a second lease on A is, and is free on B once released on A", async () => {
    const first = owner();
    const taken = await lease(a, keyA, { action: "acquire", owner: first });
    const since = performance.now();
    expect(taken.status).toBe(200);
    expect(taken.body).toMatchObject({ state: "ACTIVE" });
    // B knows the lease itself (owner, generation), on its own id of the connection.
    await propagated("lease record", since, async () => (await leasesOn(b)).some((l) => l.connectionId === "lease-b1" && l.generation === taken.body.generation));
    const onB = await lease(b, keyB, { action: "acquire", owner: owner() });
    const onA = await lease(a, keyA, { action: "acquire", owner: owner() });
    expect(onB.status).toBe(429);
    expect(onB.body).toEqual(onA.body);
    expect(onB.body).toMatchObject({ code: "LEASE_CAPACITY_UNAVAILABLE", state: "WAITING_FOR_CAPACITY" });
    expect(onB.headers.get("retry-after")).toBe(onA.headers.get("retry-after"));

    const released = await lease(a, keyA, { action: "release", owner: first });
    const freedAt = performance.now();
    expect(released.body).toEqual({ state: "RELEASED" });
    const second = owner();
    let got: ApiResult | null = null;
    await propagated("lease release", freedAt, async () => {
      got = await lease(b, keyB, { action: "acquire", owner: second });
      return got.status === 200;
    });
    // Every new lease in the group gets a higher generation than any before it: a stale fence never matches.
    expect(got!.body.generation).toBeGreaterThan(taken.body.generation);
    expect((await lease(b, keyB, { action: "release", owner: second })).status).toBe(200);
    await propagated("lease release back", performance.now(), async () => (await leasesOn(a)).length === 0);
  });

  it("R19.2 two owners acquiring the one connection on A and on B at the same instant: exactly one gets it (the Redis claim)", async () => {
    for (let round = 0; round < 5; round++) {
      const [ownerA, ownerB] = [owner(), owner()];
      const results = await Promise.all([lease(a, keyA, { action: "acquire", owner: ownerA }), lease(b, keyB, { action: "acquire", owner: ownerB })]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 429]);
      const winner = results[0].status === 200 ? { gw: a, key: keyA, owner: ownerA } : { gw: b, key: keyB, owner: ownerB };
      expect((await lease(winner.gw, winner.key, { action: "release", owner: winner.owner })).status).toBe(200);
      await propagated("lease release", performance.now(), async () => (await leasesOn(a)).length === 0 && (await leasesOn(b)).length === 0);
    }
  });
});

describe("learned tool limits (R11.7) across the group", () => {
  const tools = (n: number) => Array.from({ length: n }, (_, i) => ({ type: "function", function: { name: `tool_${i}`, parameters: { type: "object", properties: {} } } }));

  beforeAll(async () => {
    // Only A's "small" refuses many tools: B could send 40 tools to its "small" and be served, so
    // a 40-tool request skipping it on B is the limit A learned, not one B learned itself.
    await provider(a, "a", "small", 1, { provider: { format: "simulator", options: { fault: { maxTools: 32 } } } });
    await provider(b, "b", "small", 1, { provider: { format: "simulator" } });
    for (const [gw, side] of [
      [a, "a"],
      [b, "b"],
    ] as const) {
      await provider(gw, side, "big", 1);
      expect((await gw.api("POST", "/api/combos", { name: "toolbox", targets: [{ model: "small/m1" }, { model: "big/m1" }] })).status).toBe(201);
    }
  });

  it("R19.1 R11.7 a tool limit learned on A keeps 40-tool requests off that provider on B within 250 ms; 5 tools still go there", async () => {
    const before = await chat(b, "toolbox", {}, { tools: tools(40) });
    expect(selected(before)).toBe("small-b1");
    const learned = await chat(a, "toolbox", {}, { tools: tools(40) });
    const since = performance.now();
    expect(learned.headers.get("x-switchyard-attempts")).toBe("2");
    expect(selected(learned)).toBe("big-a1");
    await propagated("tool limit", since, async () => selected(await chat(b, "toolbox", {}, { tools: tools(40) })) === "big-b1");
    const skipped = await chat(b, "toolbox", {}, { tools: tools(40) });
    expect(skipped.headers.get("x-switchyard-attempts")).toBe("1");
    expect(selected(await chat(b, "toolbox", {}, { tools: tools(5) }))).toBe("small-b1");
  });
});

describe("learned remaining quota (R10.2, R18.3) across the group", () => {
  /** 3 of 100 requests left in a window that starts over in a minute. */
  const LOW = { "x-ratelimit-limit-requests": "100", "x-ratelimit-remaining-requests": "3", "x-ratelimit-reset-requests": "60s" };

  beforeAll(async () => {
    await provider(a, "a", "quota", 2);
    await provider(b, "b", "quota", 2);
    // The cutoff is B's own setting (config stays per instance, R19.4); what it reads is shared.
    expect((await b.api("PATCH", "/api/resilience", { quotaPreflightCutoff: { enabled: true } })).status).toBe(200);
  });

  it("R19.1 R10.2 a connection A learned to be at 3 % of its quota is passed over on B for its sibling within 250 ms", async () => {
    expect(selected(await chat(b, "quota/m1"))).toBe("quota-b1");
    sim.addFault("quota-key-1", { headers: LOW, times: 1 });
    const learned = await chat(a, "quota/m1");
    const since = performance.now();
    expect(selected(learned)).toBe("quota-a1");
    await propagated("quota", since, async () => selected(await chat(b, "quota/m1")) === "quota-b2");
    const passed = await chat(b, "quota/m1");
    const log = (await b.api("GET", `/api/logs/${passed.headers.get("x-switchyard-request-id")}`)).body;
    expect(log.skipped).toContainEqual(expect.objectContaining({ connectionId: "quota-b1", reason: "quota_cutoff" }));
  });
});

describe("learned queue pauses (R9.4) across the group", () => {
  const rowOf = async (gw: TestGateway, id: string) =>
    ((await health(gw)).queues as Array<{ connectionId: string; pausedUntil: number | null }>).find((q) => q.connectionId === id);

  beforeAll(async () => {
    await provider(a, "a", "paced", 1, { connection: () => ({ maxConcurrent: 1 }) });
    await provider(b, "b", "paced", 1, { connection: () => ({ maxConcurrent: 1 }) });
    // Each side admits once, so its health report shows the connection's queue row.
    expect((await chat(a, "paced/m1")).status).toBe(200);
    expect((await chat(b, "paced/m1")).status).toBe(200);
  });

  it("R19.1 R9.4 a pause learned on A from a 429's retry delay holds on B within 250 ms, to the same instant; its lift on A lifts it on B", async () => {
    const body = JSON.stringify({
      error: { code: 429, message: "Resource exhausted", status: "RESOURCE_EXHAUSTED", details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "3s" }] },
    });
    sim.addFault("paced-key-1", { status: 429, body, times: 1 });
    expect((await chat(a, "paced/m1")).status).toBe(429);
    const since = performance.now();
    const pausedOnA = (await rowOf(a, "paced-a1"))!.pausedUntil;
    expect(pausedOnA).toBeGreaterThan(Date.now() + 2_000);
    await propagated("queue pause", since, async () => ((await rowOf(b, "paced-b1"))?.pausedUntil ?? 0) > Date.now() + 1_000);
    // The same pause: its end differs only by the rounding of the two health reports.
    expect(Math.abs((await rowOf(b, "paced-b1"))!.pausedUntil! - pausedOnA!)).toBeLessThan(50);

    const cleared = await a.api("POST", "/api/resilience/cooldowns", { connectionIds: ["paced-a1"] });
    expect(cleared.status).toBe(200);
    const liftedAt = performance.now();
    expect((await rowOf(a, "paced-a1"))!.pausedUntil).toBeNull();
    await propagated("pause lift", liftedAt, async () => (await rowOf(b, "paced-b1"))?.pausedUntil === null);
  });
});

describe("model concurrency caps (R19.1) across the group", () => {
  beforeAll(async () => {
    // No connection cap: only the model cap (1 for m1) limits these requests.
    for (const [gw, side] of [
      [a, "a"],
      [b, "b"],
    ] as const)
      await provider(gw, side, "capped", 1, { connection: () => ({ rateLimitOverrides: { modelConcurrency: { m1: 1 } } }) });
  });

  it("R19.1 two gateways with a model cap of 1 never run two requests of that model upstream at once", async () => {
    sim.addFault("capped-key-1", { latencyMs: 300, times: 6 });
    const before = sim.requests.length;
    const results = await Promise.all([a, b, a, b, a, b].map((gw) => chat(gw, "capped/m1")));
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(200));
    const starts = sim.requests
      .slice(before)
      .filter((r) => r.key === "capped-key-1")
      .map((r) => r.at)
      .sort((x, y) => x - y);
    expect(starts).toHaveLength(6);
    // Each call lasts at least 300 ms: a start closer than that to the previous one would overlap it.
    for (let i = 1; i < starts.length; i++) expect(starts[i] - starts[i - 1]).toBeGreaterThanOrEqual(290);
  }, 30_000);
});

describe("connection concurrency caps split into slices (R19.1) across the group", () => {
  beforeAll(async () => {
    for (const [gw, side] of [
      [a, "a"],
      [b, "b"],
    ] as const)
      await provider(gw, side, "sliced", 1, { connection: () => ({ maxConcurrent: 4 }) });
    // Slices follow the roster of live instances: both must be in it.
    for (let i = 0; i < 200 && !((await health(a)).sharedState.instances === 2 && (await health(b)).sharedState.instances === 2); i++) await sleep(25);
  });

  /** The most calls of 300 ms each that ran at once: starts closer than 290 ms overlap. */
  const mostAtOnce = (starts: number[]) => Math.max(...starts.map((t) => starts.filter((u) => u >= t && u - t < 290).length));

  it("R19.1 a cap of 4 in a group of two is a slice of 2 on each instance, held locally: A alone never runs more than 2, A and B together never more than 4", async () => {
    sim.addFault("sliced-key-1", { latencyMs: 300, times: 14 });
    let before = sim.requests.length;
    const alone = await Promise.all(Array.from({ length: 6 }, () => chat(a, "sliced/m1")));
    expect(alone.map((r) => r.status)).toEqual(Array(6).fill(200));
    const aloneStarts = sim.requests
      .slice(before)
      .filter((r) => r.key === "sliced-key-1")
      .map((r) => r.at);
    expect(aloneStarts).toHaveLength(6);
    expect(mostAtOnce(aloneStarts)).toBe(2);
    before = sim.requests.length;
    const both = await Promise.all([a, b, a, b, a, b, a, b].map((gw) => chat(gw, "sliced/m1")));
    expect(both.map((r) => r.status)).toEqual(Array(8).fill(200));
    const bothStarts = sim.requests
      .slice(before)
      .filter((r) => r.key === "sliced-key-1")
      .map((r) => r.at);
    expect(bothStarts).toHaveLength(8);
    expect(mostAtOnce(bothStarts)).toBe(4);
  }, 30_000);
});

describe("Redis loss (R19.3) for these kinds", () => {
  const sharedStatus = async (gw: TestGateway) => (await health(gw)).sharedState?.status;
  const waitFor = async (what: string, check: () => Promise<boolean>) => {
    for (let i = 0; i < 200; i++) {
      if (await check()) return;
      await sleep(25);
    }
    throw new Error(`timed out waiting for ${what}`);
  };

  it("R19.3 with Redis down a lease is decided locally and a pin still made; when Redis returns both reach B", async () => {
    const [onA] = await provider(a, "a", "apart", 1);
    const [onB] = await provider(b, "b", "apart", 1);
    const keyFor = async (gw: TestGateway, id: string) =>
      (await gw.api("POST", "/api/keys", { name: "apart", scopes: ["lease:exclusive"], allowedConnections: [id] })).body.key as string;
    const [keyA, keyB] = [await keyFor(a, onA), await keyFor(b, onB)];
    const port = Number(new URL(redis.url).port);
    await redis.stop();
    await waitFor("unreachable on both", async () => (await sharedStatus(a)) === "unreachable" && (await sharedStatus(b)) === "unreachable");

    const owner = `vlo_${randomBytes(32).toString("base64url")}`;
    const taken = await a.post("/api/v1/session-leases", { action: "acquire", owner }, { authorization: `Bearer ${keyA}` });
    expect(taken.status).toBe(200);
    expect(selected(await chat(a, "pin/m1", { "x-session-id": "made-while-apart" }))).toBe("pin-a3");

    redis = await startRedis(port);
    await waitFor("ok on both", async () => (await sharedStatus(a)) === "ok" && (await sharedStatus(b)) === "ok");
    await waitFor("the pin on B", async () =>
      ((await b.api("GET", "/api/sessions/pins")).body.items as Array<{ sessionKey: string; connectionId: string }>).some(
        (p) => p.sessionKey === "made-while-apart" && p.connectionId === "pin-b3",
      ),
    );
    await waitFor("the lease on B", async () => ((await b.api("GET", "/api/sessions/leases")).body.items as Array<{ connectionId: string }>).some((l) => l.connectionId === onB));
    const refused = await b.post("/api/v1/session-leases", { action: "acquire", owner: `vlo_${randomBytes(32).toString("base64url")}` }, { authorization: `Bearer ${keyB}` });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe("LEASE_CAPACITY_UNAVAILABLE");
  }, 30_000);

  it("R19.3 R19.2 two owners who took the one connection on A and on B while Redis was down: on its return the first taken keeps it in both, the other is revoked", async () => {
    const [onA] = await provider(a, "a", "split", 1);
    const [onB] = await provider(b, "b", "split", 1);
    const keyFor = async (gw: TestGateway, id: string) =>
      (await gw.api("POST", "/api/keys", { name: "split", scopes: ["lease:exclusive"], allowedConnections: [id] })).body.key as string;
    const [keyA, keyB] = [await keyFor(a, onA), await keyFor(b, onB)];
    const port = Number(new URL(redis.url).port);
    await redis.stop();
    await waitFor("unreachable on both", async () => (await sharedStatus(a)) === "unreachable" && (await sharedStatus(b)) === "unreachable");
    const [first, second] = [`vlo_${randomBytes(32).toString("base64url")}`, `vlo_${randomBytes(32).toString("base64url")}`];
    const takenOnA = await a.post("/api/v1/session-leases", { action: "acquire", owner: first }, { authorization: `Bearer ${keyA}` });
    await sleep(5);
    const takenOnB = await b.post("/api/v1/session-leases", { action: "acquire", owner: second }, { authorization: `Bearer ${keyB}` });
    expect([takenOnA.status, takenOnB.status]).toEqual([200, 200]);

    redis = await startRedis(port);
    await waitFor("ok on both", async () => (await sharedStatus(a)) === "ok" && (await sharedStatus(b)) === "ok");
    // A lease is told apart by its generation and the instant it was taken: each instance numbers its own
    // generations while apart, so B's own lease can carry A's number (then only the instant differs).
    const leasesOn = async (gw: TestGateway, id: string) =>
      ((await gw.api("GET", "/api/sessions/leases")).body.items as Array<{ connectionId: string; generation: number; acquiredAt: number }>)
        .filter((l) => l.connectionId === id)
        .map((l) => `${l.generation}@${l.acquiredAt}`);
    await waitFor("one lease, A's, in both", async () => {
      const [seenA, seenB] = [await leasesOn(a, onA), await leasesOn(b, onB)];
      return seenA.length === 1 && seenB.length === 1 && seenA[0] === seenB[0] && seenA[0].startsWith(`${takenOnA.body.generation}@`);
    });
    const renewLost = await b.post("/api/v1/session-leases", { action: "renew", owner: second, generation: takenOnB.body.generation }, { authorization: `Bearer ${keyB}` });
    expect(renewLost.status).toBe(409);
    expect(renewLost.body.error.code).toBe("LEASE_FENCE_STALE");
  }, 30_000);
});
