// Reasoning signatures bound to the issuing account (issue 27, R20.1) and raw request bytes
// (R20.2), driven over real HTTP: what the simulator signs for one key it accepts back from that
// key and refuses from another with the real APIs' status and text.
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type FaultSpec, type Simulator } from "../../../main/simulator/index.js";
import { seal } from "../../../main/simulator/wire/artifacts.js";
import { jsonEvents, post } from "./helpers.js";

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ label: "sim-sig" });
});
afterAll(async () => {
  await sim.close();
});

type Json = Record<string, any>;
const as = (key: string): Record<string, string> => ({ "x-api-key": key, "anthropic-version": "2023-06-01" });
const fault = (spec: FaultSpec): Record<string, string> => ({ "x-sim-fault": JSON.stringify(spec) });

async function call(path: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; body: Json; text: string }> {
  const res = await post(`${sim.url}${path}`, body, headers);
  const json = res.text.startsWith("{") || res.text.startsWith("[") ? (JSON.parse(res.text) as Json) : {};
  return { status: res.status, body: json, text: res.text };
}

describe("R20.1 Anthropic thinking signatures", () => {
  const thinking = { type: "enabled", budget_tokens: 1024 };
  const ask = { model: "claude-sim", max_tokens: 2048, thinking, messages: [{ role: "user", content: "Think first." }] };
  const tools = [{ name: "read_file", input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }];
  const invalid = (at: string) => ({ type: "error", error: { type: "invalid_request_error", message: `${at}: Invalid \`signature\` in \`thinking\` block` } });
  const replay = (content: unknown[]) => ({ ...ask, messages: [...ask.messages, { role: "assistant", content }, { role: "user", content: "And now?" }] });

  /** The streamed message rebuilt from its events: blocks by index, deltas appended. */
  function assemble(text: string): { types: string[]; blocks: Json[]; events: Json[] } {
    const events = jsonEvents(text);
    const blocks: Json[] = [];
    for (const e of events) {
      if (e.type === "content_block_start") blocks[e.index] = { ...e.content_block };
      if (e.type !== "content_block_delta") continue;
      const block = blocks[e.index];
      if (e.delta.type === "thinking_delta") block.thinking += e.delta.thinking;
      if (e.delta.type === "signature_delta") block.signature = (block.signature ?? "") + e.delta.signature;
      if (e.delta.type === "text_delta") block.text += e.delta.text;
    }
    return { types: events.map((e) => `${e.type}${e.delta ? `:${e.delta.type}` : ""}`), blocks, events };
  }

  it("R20.1 JSON: a thinking block leads the answer; its signature is accepted back by the same key and refused by another with the real 400", async () => {
    const first = await call("/v1/messages", ask, as("ka"));
    expect(first.status).toBe(200);
    expect(first.body.content.map((b: Json) => b.type)).toEqual(["thinking", "text"]);
    expect(first.body.content[0]).toMatchObject({ type: "thinking", thinking: "Considering the request. ", signature: expect.stringMatching(/^gAAAAA/) });
    expect(first.body.content[0].signature).not.toContain("ka");
    expect((await call("/v1/messages", replay(first.body.content), as("ka"))).status).toBe(200);
    const foreign = await call("/v1/messages", replay(first.body.content), as("kb"));
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual(invalid("messages.1.content.0"));
  });

  it("R20.1 streamed: thinking (one thinking_delta, then signature_delta) at index 0 before the text at index 1; the same refusal for another key", async () => {
    const res = await call("/v1/messages", { ...ask, stream: true }, as("ka"));
    const { types, blocks, events } = assemble(res.text);
    expect(types.slice(0, 6)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta:thinking_delta",
      "content_block_delta:signature_delta",
      "content_block_stop",
      "content_block_start",
    ]);
    expect(events[5]).toMatchObject({ index: 1, content_block: { type: "text" } });
    expect(events.filter((e) => e.delta?.type === "text_delta").every((e) => e.index === 1)).toBe(true);
    expect(blocks.map((b) => b.type)).toEqual(["thinking", "text"]);
    expect((await call("/v1/messages", replay(blocks), as("ka"))).status).toBe(200);
    expect((await call("/v1/messages", replay(blocks), as("kb"))).body).toEqual(invalid("messages.1.content.0"));
  });

  it("R20.1 a reasoningOnlyMs fault still stretches the thinking block, and its signature seals for the key too", async () => {
    const res = await call("/v1/messages", { ...ask, stream: true }, { ...as("ka"), ...fault({ reasoningOnlyMs: 150 }) });
    const { blocks, events } = assemble(res.text);
    expect(events.filter((e) => e.delta?.type === "thinking_delta").length).toBeGreaterThanOrEqual(2);
    expect(blocks.map((b) => b.type)).toEqual(["thinking", "text"]);
    expect((await call("/v1/messages", replay(blocks), as("ka"))).status).toBe(200);
    expect((await call("/v1/messages", replay(blocks), as("kc"))).status).toBe(400);
  });

  it("R20.1 redacted_thinking data is checked the same way, and signatures are checked with thinking disabled too", async () => {
    const redacted = (key: string) => [
      { type: "text", text: "before" },
      { type: "redacted_thinking", data: seal(key, "msg_x", "hidden") },
      { type: "text", text: "Hi" },
    ];
    expect((await call("/v1/messages", replay(redacted("ka")), as("ka"))).status).toBe(200);
    const refused = await call("/v1/messages", replay(redacted("kb")), as("ka"));
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ type: "error", error: { type: "invalid_request_error", message: "messages.1.content.1: Invalid `data` in `redacted_thinking` block" } });

    const { thinking: _off, ...plain } = replay([
      { type: "thinking", thinking: "x", signature: seal("kb", "msg_x", "x") },
      { type: "text", text: "Hi" },
    ]);
    expect((await call("/v1/messages", plain, as("ka"))).body).toEqual(invalid("messages.1.content.0"));
    expect((await call("/v1/messages", plain, as("kb"))).status).toBe(200);
    const made = await call("/v1/messages", { ...plain, messages: ask.messages }, as("kb"));
    expect(made.body.content.map((b: Json) => b.type)).toEqual(["text"]);
  });

  it("R20.1 tool loop: with thinking enabled the assistant turn before a tool_result must start with thinking (else the real 400); without thinking it need not", async () => {
    const first = await call("/v1/messages", { ...ask, tools, messages: [{ role: "user", content: "use tool" }] }, as("ka"));
    expect(first.body.content.map((b: Json) => b.type)).toEqual(["thinking", "tool_use"]);
    const loop = (assistant: Json[]) => [
      { role: "user", content: "use tool" },
      { role: "assistant", content: assistant },
      { role: "user", content: [{ type: "tool_result", tool_use_id: assistant.at(-1)!.id, content: "file body" }] },
    ];
    const kept = await call("/v1/messages", { ...ask, tools, messages: loop(first.body.content) }, as("ka"));
    expect(kept.status).toBe(200);
    expect(kept.body.content.map((b: Json) => b.type)).toEqual(["thinking", "text"]);

    const stripped = await call("/v1/messages", { ...ask, tools, messages: loop(first.body.content.slice(1)) }, as("ka"));
    expect(stripped.status).toBe(400);
    expect(stripped.body).toEqual({
      type: "error",
      error: {
        type: "invalid_request_error",
        message:
          "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`.",
      },
    });
    const withText = await call("/v1/messages", { ...ask, tools, messages: loop([{ type: "text", text: "Reading." }, ...first.body.content.slice(1)]) }, as("ka"));
    expect(withText.body.error.message).toMatch(/^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `text`\. /);
    const { thinking: _off, ...noThinking } = ask;
    expect((await call("/v1/messages", { ...noThinking, tools, messages: loop(first.body.content.slice(1)) }, as("ka"))).status).toBe(200);
    expect((await call("/v1/messages", { ...ask, thinking: { type: "adaptive" }, tools, messages: loop(first.body.content.slice(1)) }, as("ka"))).status).toBe(400);
  });
});

