// Combo strategies are live on the request path (R11.1, D11): each family over real HTTP against
// the simulator, reading which target served from X-OmniRoute-Selected-Connection-Id. Every target
// is its own provider with one key, so the connection id names the target.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;

beforeAll(async () => {
  sim = await startSim({ label: "strategies" });
  gw = await startGateway();
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

const chat = (model: string) => ({ model, messages: [{ role: "user", content: "hello" }] });

/** Two fresh providers `<prefix>a`, `<prefix>b` and a combo over their m1, with the given strategy. */
async function comboOf(prefix: string, strategy: string, targets: Array<Record<string, unknown>> = [{}, {}], extra: Array<Record<string, unknown>> = [{}, {}]) {
  const ids = ["a", "b"].map((s) => `${prefix}${s}`);
  for (const [i, id] of ids.entries()) await addProvider(gw, id, sim, "openai", [`${id}-key`], extra[i]);
  const res = await gw.api("POST", "/api/combos", { name: `${prefix}combo`, strategy, targets: ids.map((id, i) => ({ model: `${id}/m1`, ...targets[i] })) });
  expect(res.status, res.text).toBe(201);
  return { name: `${prefix}combo`, a: `${ids[0]}-c1`, b: `${ids[1]}-c1` };
}

async function servedBy(model: string): Promise<string> {
  const r = await gw.post("/v1/chat/completions", chat(model));
  expect(r.status, r.text).toBe(200);
  return r.headers.get("x-omniroute-selected-connection-id") ?? "";
}

async function sequence(model: string, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(await servedBy(model));
  return out;
}

describe("combo strategies over HTTP (R11.1)", () => {
  it("R11.1 weighted 1:3 over 400 requests lands about 25 % / 75 %", async () => {
    const c = await comboOf("w", "weighted", [{ weight: 1 }, { weight: 3 }]);
    const served = await sequence(c.name, 400);
    const shareA = served.filter((id) => id === c.a).length / served.length;
    expect(served.every((id) => id === c.a || id === c.b)).toBe(true);
    expect(shareA).toBeGreaterThan(0.18);
    expect(shareA).toBeLessThan(0.32);
  });

  it("R11.1 round-robin alternates a, b, a, b", async () => {
    const c = await comboOf("rr", "round-robin");
    expect(await sequence(c.name, 6)).toEqual([c.a, c.b, c.a, c.b, c.a, c.b]);
  });

  it("R11.1 least-used balances the request counts", async () => {
    const c = await comboOf("lu", "least-used");
    const served = await sequence(c.name, 10);
    expect(served.filter((id) => id === c.a)).toHaveLength(5);
    expect(served.filter((id) => id === c.b)).toHaveLength(5);
  });

  it("R11.1 lkgp sticks to the target that last succeeded, though the first is healthy again", async () => {
    const c = await comboOf("lk", "lkgp");
    sim.addFault("lka-key", { status: 500, times: 1 });
    const first = await gw.post("/v1/chat/completions", chat(c.name));
    expect(first.headers.get("x-switchyard-attempts")).toBe("2");
    expect(first.headers.get("x-omniroute-selected-connection-id")).toBe(c.b);
    expect(await sequence(c.name, 5)).toEqual(Array(5).fill(c.b));
  });

  it("R11.1 cost-optimized picks the cheaper target by the providers' modelInfo", async () => {
    const c = await comboOf(
      "co",
      "cost-optimized",
      [{}, {}],
      [{ modelInfo: { m1: { inputPricePerMTok: 10, outputPricePerMTok: 30 } } }, { modelInfo: { m1: { inputPricePerMTok: 0.5, outputPricePerMTok: 1.5 } } }],
    );
    expect(await sequence(c.name, 5)).toEqual(Array(5).fill(c.b));
    const provider = await gw.api("GET", "/api/providers/coa");
    expect(provider.body.modelInfo).toEqual({ m1: { inputPricePerMTok: 10, outputPricePerMTok: 30 } });
  });

  it("R11.1 p2c with both targets healthy spreads concurrent requests by load", async () => {
    const c = await comboOf("pc", "p2c");
    for (const key of ["pca-key", "pcb-key"]) sim.addFault(key, { latencyMs: 300, times: 10 });
    const served = await Promise.all(Array.from({ length: 10 }, () => servedBy(c.name)));
    expect(served.filter((id) => id === c.a).length).toBeGreaterThanOrEqual(3);
    expect(served.filter((id) => id === c.b).length).toBeGreaterThanOrEqual(3);
  });

  it("R11.1 headroom and fill-first read the quota learned from x-ratelimit-* / anthropic-ratelimit-* response headers", async () => {
    const head = await comboOf("hr", "headroom");
    const fill = { name: "hrfill", a: head.a, b: head.b };
    expect((await gw.api("POST", "/api/combos", { name: fill.name, strategy: "fill-first", targets: [{ model: "hra/m1" }, { model: "hrb/m1" }] })).status).toBe(201);
    expect(await servedBy(head.name)).toBe(head.a);
    sim.addFault("hra-key", { headers: { "x-ratelimit-remaining-requests": "0", "x-ratelimit-limit-requests": "100", "x-ratelimit-reset-requests": "5m0s" }, times: 1 });
    sim.addFault("hrb-key", { headers: { "anthropic-ratelimit-requests-remaining": "80", "anthropic-ratelimit-requests-limit": "100" }, times: 1 });
    expect(await servedBy("hra/m1")).toBe(head.a);
    expect(await servedBy("hrb/m1")).toBe(head.b);
    expect(await servedBy(head.name)).toBe(head.b);
    expect(await servedBy(fill.name)).toBe(fill.b);
  });
});

describe("nested combos and the model list over HTTP (R11.1, D11)", () => {
  it("D11 a combo naming another combo routes through it; GET /v1/models lists both combos", async () => {
    await addProvider(gw, "nx", sim, "openai", ["nx-key"]);
    await addProvider(gw, "ny", sim, "openai", ["ny-key"]);
    expect((await gw.api("POST", "/api/combos", { name: "inner-combo", targets: [{ model: "ny/m1" }] })).status).toBe(201);
    expect((await gw.api("POST", "/api/combos", { name: "outer-combo", targets: [{ model: "inner-combo" }, { model: "nx/m1" }] })).status).toBe(201);
    expect(await servedBy("outer-combo")).toBe("ny-c1");
    sim.addFault("ny-key", { status: 500, times: 1 });
    const failedOver = await gw.post("/v1/chat/completions", chat("outer-combo"));
    expect(failedOver.headers.get("x-omniroute-selected-connection-id")).toBe("nx-c1");
    const models = await fetch(gw.url + "/v1/models").then((r) => r.json());
    expect(models.data.map((m: { id: string }) => m.id)).toEqual(expect.arrayContaining(["inner-combo", "outer-combo", "nx/m1"]));
  });
});
