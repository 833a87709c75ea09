// Admission control over real HTTP against the simulator (issue 10): queues, concurrency caps,
// budgets, expiration, pacing, and permits released exactly once (R8, R9, D9).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { startGateway, startSim, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;

const chat = (model: string, stream = false) => ({ model, stream, messages: [{ role: "user", content: "hi" }] });

/** One provider with one connection keyed `key`, plus whatever connection fields the test needs. */
async function connectionWith(id: string, key: string, fields: Record<string, unknown>, category = "apikey"): Promise<void> {
  const p = await gw.api("POST", "/api/providers", { id, format: "openai", baseUrl: `${sim.url}/v1`, category, models: ["m1"] });
  expect(p.status).toBe(201);
  const c = await gw.api("POST", "/api/connections", { id: `${id}-c1`, provider: id, name: id, apiKey: key, ...fields });
  expect(c.status).toBe(201);
}

const startsOf = (key: string) => sim.requests.filter((r) => r.key === key).map((r) => r.at);
const health = async () => (await gw.api("GET", "/api/monitoring/health")).body;
const queueOf = async (connectionId: string) => (await health()).queues.find((q: { connectionId: string }) => q.connectionId === connectionId);

beforeAll(async () => {
  sim = await startSim({ label: "admission" });
  gw = await startGateway();
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

describe("request queue and gates", () => {
  it("D9 concurrency 1 + depth 1: the third request is rejected at once, the first two complete one after the other (and the events stream shows it)", async () => {
    await gw.api("PATCH", "/api/resilience", { requestQueue: { maxQueueDepth: 1 } });
    const seen: Array<{ inFlight: number; queued: number }> = [];
    const unsubscribe = gw.app.bus.subscribe((e) => {
      if (e.type === "queues") seen.push(...e.queues.filter((q) => q.connectionId === "depth-c1"));
    });
    try {
      await connectionWith("depth", "depth-key", { maxConcurrent: 1 });
      sim.addFault("depth-key", { latencyMs: 1_500, times: 2 });
      const first = gw.post("/v1/chat/completions", chat("depth/m1"));
      await new Promise((r) => setTimeout(r, 50));
      const second = gw.post("/v1/chat/completions", chat("depth/m1"));
      await new Promise((r) => setTimeout(r, 50));
      const t0 = Date.now();
      const third = await gw.post("/v1/chat/completions", chat("depth/m1"));
      // At once: long before the running request (1.5 s) could have made room.
      expect(Date.now() - t0).toBeLessThan(1_000);
      expect(third.status).toBe(429);
      expect(third.body.error.code).toBe("RATE_LIMIT_QUEUE_FULL");
      expect(third.body.error.message).toContain("maxQueueDepth");
      const [a, b] = await Promise.all([first, second]);
      expect([a.status, b.status]).toEqual([200, 200]);
      const starts = startsOf("depth-key");
      expect(starts).toHaveLength(2);
      // R8.1 the second reached upstream only after the first one's 1.5 s answer.
      expect(starts[1] - starts[0]).toBeGreaterThanOrEqual(1_490);
      // The events stream carried the state while one ran and one waited.
      expect(seen).toContainEqual(expect.objectContaining({ inFlight: 1, queued: 1 }));
    } finally {
      unsubscribe();
      await gw.api("PATCH", "/api/resilience", { requestQueue: { maxQueueDepth: 0 } });
    }
  });

  it("R9.1 a queue-wait timeout never reaches upstream and never blames the provider", async () => {
    await connectionWith("budget", "budget-key", { maxConcurrent: 1, rateLimitOverrides: { maxWaitMs: 200 } });
    sim.addFault("budget-key", { latencyMs: 900, times: 1 });
    const first = gw.post("/v1/chat/completions", chat("budget/m1"));
    await new Promise((r) => setTimeout(r, 50));
    const second = await gw.post("/v1/chat/completions", chat("budget/m1"));
    expect(second.status).toBe(503);
    expect(second.body.error.code).toBe("RATE_LIMIT_QUEUE_TIMEOUT");
    expect(Number(second.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await first).status).toBe(200);
    expect(startsOf("budget-key")).toHaveLength(1);
    const h = await health();
    expect(h.providerBreakers.find((b: { provider: string }) => b.provider === "budget")?.failureCount ?? 0).toBe(0);
    const conn = (await gw.api("GET", "/api/connections/budget-c1")).body;
    expect(conn.rateLimitedUntil).toBeNull();
  });

  // Issue 26 item 5: this test asserted that executionMaxWaitMs 300 cut a 3 s answer with 504
  // RATE_LIMIT_EXECUTION_TIMEOUT although the request's own timeout (the attempt deadline, 600 s)
  // was longer. R9.1 raises the job expiration to the request's own timeout in that case, so the
  // answer is served; past the request's own deadline it is that deadline's upstream timeout.
  it("R9.1 executionMaxWaitMs shorter than the request's own timeout is raised to it: a 1.5 s answer under a 300 ms budget is served, and past the own deadline the answer is upstream_timeout, not RATE_LIMIT_EXECUTION_TIMEOUT", async () => {
    await connectionWith("expiry", "expiry-key", { rateLimitOverrides: { executionMaxWaitMs: 300 } });
    sim.addFault("expiry-key", { latencyMs: 1_500, times: 1 });
    const t0 = Date.now();
    const served = await gw.post("/v1/chat/completions", chat("expiry/m1"));
    expect(served.status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1_400);
    expect((await queueOf("expiry-c1")).inFlight).toBe(0);
    try {
      await gw.api("PATCH", "/api/resilience", { streamRecovery: { attemptDeadlineMs: 1_000 } });
      sim.addFault("expiry-key", { latencyMs: 3_000, times: 1 });
      const t1 = Date.now();
      const late = await gw.post("/v1/chat/completions", chat("expiry/m1"));
      expect(Date.now() - t1).toBeLessThan(2_500);
      expect(late.status).toBe(504);
      expect(late.body.error.code).toBe("upstream_timeout");
      expect((await queueOf("expiry-c1")).inFlight).toBe(0);
    } finally {
      await gw.api("PATCH", "/api/resilience", { streamRecovery: { attemptDeadlineMs: null } });
    }
  });

  it('R9.4 a 429 with retryDelay "2s" paces the queue, and the queued calls then succeed', async () => {
    await connectionWith("paced", "paced-key", { maxConcurrent: 1 });
    const body = JSON.stringify({
      error: { code: 429, message: "Resource exhausted", status: "RESOURCE_EXHAUSTED", details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "2s" }] },
    });
    sim.addFault("paced-key", { status: 429, body, latencyMs: 100, times: 1 });
    const first = gw.post("/v1/chat/completions", chat("paced/m1"));
    await new Promise((r) => setTimeout(r, 30));
    const queued = [gw.post("/v1/chat/completions", chat("paced/m1")), gw.post("/v1/chat/completions", chat("paced/m1"))];
    await new Promise((r) => setTimeout(r, 300));
    const paused = await queueOf("paced-c1");
    expect(paused.queued).toBe(2);
    expect(paused.pausedUntil).toBeGreaterThan(Date.now() + 1_000);
    expect((await first).status).toBe(429);
    const results = await Promise.all(queued);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    const starts = startsOf("paced-key");
    expect(starts).toHaveLength(3);
    expect(starts[1] - starts[0]).toBeGreaterThanOrEqual(1_900);
  });

  it("R8.2 quotaShareConcurrencyLimit off: a quota-share combo queues like any combo (served in turn; a spent budget ends it as any other); on: it goes on without a slot", async () => {
    const combos = async (id: string) => {
      for (const [name, quotaShare] of [
        [`${id}-share`, true],
        [`${id}-plain`, false],
      ] as const) {
        expect((await gw.api("POST", "/api/combos", { name, strategy: "priority", targets: [{ model: `${id}/m1` }], config: { quotaShare } })).status).toBe(201);
      }
    };
    /** Two requests at once to a connection capped at 1 whose first answer takes `latencyMs`. */
    const pair = async (key: string, model: string, latencyMs: number) => {
      sim.addFault(key, { latencyMs, times: 2 });
      const first = gw.post("/v1/chat/completions", chat(model));
      await new Promise((r) => setTimeout(r, 50));
      const second = await gw.post("/v1/chat/completions", chat(model));
      sim.clearFaults(key);
      return [(await first).status, second.status, second.body?.error?.code ?? null];
    };
    await connectionWith("qs-wait", "qs-wait-key", { maxConcurrent: 1 }, "oauth");
    await connectionWith("qs-short", "qs-short-key", { maxConcurrent: 1, rateLimitOverrides: { maxWaitMs: 150 } }, "oauth");
    await combos("qs-wait");
    await combos("qs-short");
    try {
      expect((await gw.api("PATCH", "/api/resilience", { quotaShareConcurrencyLimit: { enabled: false } })).status).toBe(200);
      const before = startsOf("qs-wait-key").length;
      expect(await pair("qs-wait-key", "qs-wait-share", 400)).toEqual([200, 200, null]);
      const starts = startsOf("qs-wait-key").slice(before);
      expect(starts[1] - starts[0]).toBeGreaterThanOrEqual(390);
      expect(await pair("qs-short-key", "qs-short-share", 600)).toEqual(await pair("qs-short-key", "qs-short-plain", 600));
      expect(await pair("qs-short-key", "qs-short-share", 600)).toEqual([200, 503, "SEMAPHORE_TIMEOUT"]);
      expect((await gw.api("PATCH", "/api/resilience", { quotaShareConcurrencyLimit: { enabled: true } })).status).toBe(200);
      expect(await pair("qs-short-key", "qs-short-share", 600)).toEqual([200, 200, null]);
      expect(await pair("qs-short-key", "qs-short-plain", 600)).toEqual([200, 503, "SEMAPHORE_TIMEOUT"]);
    } finally {
      await gw.api("PATCH", "/api/resilience", { quotaShareConcurrencyLimit: { enabled: true } });
    }
  });

  it("R8.3 100 streams aborted midway leave every permit free", async () => {
    await connectionWith("streams", "streams-key", { maxConcurrent: 200 });
    sim.addFault("streams-key", { stallAfterChunks: 1, times: 100 });
    const aborts = Array.from({ length: 100 }, () => new AbortController());
    const readers = await Promise.all(
      aborts.map(async (ac) => {
        const res = await fetch(`${gw.url}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(chat("streams/m1", true)),
          signal: ac.signal,
        });
        const reader = res.body!.getReader();
        await reader.read();
        return reader;
      }),
    );
    expect((await queueOf("streams-c1")).inFlight).toBe(100);
    for (const ac of aborts) ac.abort();
    await Promise.all(readers.map((r) => r.cancel().catch(() => undefined)));
    let row = await queueOf("streams-c1");
    for (let i = 0; i < 50 && row.inFlight > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      row = await queueOf("streams-c1");
    }
    expect(row).toMatchObject({ inFlight: 0, queued: 0 });
  });

  it("R9 a deleted connection leaves the health queues", async () => {
    await connectionWith("gone-q", "gone-key", { maxConcurrent: 2 });
    expect((await gw.post("/v1/chat/completions", chat("gone-q/m1"))).status).toBe(200);
    expect(await queueOf("gone-q-c1")).toMatchObject({ inFlight: 0, maxConcurrent: 2 });
    expect((await gw.api("DELETE", "/api/connections/gone-q-c1")).status).toBe(200);
    expect(await queueOf("gone-q-c1")).toBeUndefined();
  });

  it("R9.5 POST /api/rate-limits protects a connection the automatic rule leaves out; health shows local limits", async () => {
    await connectionWith("forced", "forced-key", {}, "oauth");
    await gw.post("/v1/chat/completions", chat("forced/m1"));
    expect((await queueOf("forced-c1")).protected).toBe(false);
    const set = await gw.api("POST", "/api/rate-limits", { connectionId: "forced-c1", enabled: true });
    expect(set.status).toBe(200);
    await gw.post("/v1/chat/completions", chat("forced/m1"));
    expect((await queueOf("forced-c1")).protected).toBe(true);
    expect((await health()).sharedLimits).toEqual({ mode: "local", status: "local" });
    const missing = await gw.api("POST", "/api/rate-limits", { connectionId: "nope", enabled: true });
    expect(missing.status).toBe(404);
  });

  it("R9.6 the Redis URL is also a setting: applied live, credentials refused, an unreachable Redis leaves requests flowing", async () => {
    const withPassword = await gw.api("PATCH", "/api/settings", { redisUrl: "redis://:secret@127.0.0.1:6379" });
    expect(withPassword.status).toBe(400);
    expect(withPassword.text).toContain("redisUrl");
    expect(withPassword.text).not.toContain("secret@");
    const notRedis = await gw.api("PATCH", "/api/settings", { redisUrl: "http://127.0.0.1:6379" });
    expect(notRedis.status).toBe(400);
    // Port 1 on loopback: nothing listens there.
    expect((await gw.api("PATCH", "/api/settings", { redisUrl: "redis://127.0.0.1:1" })).status).toBe(200);
    try {
      await connectionWith("unshared", "unshared-key", { maxConcurrent: 1 });
      expect((await health()).sharedLimits.mode).toBe("redis");
      const res = await gw.post("/v1/chat/completions", chat("unshared/m1"));
      expect(res.status).toBe(200);
      expect(await queueOf("unshared-c1")).toMatchObject({ shared: false, inFlight: 0 });
      for (let i = 0; i < 50 && (await health()).sharedLimits.status !== "unreachable"; i++) await new Promise((r) => setTimeout(r, 100));
      expect((await health()).sharedLimits).toEqual({ mode: "redis", status: "unreachable" });
    } finally {
      await gw.api("PATCH", "/api/settings", { redisUrl: null });
    }
    expect((await health()).sharedLimits).toEqual({ mode: "local", status: "local" });
  });
});