describe("R20.1 Gemini thought signatures", () => {
  const tools = [{ functionDeclarations: [{ name: "read_file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }] }];
  const useTool = { tools, contents: [{ role: "user", parts: [{ text: "use tool" }] }] };
  const goog = (key: string): Record<string, string> => ({ "x-goog-api-key": key });
  const corrupted = { error: { code: 400, message: "Corrupted thought signature.", status: "INVALID_ARGUMENT" } };
  const gen = "/v1beta/models/gemini-sim:generateContent";
  const replay = (part: Json) => ({
    ...useTool,
    contents: [...useTool.contents, { role: "model", parts: [part] }, { role: "user", parts: [{ functionResponse: { name: "read_file", response: { content: "file body" } } }] }],
  });

  it("R20.1 JSON: the functionCall carries a thoughtSignature the same key accepts back and another key refuses as corrupted", async () => {
    const first = await call(gen, useTool, goog("ga"));
    const part = first.body.candidates[0].content.parts[0];
    expect(part).toEqual({ functionCall: { name: "read_file", args: { path: "sim" } }, thoughtSignature: expect.stringMatching(/^gAAAAA/) });
    expect((await call(gen, replay(part), goog("ga"))).status).toBe(200);
    const foreign = await call(gen, replay(part), goog("gb"));
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual(corrupted);
  });

  it("R20.1 streamed (SSE and JSON array): the signature rides the functionCall chunk, and is bound to the key the same way", async () => {
    const sse = jsonEvents((await call("/v1beta/models/gemini-sim:streamGenerateContent?alt=sse", useTool, goog("ga"))).text);
    const part = sse[0].candidates[0].content.parts[0];
    expect(part.thoughtSignature).toMatch(/^gAAAAA/);
    expect((await call(gen, replay(part), goog("ga"))).status).toBe(200);
    expect((await call(gen, replay(part), goog("gb"))).body).toEqual(corrupted);
    const array = (await call("/v1beta/models/gemini-sim:streamGenerateContent", useTool, goog("ga"))).body as unknown as Json[];
    expect((await call(gen, replay(array[0].candidates[0].content.parts[0]), goog("gb"))).status).toBe(400);
  });

  it("R20.1 thinkingConfig: includeThoughts leads with a thought part and the first text part is signed; without thinkingConfig text is unsigned", async () => {
    const thinking = { contents: [{ role: "user", parts: [{ text: "hi" }] }], generationConfig: { thinkingConfig: { includeThoughts: true } } };
    const json = (await call(gen, thinking, goog("ga"))).body.candidates[0].content.parts;
    expect(json).toEqual([
      { text: "Considering the request. ", thought: true },
      { text: "Hello from sim-sig (key ga)", thoughtSignature: expect.stringMatching(/^gAAAAA/) },
    ]);
    const sse = jsonEvents((await call("/v1beta/models/gemini-sim:streamGenerateContent?alt=sse", thinking, goog("ga"))).text).map((e) => e.candidates[0].content.parts[0]);
    expect(sse[0]).toEqual({ text: "Considering the request. ", thought: true });
    expect(sse[1].thoughtSignature).toMatch(/^gAAAAA/);
    expect(sse.slice(2).every((p) => p.thoughtSignature === undefined)).toBe(true);
    const quiet = (await call(gen, { ...thinking, generationConfig: { thinkingConfig: { thinkingBudget: 128 } } }, goog("ga"))).body.candidates[0].content.parts;
    expect(quiet).toEqual([{ text: "Hello from sim-sig (key ga)", thoughtSignature: expect.any(String) }]);
    const plain = (await call(gen, { contents: thinking.contents }, goog("ga"))).body.candidates[0].content.parts;
    expect(plain).toEqual([{ text: "Hello from sim-sig (key ga)" }]);
    const history = { ...thinking, contents: [...thinking.contents, { role: "model", parts: json }, { role: "user", parts: [{ text: "more" }] }] };
    expect((await call(gen, history, goog("ga"))).status).toBe(200);
    expect((await call(gen, history, goog("gb"))).status).toBe(400);
  });

  it("R20.1 Google's bypass values and a missing signature pass for any key; any other signature the key did not issue is refused", async () => {
    const call0 = { functionCall: { name: "read_file", args: { path: "sim" } } };
    for (const bypass of ["skip_thought_signature_validator", "context_engineering_is_the_way_to_go"]) {
      expect((await call(gen, replay({ ...call0, thoughtSignature: bypass }), goog("gz"))).status).toBe(200);
    }
    expect((await call(gen, replay(call0), goog("gz"))).status).toBe(200);
    expect((await call(gen, replay({ ...call0, thoughtSignature: "switchyard.reasoning.openai" }), goog("gz"))).body).toEqual(corrupted);
  });
});

describe("R20.2 raw request bytes", () => {
  it("R20.2 rawBody records the body exactly as sent (spacing, key order), beside the parsed body", async () => {
    const raw = '{ "messages" :[{"role":"user","content":"h\\u00e9llo ✓"}],\n\t"model":"claude-sim" ,"max_tokens": 10 }';
    const res = await request(`${sim.url}/v1/messages`, { method: "POST", headers: { "content-type": "application/json", ...as("ka") }, body: raw });
    expect(res.statusCode).toBe(200);
    await res.body.text();
    const seen = sim.requests.at(-1)!;
    expect(seen.rawBody).toBe(raw);
    expect(Buffer.from(seen.rawBody, "utf8").equals(Buffer.from(raw, "utf8"))).toBe(true);
    expect(seen.body).toEqual({ messages: [{ role: "user", content: "héllo ✓" }], model: "claude-sim", max_tokens: 10 });

    const gemini = '{"contents":[{"parts":[{"text":"hi"}],"role":"user"}]}  ';
    await (await request(`${sim.url}/v1beta/models/g:generateContent`, { method: "POST", body: gemini })).body.text();
    expect(sim.requests.at(-1)!.rawBody).toBe(gemini);
    await (await request(`${sim.url}/v1/models`)).body.text();
    expect(sim.requests.at(-1)!.rawBody).toBe("");
  });
});
