// Issue 26 item 4 over real HTTP against the simulator: the provider gate (a provider's
// `maxConcurrent`) and the global gate (`maxConcurrent` in PATCH /api/settings) of R8.1, with the
// connection gate's queue and wait semantics, shown in GET /api/monitoring/health `queues`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { startGateway, startSim, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;

const chat = (model: string) => ({ model, messages: [{ role: "user", content: "hi" }] });
const startsOf = (key: string) => sim.requests.filter((r) => r.key === key).map((r) => r.at);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const health = async () => (await gw.api("GET", "/api/monitoring/health")).body;

interface Row {
  scope: string;
  provider: string | null;
  connectionId: string | null;
  inFlight: number;
  queued: number;
  maxConcurrent: number | null;
}

/** A local provider (no queue protection) with one connection per key: `<id>-c1`, `<id>-c2`… */
async function providerWith(id: string, keys: string[], fields: Record<string, unknown> = {}): Promise<void> {
  const p = await gw.api("POST", "/api/providers", { id, format: "openai", baseUrl: `${sim.url}/v1`, category: "local", models: ["m1"], ...fields });
  expect(p.status).toBe(201);
  for (const [i, key] of keys.entries()) {
    const c = await gw.api("POST", "/api/connections", { id: `${id}-c${i + 1}`, provider: id, name: key, apiKey: key, priority: i });
    expect(c.status).toBe(201);
  }
}

beforeAll(async () => {
  sim = await startSim({ label: "gates" });
  gw = await startGateway();
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

describe("R8.1 provider and global gates", () => {
  it("R8.1 a provider's maxConcurrent 1 holds a request for its other, idle connection until the first answers; health shows the provider gate", async () => {
    await providerWith("gated", ["gated-k1", "gated-k2"], { maxConcurrent: 1 });
    expect((await gw.api("GET", "/api/providers/gated")).body.maxConcurrent).toBe(1);
    // A combo pinned to the second connection: only the provider gate can hold it back.
    expect((await gw.api("POST", "/api/combos", { name: "on-k2", strategy: "priority", targets: [{ model: "gated/m1", connectionId: "gated-c2" }] })).status).toBe(201);
    sim.addFault("gated-k1", { latencyMs: 1_200, times: 1 });
    const first = gw.post("/v1/chat/completions", chat("gated/m1"));
    await sleep(150);
    const second = gw.post("/v1/chat/completions", chat("on-k2"));
    await sleep(200);
    const rows: Row[] = (await health()).queues;
    expect(rows.find((r) => r.scope === "provider" && r.provider === "gated")).toMatchObject({ connectionId: null, inFlight: 1, queued: 1, maxConcurrent: 1 });
    expect(rows.find((r) => r.connectionId === "gated-c2")).toMatchObject({ scope: "connection", inFlight: 0, queued: 1 });
    const [a, b] = await Promise.all([first, second]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.headers.get("x-omniroute-selected-connection-id")).toBe("gated-c2");
    // The second reached upstream only after the first one's 1.2 s answer.
    expect(startsOf("gated-k2")[0] - startsOf("gated-k1")[0]).toBeGreaterThanOrEqual(1_000);
    const after: Row[] = (await health()).queues;
    expect(after.find((r) => r.scope === "provider" && r.provider === "gated")).toMatchObject({ inFlight: 0, queued: 0 });
  });

  it("R8.1 the global gate (settings maxConcurrent) holds requests to every provider: one waits its turn, one past its maxWaitMs gets SEMAPHORE_TIMEOUT naming the gate, and nothing blames a provider; null removes the gate", async () => {
    expect((await gw.api("GET", "/api/settings")).body.maxConcurrent).toBeNull();
    await providerWith("slow", ["slow-k1"]);
    await providerWith("other", ["other-k1"]);
    const budgeted = await gw.api("POST", "/api/connections", {
      id: "other-c2",
      provider: "other",
      name: "budget",
      apiKey: "other-k2",
      priority: 5,
      rateLimitOverrides: { maxWaitMs: 300 },
    });
    expect(budgeted.status).toBe(201);
    expect((await gw.api("POST", "/api/combos", { name: "budgeted", strategy: "priority", targets: [{ model: "other/m1", connectionId: "other-c2" }] })).status).toBe(201);
    const patched = await gw.api("PATCH", "/api/settings", { maxConcurrent: 1 });
    expect(patched.status).toBe(200);
    expect(patched.body.maxConcurrent).toBe(1);
    try {
      sim.addFault("slow-k1", { latencyMs: 1_500, times: 1 });
      const first = gw.post("/v1/chat/completions", chat("slow/m1"));
      await sleep(150);
      const waiting = gw.post("/v1/chat/completions", chat("other/m1"));
      const t0 = Date.now();
      const refused = await gw.post("/v1/chat/completions", chat("budgeted"));
      expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
      expect(refused.status).toBe(503);
      expect(refused.body.error.code).toBe("SEMAPHORE_TIMEOUT");
      expect(refused.body.error.message).toContain("global gate");
      const rows: Row[] = (await health()).queues;
      expect(rows[0]).toMatchObject({ scope: "global", provider: null, connectionId: null, inFlight: 1, queued: 1, maxConcurrent: 1 });
      const [a, b] = await Promise.all([first, waiting]);
      expect([a.status, b.status]).toEqual([200, 200]);
      expect(startsOf("other-k1")[0] - startsOf("slow-k1")[0]).toBeGreaterThanOrEqual(1_300);
      expect(startsOf("other-k2")).toHaveLength(0);
      const h = await health();
      expect(h.providerBreakers.find((x: { provider: string }) => x.provider === "other")?.failureCount ?? 0).toBe(0);
      expect((await gw.api("GET", "/api/connections/other-c2")).body.rateLimitedUntil).toBeNull();
    } finally {
      expect((await gw.api("PATCH", "/api/settings", { maxConcurrent: null })).body.maxConcurrent).toBeNull();
    }
    // Without the gate two slow requests to two providers overlap, and the gate's row is gone.
    sim.addFault("slow-k1", { latencyMs: 800, times: 1 });
    sim.addFault("other-k1", { latencyMs: 800, times: 1 });
    const t1 = Date.now();
    const both = await Promise.all([gw.post("/v1/chat/completions", chat("slow/m1")), gw.post("/v1/chat/completions", chat("other/m1"))]);
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    expect(Date.now() - t1).toBeLessThan(1_500);
    expect(((await health()).queues as Row[]).filter((r) => r.scope === "global")).toEqual([]);
  });

  it("R8.1 gate caps are validated: a provider's maxConcurrent and the settings' are positive integers or null", async () => {
    const badProvider = await gw.api("POST", "/api/providers", { id: "bad", format: "openai", baseUrl: `${sim.url}/v1`, maxConcurrent: 0 });
    expect(badProvider.status).toBe(400);
    expect(badProvider.body.error.path).toBe("maxConcurrent");
    const badSetting = await gw.api("PATCH", "/api/settings", { maxConcurrent: 1.5 });
    expect(badSetting.status).toBe(400);
    expect(badSetting.body.error.path).toBe("maxConcurrent");
    await providerWith("capped", ["capped-k1"], { maxConcurrent: 3 });
    const cleared = await gw.api("PATCH", "/api/providers/capped", { maxConcurrent: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.maxConcurrent).toBeNull();
  });
});
