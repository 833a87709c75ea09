// Issue 26 item 7: a combo's config.targetTimeoutMs over real HTTP. An attempt on a target that
// has not begun answering within it is abandoned and the combo moves to its next target (not the
// target's next connection); failover treats it as an upstream timeout, but it counts against
// neither the provider's breaker nor the connection. An answer that has begun is never cut by it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import type { RequestLogEntry } from "../../../shared/types.js";
import { startGateway, startSim, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;

const chat = (model: string, stream = false) => ({ model, stream, messages: [{ role: "user", content: "hi" }] });
const hits = (key: string) => sim.requests.filter((r) => r.key === key).length;
const logOf = async (requestId: string | null) => (await gw.api<RequestLogEntry>("GET", `/api/logs/${requestId}`)).body;

async function providerWith(id: string, keys: string[]): Promise<void> {
  expect((await gw.api("POST", "/api/providers", { id, format: "openai", baseUrl: `${sim.url}/v1`, category: "local", models: ["m1"] })).status).toBe(201);
  for (const [i, key] of keys.entries()) {
    expect((await gw.api("POST", "/api/connections", { id: `${id}-c${i + 1}`, provider: id, name: key, apiKey: key, priority: i })).status).toBe(201);
  }
}

beforeAll(async () => {
  sim = await startSim({ label: "deadline" });
  gw = await startGateway();
  await providerWith("slow", ["slow-k1", "slow-k2"]);
  await providerWith("fast", ["fast-k1"]);
  const combo = { name: "hurry", strategy: "priority", targets: [{ model: "slow/m1" }, { model: "fast/m1" }], config: { targetTimeoutMs: 400 } };
  expect((await gw.api("POST", "/api/combos", combo)).status).toBe(201);
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

describe("combo config.targetTimeoutMs", () => {
  it("R11.3 targetTimeoutMs: a target silent past it is abandoned for the next target (not its second connection), as a timeout that blames neither provider nor connection", async () => {
    sim.addFault("slow-k1", { latencyMs: 3_000, times: 1 });
    const t0 = Date.now();
    const res = await gw.post("/v1/chat/completions", chat("hurry"));
    const took = Date.now() - t0;
    expect(res.status).toBe(200);
    expect(took).toBeGreaterThanOrEqual(380);
    expect(took).toBeLessThan(2_000);
    expect(res.headers.get("x-omniroute-selected-connection-id")).toBe("fast-c1");
    expect(hits("slow-k2")).toBe(0);
    const log = await logOf(res.headers.get("x-switchyard-request-id"));
    expect(log.attempts.map((a) => [a.connectionId, a.verdict])).toEqual([
      ["slow-c1", "target_timeout"],
      ["fast-c1", null],
    ]);
    const health = (await gw.api("GET", "/api/monitoring/health")).body;
    expect(health.providerBreakers.find((b: { provider: string }) => b.provider === "slow")?.failureCount ?? 0).toBe(0);
    const conn = (await gw.api("GET", "/api/connections/slow-c1")).body;
    expect([conn.rateLimitedUntil, conn.backoffLevel, conn.lastErrorType]).toEqual([null, 0, null]);
    // The same target is tried first again on the next request: it was not cooled down.
    expect((await gw.post("/v1/chat/completions", chat("hurry"))).headers.get("x-omniroute-selected-connection-id")).toBe("slow-c1");
  });

  it("R13.2 targetTimeoutMs on a stream: no content yet at the deadline fails over invisibly; content that began is never cut by it", async () => {
    sim.addFault("slow-k1", { stallBeforeContent: true, times: 1 });
    const res = await gw.post("/v1/chat/completions", chat("hurry", true));
    expect(res.status).toBe(200);
    expect(res.text).toContain("fast-k1");
    expect(res.text).toContain("[DONE]");
    // Begins at once, then trickles for longer than the 400 ms deadline: served whole by the first target.
    sim.addFault("slow-k1", { trickleMs: 120, times: 1 });
    const t0 = Date.now();
    const long = await gw.post("/v1/chat/completions", chat("hurry", true));
    expect(Date.now() - t0).toBeGreaterThan(450);
    expect(long.text).toContain("slow-k1");
    expect(long.text).toContain("[DONE]");
    expect(long.text).not.toContain("error");
  });

  it("R11.5 targetTimeoutMs: when every target runs out of it the answer is 504 upstream_timeout", async () => {
    sim.addFault("slow-k1", { latencyMs: 3_000, times: 1 });
    sim.addFault("fast-k1", { latencyMs: 3_000, times: 1 });
    const t0 = Date.now();
    const res = await gw.post("/v1/chat/completions", chat("hurry"));
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(res.status).toBe(504);
    expect(res.body.error.code).toBe("upstream_timeout");
    expect(res.body.error.message).toContain("targetTimeoutMs");
  });
});
