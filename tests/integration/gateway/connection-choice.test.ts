// Issue 26 over real HTTP against the simulator: a connection's weight shares a provider's traffic
// and weight 0 is a standby (item 7); the R4.10 p2c sample is the time to the first byte, not the
// whole stream, and p2c ranks the connections inside one provider too (item 2). The connection
// that served is read from X-OmniRoute-Selected-Connection-Id.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { startGateway, startSim, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;
/** Headers held back this long stand for a slow first byte. */
const SLOW_HEADERS_MS = 150;

beforeAll(async () => {
  // A longer reply makes a trickled stream take many frames.
  sim = await startSim({ label: "choice", replyText: "one two three four five six seven eight nine ten eleven twelve thirteen fourteen" });
  gw = await startGateway();
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

interface Key {
  name: string;
  priority?: number;
  weight?: number;
}

/** A provider `id` serving m1 with one connection per key, id `<id>-<name>`, API key `<id>-<name>-key`. */
async function providerWith(id: string, keys: Key[]): Promise<string[]> {
  const p = await gw.api("POST", "/api/providers", { id, format: "openai", baseUrl: `${sim.url}/v1`, category: "apikey", models: ["m1"] });
  expect(p.status, p.text).toBe(201);
  const ids: string[] = [];
  for (const { name, priority, weight } of keys) {
    const c = await gw.api("POST", "/api/connections", { id: `${id}-${name}`, provider: id, name, apiKey: `${id}-${name}-key`, priority, weight });
    expect(c.status, c.text).toBe(201);
    ids.push(c.body.id);
  }
  return ids;
}

async function servedBy(model: string, stream = false): Promise<string> {
  const r = await gw.post("/v1/chat/completions", { model, stream, messages: [{ role: "user", content: "hello" }] });
  expect(r.status, r.text).toBe(200);
  return r.headers.get("x-omniroute-selected-connection-id") ?? "";
}

async function sequence(model: string, n: number, stream = false): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(await servedBy(model, stream));
  return out;
}

const setActive = async (id: string, active: boolean) => expect((await gw.api("PATCH", `/api/connections/${id}`, { active })).status).toBe(200);

describe("connection weight (issue 26 item 7, R11.2)", () => {
  it("R11.2 weights 1:3 at one priority split 200 direct requests about 25 % / 75 %", async () => {
    const [light, heavy] = await providerWith("wt", [
      { name: "light", weight: 1 },
      { name: "heavy", weight: 3 },
    ]);
    const served = await sequence("wt/m1", 200);
    expect(served.every((id) => id === light || id === heavy)).toBe(true);
    const share = served.filter((id) => id === light).length / served.length;
    expect(share).toBeGreaterThan(0.13);
    expect(share).toBeLessThan(0.37);
  });

  it("R11.2 a weight-0 connection is a standby: a positive weight of a higher priority value serves first, the standby only when nothing else is eligible", async () => {
    const [standby, other] = await providerWith("sb", [
      { name: "standby", priority: 0, weight: 0 },
      { name: "other", priority: 1, weight: 1 },
    ]);
    expect(await sequence("sb/m1", 5)).toEqual(Array(5).fill(other));
    await setActive(other, false);
    expect(await servedBy("sb/m1")).toBe(standby);
    await setActive(other, true);
    expect(await servedBy("sb/m1")).toBe(other);
  });

  it("R11.2 equal weights keep today's order: the first connection of the lowest priority serves", async () => {
    const [first] = await providerWith("eq", [{ name: "a" }, { name: "b" }, { name: "c" }]);
    expect(await sequence("eq/m1", 10)).toEqual(Array(10).fill(first));
  });
});

describe("the R4.10 p2c signal (issue 26 item 2)", () => {
  beforeAll(async () => {
    expect((await gw.api("PATCH", "/api/resilience", { p2cLatency: { weight: 20 } })).status).toBe(200);
  });

  it("R4.10 the sample is time to first byte: a long stream that starts at once beats a short answer whose headers are slow", async () => {
    const [slowHead] = await providerWith("th", [{ name: "k" }]);
    const [longStream] = await providerWith("ls", [{ name: "k" }]);
    sim.addFault("th-k-key", { latencyMs: SLOW_HEADERS_MS });
    sim.addFault("ls-k-key", { trickleMs: 25 });
    const combo = await gw.api("POST", "/api/combos", { name: "ttfb", strategy: "p2c", targets: [{ model: "th/m1" }, { model: "ls/m1" }] });
    expect(combo.status, combo.text).toBe(201);
    // Concurrent pairs: p2c's in-flight points send the second of each pair to the other target,
    // so both get samples. The long stream takes several times as long as the slow headers.
    const started = Date.now();
    const warmUp: string[] = [];
    for (let i = 0; i < 4; i++) warmUp.push(...(await Promise.all([servedBy("ttfb", true), servedBy("ttfb", true)])));
    expect(warmUp.filter((id) => id === slowHead).length).toBeGreaterThanOrEqual(3);
    expect(warmUp.filter((id) => id === longStream).length).toBeGreaterThanOrEqual(3);
    expect(Date.now() - started).toBeGreaterThan(4 * 2 * SLOW_HEADERS_MS);
    // Timed to the first byte the long stream is the faster one; timed whole it was the slower.
    expect(await sequence("ttfb", 3, true)).toEqual(Array(3).fill(longStream));
  }, 30_000);

  it("R4.10 p2c ranks one provider's connections: the one with the faster first byte leads, though stored order puts the other first", async () => {
    const [slow, fast] = await providerWith("pp", [{ name: "slow" }, { name: "fast" }]);
    sim.addFault("pp-slow-key", { latencyMs: SLOW_HEADERS_MS });
    const combo = await gw.api("POST", "/api/combos", { name: "inprovider", strategy: "p2c", targets: [{ model: "pp/m1" }] });
    expect(combo.status, combo.text).toBe(201);
    // Samples for each: the other one is switched off meanwhile.
    await setActive(slow, false);
    expect(await sequence("inprovider", 3)).toEqual(Array(3).fill(fast));
    await setActive(slow, true);
    await setActive(fast, false);
    expect(await sequence("inprovider", 3)).toEqual(Array(3).fill(slow));
    await setActive(fast, true);
    expect(await sequence("inprovider", 5)).toEqual(Array(5).fill(fast));
    // The signal belongs to the p2c combo: a direct request keeps the stored order.
    expect(await servedBy("pp/m1")).toBe(slow);
  }, 30_000);
});
