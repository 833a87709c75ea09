// GET /api/monitoring/health's `ok` (R2.6, R19.3, API.md) is computed, not a constant: it says
// whether this Switchyard can serve as configured — not when every provider's breaker is OPEN,
// nor while the Redis its resilience state is shared through is unreachable.
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;

const chat = (model: string) => ({ model, messages: [{ role: "user", content: "hi" }] });
const health = async (g: TestGateway) => (await g.api("GET", "/api/monitoring/health")).body;

beforeAll(async () => {
  sim = await startSim({ label: "health" });
  gw = await startGateway({ testClock: true });
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

describe("GET /api/monitoring/health ok (R2.6, R19.3)", () => {
  it("R2.6 ok is false while every provider's breaker is OPEN, true again once one provider can be tried", async () => {
    expect((await health(gw)).ok).toBe(true);
    await addProvider(gw, "flaky", sim, "openai", ["h-1", "h-2"], { category: "local" });
    sim.addFault("h-1", { status: 503, times: 1 });
    sim.addFault("h-2", { status: 503, times: 1 });
    expect((await gw.post("/v1/chat/completions", chat("flaky/m1"))).status).toBe(503);
    const down = await health(gw);
    expect(down.circuitBreakers).toMatchObject({ open: 1, total: 1 });
    expect(down.ok).toBe(false);

    await addProvider(gw, "steady", sim, "openai", ["h-3"]);
    const partly = await health(gw);
    expect(partly.circuitBreakers).toMatchObject({ open: 1, total: 2 });
    expect(partly.ok).toBe(true);
  });

  it("R19.3 ok is false while the Redis the resilience state is shared through is unreachable (the instance serves on local state)", async () => {
    const alone = await startGateway({ env: { SWITCHYARD_REDIS_URL: `redis://127.0.0.1:${await closedPort()}` } });
    try {
      const body = await health(alone);
      expect(body.sharedState).toMatchObject({ mode: "redis", status: "unreachable" });
      expect(body.ok).toBe(false);
    } finally {
      await alone.close();
    }
  });
});
