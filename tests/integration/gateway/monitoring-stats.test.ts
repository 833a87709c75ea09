// GET /api/monitoring/stats over real HTTP (R14.2, R15.1): requests made through the gateway
// against the simulator, succeeding, failing upstream and never reaching a provider, come back
// aggregated per provider in time buckets, from the whole log rather than its newest 1 000 entries.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RequestStats } from "../../../shared/apiTypes.js";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;

const chat = (model: string) => gw.post("/v1/chat/completions", { model, messages: [{ role: "user", content: "hello" }] });
const total = (stats: RequestStats, provider: string, field: "requests" | "errors") =>
  stats.providers.find((p) => p.provider === provider)?.buckets.reduce((n, b) => n + b[field], 0) ?? 0;

beforeAll(async () => {
  sim = await startSim({ label: "stats" });
  gw = await startGateway({ testClock: true });
  await addProvider(gw, "alpha", sim, "openai", ["alpha-k1"]);
  await addProvider(gw, "beta", sim, "openai", ["beta-k1"]);
  for (let i = 0; i < 3; i++) expect((await chat("alpha/m1")).status).toBe(200);
  sim.addFault("beta-k1", { status: 400, body: JSON.stringify({ error: { message: "bad field", type: "invalid_request_error", code: null } }), times: 2 });
  expect((await chat("beta/m1")).status).toBe(400);
  expect((await chat("beta/m1")).status).toBe(400);
  expect((await chat("beta/m1")).status).toBe(200);
  expect((await chat("nobody/m1")).status).toBe(404);
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

describe("GET /api/monitoring/stats", () => {
  it("R14.2 counts requests, errors and mean latency per provider over the last hour in 5-minute buckets", async () => {
    const { body: clock } = await gw.api<{ now: number }>("GET", "/api/debug/clock");
    const res = await gw.api<RequestStats>("GET", "/api/monitoring/stats");
    expect(res.status).toBe(200);
    const stats = res.body;
    expect(stats).toMatchObject({ windowMs: 3_600_000, bucketMs: 300_000 });
    expect(stats.until).toBeGreaterThanOrEqual(clock.now);
    expect(stats.since % 300_000).toBe(0);
    expect(stats.until - stats.since).toBeGreaterThanOrEqual(3_300_000);
    expect(stats.until - stats.since).toBeLessThanOrEqual(3_600_000);
    // Requests that never reached a provider (here: an unknown model) are counted under "(none)".
    expect(stats.providers.map((p) => p.provider)).toEqual(["(none)", "alpha", "beta"]);
    for (const { buckets } of stats.providers) {
      expect(buckets.map((b) => b.start)).toEqual(Array.from({ length: 12 }, (_, i) => stats.since + i * 300_000));
    }
    expect([total(stats, "alpha", "requests"), total(stats, "alpha", "errors")]).toEqual([3, 0]);
    expect([total(stats, "beta", "requests"), total(stats, "beta", "errors")]).toEqual([3, 2]);
    expect([total(stats, "(none)", "requests"), total(stats, "(none)", "errors")]).toEqual([1, 1]);
    const alpha = stats.providers.find((p) => p.provider === "alpha")!.buckets;
    for (const b of alpha) {
      expect(b.meanLatencyMs).toBe(b.requests === 0 ? null : Math.round(b.latencyMsSum / b.requests));
    }
    expect(alpha.some((b) => b.requests > 0 && b.meanLatencyMs !== null && b.meanLatencyMs >= 0)).toBe(true);
  });

  it("R15.1 aggregates the whole log, beyond the 1 000 entries GET /api/logs returns", async () => {
    const before = (await gw.api<RequestStats>("GET", "/api/monitoring/stats")).body;
    const extra = 1_010;
    for (let sent = 0; sent < extra; sent += 50) {
      const batch = await Promise.all(Array.from({ length: Math.min(50, extra - sent) }, () => chat("alpha/m1")));
      expect(batch.every((r) => r.status === 200)).toBe(true);
    }
    const logs = await gw.api<unknown[]>("GET", "/api/logs?limit=1000");
    expect(logs.body).toHaveLength(1_000);
    const after = (await gw.api<RequestStats>("GET", "/api/monitoring/stats")).body;
    expect(total(after, "alpha", "requests")).toBe(total(before, "alpha", "requests") + extra);
    expect(total(after, "beta", "errors")).toBe(2);
  }, 60_000);

  it("R14.2 takes another window and bucket size", async () => {
    const res = await gw.api<RequestStats>("GET", "/api/monitoring/stats?windowMs=60000&bucketMs=10000");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ windowMs: 60_000, bucketMs: 10_000 });
    expect(res.body.since % 10_000).toBe(0);
    for (const p of res.body.providers) expect(p.buckets).toHaveLength(6);
    expect(total(res.body, "beta", "errors")).toBe(2);
  });

  it("R14.2 answers 400 with the field path for a bad query", async () => {
    const cases: Array<[string, string]> = [
      ["windowMs=1000", "windowMs"],
      ["windowMs=86400001", "windowMs"],
      ["bucketMs=abc", "bucketMs"],
      ["bucketMs=9999", "bucketMs"],
      ["bucketMs=1.5", "bucketMs"],
      // 8 640 buckets: more than the 360 allowed.
      ["windowMs=86400000&bucketMs=10000", "bucketMs"],
      // Not a whole number of buckets.
      ["windowMs=3600000&bucketMs=420000", "windowMs"],
      ["windowMS=60000", "windowMS"],
    ];
    for (const [query, path] of cases) {
      const res = await gw.api("GET", `/api/monitoring/stats?${query}`);
      expect({ query, status: res.status, code: res.body.error?.code, path: res.body.error?.path }).toEqual({
        query,
        status: 400,
        code: "invalid_request",
        path,
      });
    }
  });

  it("R14.2 the window ends at the engine clock: moved two hours on, the last hour is empty", async () => {
    const moved = await gw.api<{ now: number }>("POST", "/api/debug/clock", { advanceMs: 2 * 3_600_000 });
    expect(moved.status).toBe(200);
    const res = await gw.api<RequestStats>("GET", "/api/monitoring/stats");
    expect(res.status).toBe(200);
    expect(res.body.until).toBeGreaterThanOrEqual(moved.body.now);
    expect(res.body.providers).toEqual([]);
  });
});
