// R13.3 / R13.7 over real HTTP: a stream that breaks after text reached the client continues on
// another connection (the text so far as an assistant prefill), and the client reads the answer
// once, without a repeat; off by default, never after a tool call, never on a non-Anthropic upstream.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, parseSse, startGateway, startSim, type TestGateway } from "../harness.js";

const ANSWER = "The quick brown fox jumps over the lazy dog";
let gw: TestGateway;
let sim: Simulator;

const anthropicText = (sse: string) =>
  parseSse(sse)
    .map((e) => (e.data.startsWith("{") ? JSON.parse(e.data) : null))
    .filter((d) => d?.type === "content_block_delta" && d.delta?.type === "text_delta")
    .map((d) => d.delta.text)
    .join("");
const openaiText = (sse: string) =>
  parseSse(sse)
    .filter((e) => e.data.startsWith("{"))
    .map((e) => JSON.parse(e.data).choices?.[0]?.delta?.content ?? "")
    .join("");
const streamMessages = (model: string, extra: Record<string, unknown> = {}) =>
  gw.post("/v1/messages", { model, max_tokens: 64, stream: true, messages: [{ role: "user", content: "hi" }], ...extra });
// Each break cools the connection it happened on; every case starts from a rested pool.
const rested = () => gw.api("POST", "/api/resilience/cooldowns", { all: true });
const midstream = (on: boolean) => gw.api("PATCH", "/api/resilience", { streamRecovery: { midstreamEnabled: on } });

beforeAll(async () => {
  sim = await startSim({ label: "mid", replyText: ANSWER });
  gw = await startGateway();
  await addProvider(gw, "an", sim, "anthropic", ["an-1", "an-2", "an-3"]);
  await addProvider(gw, "oa", sim, "openai", ["oa-1", "oa-2"]);
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

describe("mid-stream continuation (R13.3)", () => {
  it("R13.7 off by default: a break after text ends the stream with the error event", async () => {
    expect((await gw.api("GET", "/api/resilience")).body.streamRecovery.midstreamEnabled).toBe(false);
    sim.addFault("an-1", { resetAfterChunks: 2, times: 1 });
    const r = await streamMessages("an/m1");
    expect(anthropicText(r.text)).toBe("The quick");
    expect(parseSse(r.text).some((e) => e.event === "error")).toBe(true);
  });

  it("R13.3 an Anthropic client gets the whole answer once: the rest comes from another connection asked with the text so far as prefill", async () => {
    await midstream(true);
    await rested();
    sim.addFault("an-1", { resetAfterChunks: 2, times: 1 });
    const before = sim.requests.length;
    const r = await streamMessages("an/m1");
    expect(r.status).toBe(200);
    const events = parseSse(r.text);
    expect(anthropicText(r.text)).toBe(ANSWER);
    expect(events.some((e) => e.event === "error")).toBe(false);
    expect(events.filter((e) => e.event === "message_start")).toHaveLength(1);
    expect(events.at(-1)?.event).toBe("message_stop");
    const [broken, resumed] = sim.requests.slice(before);
    expect(broken?.key).toBe("an-1");
    expect(resumed?.key).toBe("an-2");
    expect((resumed?.body as { messages: unknown[] }).messages.at(-1)).toEqual({ role: "assistant", content: "The quick" });
  });

  it("R13.3 an OpenAI client streaming from an Anthropic upstream is stitched the same way, ending with [DONE]", async () => {
    await rested();
    sim.addFault("an-1", { resetAfterChunks: 3, times: 1 });
    const before = sim.requests.length;
    const r = await gw.post("/v1/chat/completions", { model: "an/m1", stream: true, messages: [{ role: "user", content: "hi" }] });
    expect(openaiText(r.text)).toBe(ANSWER);
    expect(sim.requests.slice(before).map((q) => q.key)).toEqual(["an-1", "an-2"]);
    const prefill = (sim.requests.at(-1)?.body as { messages: Array<{ role: string; content: unknown }> }).messages.at(-1);
    expect(prefill?.role).toBe("assistant");
    const blocks = typeof prefill?.content === "string" ? [{ text: prefill.content }] : (prefill?.content as Array<{ text: string }>);
    expect(blocks.map((b) => b.text).join("")).toBe("The quick brown");
    expect(parseSse(r.text).at(-1)?.data).toBe("[DONE]");
    expect(r.text).not.toMatch(/"error"/);
  });

  it("R13.3 never after a tool call: a break inside a tool call ends with the error event and asks no one for the rest", async () => {
    await rested();
    sim.addFault("an-1", { resetAfterChunks: 1, times: 1 });
    const before = sim.requests.length;
    const tools = [{ name: "lookup", description: "look up", input_schema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } }];
    const r = await gw.post("/v1/messages", { model: "an/m1", max_tokens: 64, stream: true, tools, messages: [{ role: "user", content: "please use tool" }] });
    expect(parseSse(r.text).some((e) => e.event === "error")).toBe(true);
    expect(sim.requests.length - before).toBe(1);
  });

  it("R13.3 an OpenAI-format upstream takes no prefill: its break ends with the error event", async () => {
    await rested();
    sim.addFault("oa-1", { resetAfterChunks: 2, times: 1 });
    const before = sim.requests.length;
    const r = await gw.post("/v1/chat/completions", { model: "oa/m1", stream: true, messages: [{ role: "user", content: "hi" }] });
    expect(openaiText(r.text)).toBe("The quick");
    expect(r.text).toMatch(/"error"/);
    expect(sim.requests.length - before).toBe(1);
    await midstream(false);
  });
});
