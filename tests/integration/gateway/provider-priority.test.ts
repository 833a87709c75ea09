// Issue 26 item 6 over real HTTP: providers have a `priority` (lower first, default 0) that the
// providers API stores and returns, and a bare model name goes to the first provider serving it
// by that priority, ties in creation order (R1.3). The serving connection names the provider.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { startGateway, startSim, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;

beforeAll(async () => {
  sim = await startSim({ label: "priority" });
  gw = await startGateway();
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

/** A provider listing `models`, with one connection `<id>-c1`; `priority` omitted when undefined. */
async function provider(id: string, models: string[], priority?: number): Promise<string> {
  const p = await gw.api("POST", "/api/providers", { id, format: "openai", baseUrl: `${sim.url}/v1`, category: "apikey", models, priority });
  expect(p.status, p.text).toBe(201);
  const c = await gw.api("POST", "/api/connections", { id: `${id}-c1`, provider: id, apiKey: `${id}-key` });
  expect(c.status, c.text).toBe(201);
  return c.body.id;
}

async function servedBy(model: string): Promise<{ connection: string; attempts: string }> {
  const r = await gw.post("/v1/chat/completions", { model, messages: [{ role: "user", content: "hi" }] });
  expect(r.status, r.text).toBe(200);
  return { connection: r.headers.get("x-omniroute-selected-connection-id") ?? "", attempts: r.headers.get("x-switchyard-attempts") ?? "" };
}

describe("provider priority (R1.3, issue 26 item 6)", () => {
  it("R1.3 POST /api/providers stores priority and the API returns it; omitted, it is 0; PATCH changes it", async () => {
    await provider("pa", ["api-only"], 4);
    await provider("pb", ["api-only"]);
    expect((await gw.api("GET", "/api/providers/pa")).body.priority).toBe(4);
    expect((await gw.api("GET", "/api/providers/pb")).body.priority).toBe(0);
    const listed = (await gw.api("GET", "/api/providers")).body as Array<{ id: string; priority: number }>;
    expect(listed.filter((p) => p.id === "pa" || p.id === "pb").map((p) => [p.id, p.priority])).toEqual([
      ["pa", 4],
      ["pb", 0],
    ]);
    const patched = await gw.api("PATCH", "/api/providers/pa", { priority: -1 });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.priority).toBe(-1);
    expect((await gw.api("POST", "/api/providers", { id: "pbad", format: "openai", baseUrl: `${sim.url}/v1`, priority: "high" })).status).toBe(400);
  });

  it("R1.3 a bare model goes to the provider with the lowest priority, not the first created; ties keep creation order", async () => {
    const late = await provider("late", ["bare-x"], 2);
    const low = await provider("low", ["bare-x"], 1);
    const tie = await provider("tie", ["bare-x"], 1);
    expect(await servedBy("bare-x")).toEqual({ connection: low, attempts: "1" });
    expect((await gw.api("PATCH", "/api/providers/low", { priority: 3 })).status).toBe(200);
    expect((await servedBy("bare-x")).connection).toBe(tie);
    // The others stay behind the first for failover, in priority order.
    sim.addFault("tie-key", { status: 500, times: 1 });
    expect(await servedBy("bare-x")).toEqual({ connection: late, attempts: "2" });
    // `provider/model` names its provider whatever the priorities.
    expect((await servedBy("low/bare-x")).connection).toBe(low);
  });
});
