// R9.6: two Switchyard processes sharing one Redis share a connection's concurrency; when Redis
// goes away, requests keep flowing under local limits and health says so.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { startSim } from "../harness.js";
import { startRedis, startSwitchyard, type RedisProcess, type SwitchyardProcess } from "./processes.js";

let redis: RedisProcess;
let sim: Simulator;
const gateways: SwitchyardProcess[] = [];

const chat = { model: "shared/m1", messages: [{ role: "user", content: "hi" }] };
const send = (gw: SwitchyardProcess) =>
  fetch(`${gw.base}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(chat) }).then(async (r) => ({
    status: r.status,
    text: await r.text(),
  }));

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const sharedStatus = async (gw: SwitchyardProcess) => (await gw.api("GET", "/api/monitoring/health")).body.sharedLimits.status;

beforeAll(async () => {
  redis = await startRedis();
  sim = await startSim({ label: "shared" });
  for (let i = 0; i < 2; i++) {
    const gw = await startSwitchyard(redis.url);
    gateways.push(gw);
    expect((await gw.api("POST", "/api/providers", { id: "shared", format: "openai", baseUrl: `${sim.url}/v1`, category: "apikey", models: ["m1"] })).status).toBe(201);
    expect((await gw.api("POST", "/api/connections", { id: "shared-c1", provider: "shared", name: "team account", apiKey: "team-key", maxConcurrent: 1 })).status).toBe(201);
  }
  for (const gw of gateways) await until(async () => (await sharedStatus(gw)) === "ready", "Redis ready");
  // A cap is split among the instances the group has counted (R19.1): both must be counted first.
  for (const gw of gateways) await until(async () => (await gw.api("GET", "/api/monitoring/health")).body.sharedState.instances === 2, "both instances counted");
}, 60_000);

afterAll(async () => {
  for (const gw of gateways) await gw.stop();
  await sim?.close();
  await redis?.stop();
});

describe("shared limits through Redis (R9.6)", () => {
  it("R9.6 parallel requests through two Switchyards to one maxConcurrent 1 connection never overlap upstream", async () => {
    sim.addFault("team-key", { latencyMs: 300, times: 6 });
    const before = sim.requests.length;
    const results = await Promise.all([...gateways, ...gateways, ...gateways].map(send));
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(200));
    const starts = sim.requests
      .slice(before)
      .map((r) => r.at)
      .sort((a, b) => a - b);
    expect(starts).toHaveLength(6);
    // Each upstream call lasts at least 300 ms: a start closer than that to the previous one overlaps it.
    for (let i = 1; i < starts.length; i++) expect(starts[i] - starts[i - 1]).toBeGreaterThanOrEqual(290);
  }, 30_000);

  it("R9.6 with Redis gone, requests keep flowing under local limits and health reports it", async () => {
    await redis.stop();
    for (const gw of gateways) await until(async () => (await sharedStatus(gw)) === "unreachable", "Redis unreachable in health");
    sim.addFault("team-key", { latencyMs: 400, times: 4 });
    const before = sim.requests.length;
    const results = await Promise.all([gateways[0], gateways[0], gateways[1], gateways[1]].map(send));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const health = (await gateways[0].api("GET", "/api/monitoring/health")).body;
    expect(health.sharedLimits).toEqual({ mode: "redis", status: "unreachable" });
    expect(health.queues.find((q: { connectionId: string }) => q.connectionId === "shared-c1")).toMatchObject({ inFlight: 0, shared: false });
    // Each process now limits only itself (local cap 1): the two processes overlap upstream, which
    // is what the shared cap prevented above, yet neither runs two at a time.
    const starts = sim.requests
      .slice(before)
      .map((r) => r.at)
      .sort((a, b) => a - b);
    expect(starts).toHaveLength(4);
    expect(starts[1] - starts[0]).toBeLessThan(390);
    expect(starts[2] - starts[0]).toBeGreaterThanOrEqual(390);
  }, 30_000);
});
