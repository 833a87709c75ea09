// Found by the chaos run (issue 13): an upstream SSE frame whose data is garbled must never reach
// the client. Before the first byte the attempt fails over; after it the stream ends with a
// well-formed error event in the client's format.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../main/simulator/index.js";
import { addProvider, parseSse, startGateway, startSim, type TestGateway } from "../integration/harness.js";

let gw: TestGateway;
let sim: Simulator;
const chat = (model: string) => ({ model, stream: true, messages: [{ role: "user", content: "hi" }] });
const msg = (model: string) => ({ model, stream: true, max_tokens: 64, messages: [{ role: "user", content: "hi" }] });

beforeAll(async () => {
  sim = await startSim({ label: "garble" });
  gw = await startGateway();
  await addProvider(gw, "oai", sim, "openai", ["g-1", "g-2"]);
  await addProvider(gw, "ant", sim, "anthropic", ["h-1", "h-2"]);
});
afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

describe("malformed upstream SSE", () => {
  it("R13.2 a garbled frame before any content fails over invisibly to the next connection", async () => {
    sim.addFault("g-1", { garbleAfterChunks: 0, times: 1 });
    const r = await gw.post("/v1/chat/completions", chat("oai/m1"));
    expect(r.status).toBe(200);
    const events = parseSse(r.text);
    expect(events.at(-1)?.data).toBe("[DONE]");
    for (const e of events.slice(0, -1)) expect(() => JSON.parse(e.data)).not.toThrow();
    expect(r.text).toContain("g-2");
    expect(r.headers.get("x-switchyard-attempts")).toBe("2");
  });

  it("R13.3 a garbled frame after content ends a passthrough stream with a well-formed error event, not the garbage", async () => {
    sim.addFault("h-1", { garbleAfterChunks: 1, times: 1 });
    const r = await gw.post("/v1/messages", msg("ant/m1"));
    const events = parseSse(r.text);
    expect(r.text).not.toContain("garbled");
    for (const e of events) expect(() => JSON.parse(e.data)).not.toThrow();
    expect(events.at(-1)?.event).toBe("error");
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ type: "error", error: { type: "api_error" } });
  });
});
