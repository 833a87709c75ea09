// Issue 8 item 4: one clock for everything a user sees. Under --test-clock, after the engine
// clock is moved a day ahead, a new request's log time, its live `request` event, the stats
// window and /v1/models all agree with GET /api/debug/clock, not with the wall clock.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RequestLogEntry, SwitchyardEvent } from "../../../shared/types.js";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../harness.js";

const DAY_MS = 86_400_000;
let gw: TestGateway;
let sim: Simulator;

beforeAll(async () => {
  sim = await startSim({ label: "clock" });
  gw = await startGateway({ testClock: true });
  await addProvider(gw, "oai", sim, "openai", ["k-1"]);
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

async function engineNow(): Promise<number> {
  return (await gw.api<{ now: number }>("GET", "/api/debug/clock")).body.now;
}

describe("one clock under --test-clock", () => {
  it("request log time, attempt latency, the live request event, stats and /v1/models follow the moved engine clock", async () => {
    const moved = await gw.api("POST", "/api/debug/clock", { advanceMs: DAY_MS });
    expect(moved.status).toBe(200);
    const events: SwitchyardEvent[] = [];
    const unsubscribe = gw.app.bus.subscribe((e) => events.push(e));
    const before = await engineNow();
    expect(before).toBeGreaterThan(Date.now() + DAY_MS - 60_000);

    const r = await gw.post("/v1/chat/completions", { model: "oai/m1", messages: [{ role: "user", content: "hi" }] });
    expect(r.status).toBe(200);
    const after = await engineNow();
    unsubscribe();

    const requestId = r.headers.get("x-switchyard-request-id");
    const event = events.find((e): e is Extract<SwitchyardEvent, { type: "request" }> => e.type === "request" && e.entry.id === requestId);
    expect(event).toBeDefined();
    expect(event!.at).toBeGreaterThanOrEqual(before);
    expect(event!.at).toBeLessThanOrEqual(after);

    let entry: RequestLogEntry | undefined;
    for (let i = 0; i < 40 && !entry; i++) {
      entry = (await gw.api<RequestLogEntry[]>("GET", "/api/logs?limit=5")).body.find((e) => e.id === requestId);
      if (!entry) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(entry!.time).toBeGreaterThanOrEqual(before);
    expect(entry!.time).toBeLessThanOrEqual(after);
    expect(entry!.latencyMs).toBeGreaterThanOrEqual(0);
    expect(entry!.latencyMs).toBeLessThan(60_000);
    expect(entry!.attempts[0].latencyMs).toBeLessThan(60_000);

    const stats = await gw.api("GET", "/api/monitoring/stats");
    const requests = stats.body.providers.find((p: { provider: string }) => p.provider === "oai")?.buckets.reduce((n: number, b: { requests: number }) => n + b.requests, 0);
    expect(requests).toBe(1);

    const models = await fetch(gw.url + "/v1/models");
    const created = (await models.json()).data[0].created as number;
    expect(created * 1000).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
  });
});
