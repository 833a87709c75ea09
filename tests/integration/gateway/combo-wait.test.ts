// Cooldown-aware combo waits (R11.4, D11) over real HTTP: a combo whose targets are all held by a
// short transient cooldown waits for the earliest expiry and re-dispatches instead of failing; a
// client that leaves during the wait cancels it and no upstream call follows.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, parseSse, startGateway, startSim, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;

beforeAll(async () => {
  sim = await startSim({ label: "combo-wait" });
  gw = await startGateway();
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

const chat = (model: string, extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: "user", content: "hello" }], ...extra });

async function pair(prefix: string, config: Record<string, unknown> = {}) {
  for (const s of ["a", "b"]) await addProvider(gw, `${prefix}${s}`, sim, "openai", [`${prefix}${s}-key`]);
  const res = await gw.api("POST", "/api/combos", { name: `${prefix}combo`, targets: [{ model: `${prefix}a/m1` }, { model: `${prefix}b/m1` }], config });
  expect(res.status, res.text).toBe(201);
  return `${prefix}combo`;
}

const upstreamCalls = (prefix: string) => sim.requests.filter((r) => r.key?.startsWith(prefix)).length;

describe("combo cooldown wait (R11.4)", () => {
  it("R11.4 both targets answer 429 with Retry-After 1 s: the client gets a 200 after about a second", async () => {
    const combo = await pair("wt");
    for (const key of ["wta-key", "wtb-key"]) sim.addFault(key, { status: 429, retryAfter: 1, times: 1 });
    const started = Date.now();
    const r = await gw.post("/v1/chat/completions", chat(combo));
    const elapsed = Date.now() - started;
    expect(r.status, r.text).toBe(200);
    expect(r.body.object).toBe("chat.completion");
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(5000);
    expect(Number(r.headers.get("x-switchyard-attempts"))).toBeGreaterThanOrEqual(3);
  });

  it("R11.4 a streaming client is kept alive while the combo waits and then gets the whole stream", async () => {
    const combo = await pair("ws");
    for (const key of ["wsa-key", "wsb-key"]) sim.addFault(key, { status: 429, retryAfter: 1, times: 1 });
    const r = await gw.post("/v1/chat/completions", chat(combo, { stream: true }));
    expect(r.status).toBe(200);
    expect(parseSse(r.text).at(-1)?.data).toBe("[DONE]");
  });

  it("R11.4 pre-dispatch: every target already cooling briefly, zero attempts, the combo waits and then answers", async () => {
    const combo = await pair("wp");
    for (const id of ["wpa", "wpb"]) {
      sim.addFault(`${id}-key`, { status: 429, retryAfter: 1, times: 1 });
      expect((await gw.post("/v1/chat/completions", chat(`${id}/m1`))).status).toBe(429);
    }
    const r = await gw.post("/v1/chat/completions", chat(combo));
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get("x-switchyard-attempts")).toBe("1");
  });

  it("R11.4 a combo with config.comboCooldownWaitEnabled: false does not wait: 429 at once", async () => {
    const combo = await pair("wo", { comboCooldownWaitEnabled: false });
    for (const key of ["woa-key", "wob-key"]) sim.addFault(key, { status: 429, retryAfter: 1, times: 1 });
    const started = Date.now();
    const r = await gw.post("/v1/chat/completions", chat(combo));
    expect(r.status).toBe(429);
    expect(Date.now() - started).toBeLessThan(900);
  });

  it("R11.4 a client that disconnects during the wait cancels it: no upstream call after, logged as 499", async () => {
    const combo = await pair("wd");
    for (const key of ["wda-key", "wdb-key"]) sim.addFault(key, { status: 429, retryAfter: 2, times: 1 });
    const controller = new AbortController();
    const pending = fetch(gw.url + "/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(chat(combo)),
      signal: controller.signal,
    }).catch((err: unknown) => err);
    await new Promise((resolve) => setTimeout(resolve, 600));
    const callsBeforeLeaving = upstreamCalls("wd");
    expect(callsBeforeLeaving).toBe(2);
    controller.abort();
    await pending;
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(upstreamCalls("wd")).toBe(2);
    const logs = await gw.api("GET", "/api/logs?limit=20");
    const entry = logs.body.find((e: { model: string }) => e.model === combo);
    expect(entry).toMatchObject({ status: 499 });
  });
});
