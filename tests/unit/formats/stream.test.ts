import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createStreamTranslator } from "../../../main/gateway/formats/index.js";
import { assembleAnthropicStream, assembleOpenaiStream, expectGolden, fixtureText, parseSse, runStream } from "./helpers.js";

const ctx = { clientModel: "my-alias", requestId: "req-7" };
const openaiSse = () => fixtureText("streams/openai-reasoning-tools.sse");
const anthropicSse = () => fixtureText("streams/anthropic-thinking-tools.sse");
const geminiSse = () => fixtureText("streams/gemini-thought-function-call.sse");

describe("streaming translation (R1.4, R1.2, R13)", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2025-06-01T12:00:00Z"));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("R1.4 translates an OpenAI-compatible reasoning + tool stream for Anthropic and Gemini clients (golden)", () => {
    expectGolden("streams/openai-reasoning-tools.to-anthropic.sse", runStream("openai", "anthropic", ctx, openaiSse()).text);
    expectGolden("streams/openai-reasoning-tools.to-gemini.sse", runStream("openai", "gemini", ctx, openaiSse()).text);
  });

  it("R1.4 translates an Anthropic thinking + tool_use stream for OpenAI and Gemini clients (golden)", () => {
    expectGolden("streams/anthropic-thinking-tools.to-openai.sse", runStream("anthropic", "openai", ctx, anthropicSse()).text);
    expectGolden("streams/anthropic-thinking-tools.to-gemini.sse", runStream("anthropic", "gemini", ctx, anthropicSse()).text);
  });

  it("R1.4 translates a Gemini thought + functionCall stream for Anthropic and OpenAI clients (golden)", () => {
    expectGolden("streams/gemini-thought-function-call.to-anthropic.sse", runStream("gemini", "anthropic", ctx, geminiSse()).text);
    expectGolden("streams/gemini-thought-function-call.to-openai.sse", runStream("gemini", "openai", ctx, geminiSse()).text);
  });

  it("R1.2 Anthropic clients get the exact event sequence with thinking, text and tool_use blocks from an OpenAI upstream", () => {
    const message = assembleAnthropicStream(runStream("openai", "anthropic", ctx, openaiSse()).text);
    expect(message.model).toBe("my-alias");
    expect(message.content).toEqual([
      { type: "thinking", thinking: "Paris weather; call the tool.", signature: "switchyard.reasoning.openai" },
      { type: "text", text: "Let me check." },
      { type: "tool_use", id: "call_0_a1b2c3", name: "get_weather", input: { location: "Paris, France" } },
      { type: "tool_use", id: "call_1_d4e5f6", name: "get_time", input: { tz: "Europe/Paris" } },
    ]);
    expect(message.stopReason).toBe("tool_use");
    expect(message.usage).toEqual({ input_tokens: 176, cache_creation_input_tokens: 0, cache_read_input_tokens: 1024, output_tokens: 80 });
  });

  it("R1.2 Anthropic clients get a well-formed sequence from a Gemini upstream, with stable synthesised tool ids", () => {
    const message = assembleAnthropicStream(runStream("gemini", "anthropic", ctx, geminiSse()).text);
    expect(message.content).toEqual([
      { type: "thinking", thinking: "**Planning**\nDim warm light.", signature: "switchyard.reasoning.gemini" },
      { type: "text", text: "Setting the lights now." },
      { type: "tool_use", id: "call_req-7_0", name: "set_light_values", input: { brightness: 25, color_temp: "warm" } },
    ]);
    expect(message.stopReason).toBe("tool_use");
    expect(message.usage).toEqual({ input_tokens: 44, cache_creation_input_tokens: 0, cache_read_input_tokens: 256, output_tokens: 160 });
  });

  it("R1.1 OpenAI clients get role first, deltas, finish_reason, a usage chunk and [DONE] from an Anthropic upstream", () => {
    const out = assembleOpenaiStream(runStream("anthropic", "openai", ctx, anthropicSse()).text);
    expect([...out.ids]).toEqual(["chatcmpl-req-7"]);
    expect([...out.models]).toEqual(["my-alias"]);
    expect(out.reasoning).toBe("The user wants the weather; call the tool.");
    expect(out.content).toBe("I'll check the weather.");
    expect(out.toolCalls).toEqual([{ id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather", arguments: '{"location": "San Francisco, CA"}' }]);
    expect(out.finishReason).toBe("tool_calls");
    expect(out.usage).toEqual({ prompt_tokens: 2572, completion_tokens: 89, total_tokens: 2661, prompt_tokens_details: { cached_tokens: 2000 } });
  });

  it("R1.1 OpenAI clients keep Gemini thought signatures on streamed tool calls", () => {
    const out = assembleOpenaiStream(runStream("gemini", "openai", ctx, geminiSse()).text);
    expect(out.toolCalls).toEqual([
      { id: "call_req-7_0", name: "set_light_values", arguments: '{"brightness":25,"color_temp":"warm"}', extra: { google: { thought_signature: "CiQBcsjafE1a" } } },
    ]);
    expect(out.finishReason).toBe("tool_calls");
    expect(out.reasoning).toBe("**Planning**\nDim warm light.");
  });

  it("R1.1 the usage chunk is left out when the OpenAI client did not ask for include_usage", () => {
    const text = runStream("anthropic", "openai", { ...ctx, includeUsage: false }, anthropicSse()).text;
    expect(text).not.toContain('"usage"');
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
  });

  it("R13.4 classifies translated frames: lifecycle until the first reasoning, then reasoning, content and tool frames", () => {
    const { frames } = runStream("openai", "anthropic", ctx, openaiSse());
    const kinds = frames.map((frame) => frame.kind);
    expect(kinds[0]).toBe("lifecycle");
    expect(kinds).toContain("reasoning");
    expect(kinds).toContain("content");
    expect(kinds).toContain("tool");
    expect(kinds.slice(-2)).toEqual(["usage", "done"]);
    const firstReasoning = frames.find((frame) => frame.kind === "reasoning");
    expect(firstReasoning?.text).toContain("content_block_start");
  });

  it("R13.4 empty Anthropic thinking deltas still count as reasoning progress after translation", () => {
    const translator = createStreamTranslator("anthropic", "openai", ctx);
    translator.push({ event: "message_start", data: JSON.stringify({ type: "message_start", message: { id: "m", model: "c", usage: { input_tokens: 5, output_tokens: 0 } } }) });
    translator.push({
      event: "content_block_start",
      data: JSON.stringify({ type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } }),
    });
    expect(translator.hasContent()).toBe(false);
    const frames = translator.push({
      event: "content_block_delta",
      data: JSON.stringify({ type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "" } }),
    });
    expect(frames.map((frame) => frame.kind)).toEqual(["reasoning"]);
    expect(translator.hasContent()).toBe(true);
  });

  it("R13.2 hasContent stays false for a stream of lifecycle frames only", () => {
    const translator = createStreamTranslator("openai", "anthropic", ctx);
    const role = { id: "x", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] };
    expect(translator.push({ data: JSON.stringify(role) }).map((frame) => frame.kind)).toEqual(["lifecycle"]);
    translator.push({ data: ": keep-alive" });
    expect(translator.hasContent()).toBe(false);
    expect(translator.usage()).toEqual({ inputTokens: null, outputTokens: null });
  });

  it("R13.6 usage() reports input, output and cache tokens seen so far", () => {
    const { translator } = runStream("anthropic", "openai", ctx, anthropicSse());
    expect(translator.usage()).toEqual({ inputTokens: 2572, outputTokens: 89, cacheReadTokens: 2000, cacheCreationTokens: 100 });
    expect(runStream("gemini", "anthropic", ctx, geminiSse()).translator.usage()).toEqual({ inputTokens: 300, outputTokens: 160, cacheReadTokens: 256, reasoningTokens: 120 });
  });

  it("R13.6 usage stays consistent when message_delta repeats input_tokens without the cache counts", () => {
    const translator = createStreamTranslator("anthropic", "openai", ctx);
    translator.push({
      event: "message_start",
      data: JSON.stringify({ type: "message_start", message: { id: "m", model: "c", usage: { input_tokens: 10, cache_read_input_tokens: 90, output_tokens: 1 } } }),
    });
    translator.push({ event: "message_delta", data: JSON.stringify({ type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { input_tokens: 10, output_tokens: 7 } }) });
    expect(translator.usage()).toEqual({ inputTokens: 100, outputTokens: 7, cacheReadTokens: 90 });
    const passthrough = createStreamTranslator("anthropic", "anthropic", ctx);
    passthrough.push({
      event: "message_start",
      data: JSON.stringify({ type: "message_start", message: { id: "m", model: "c", usage: { input_tokens: 10, cache_read_input_tokens: 90, output_tokens: 1 } } }),
    });
    passthrough.push({
      event: "message_delta",
      data: JSON.stringify({ type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { input_tokens: 10, cache_read_input_tokens: null, output_tokens: 7 } }),
    });
    expect(passthrough.usage()).toEqual({ inputTokens: 100, outputTokens: 7, cacheReadTokens: 90 });
  });

  it("R1.2 end() closes a truncated upstream stream with content_block_stop, message_delta and message_stop", () => {
    const events = parseSse(openaiSse());
    const translator = createStreamTranslator("openai", "anthropic", ctx);
    const frames = events.slice(0, 5).flatMap((evt) => translator.push(evt));
    const closing = translator.end();
    expect(closing.map((frame) => parseSse(frame.text)[0]?.event)).toEqual(["content_block_stop", "message_delta", "message_stop"]);
    const message = assembleAnthropicStream([...frames, ...closing].map((frame) => frame.text).join(""));
    expect(message.stopReason).toBe("end_turn");
    expect(translator.end()).toEqual([]);
  });

  it("R1.1 end() adds the finish chunk and [DONE] when a Gemini stream simply stops", () => {
    const translator = createStreamTranslator("gemini", "openai", { ...ctx, includeUsage: false });
    const frames = parseSse(geminiSse())
      .slice(0, 2)
      .flatMap((evt) => translator.push(evt));
    const closing = translator.end();
    expect(closing.map((frame) => frame.kind)).toEqual(["lifecycle", "done"]);
    expect(assembleOpenaiStream([...frames, ...closing].map((frame) => frame.text).join("")).finishReason).toBe("stop");
  });

  it("R13.2 end() on a stream that produced nothing returns no frames, so the gateway can fail over", () => {
    for (const [from, to] of [
      ["openai", "anthropic"],
      ["anthropic", "openai"],
      ["gemini", "anthropic"],
      ["openai", "gemini"],
    ] as const) {
      expect(createStreamTranslator(from, to, ctx).end()).toEqual([]);
    }
  });

  it("R13.3 upstream error events become a well-formed error event in the client's format, and nothing follows", () => {
    const anthropic = createStreamTranslator("openai", "anthropic", ctx);
    const frames = anthropic.push({ data: JSON.stringify({ error: { message: "boom", type: "server_error" } }) });
    expect(frames).toMatchObject([{ text: 'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"boom"}}\n\n', kind: "error" }]);
    expect(anthropic.end()).toEqual([]);
    const openai = createStreamTranslator("anthropic", "openai", ctx);
    const error = openai.push({ event: "error", data: JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }) });
    expect(error).toMatchObject([{ text: 'data: {"error":{"message":"Overloaded","type":"overloaded_error","code":null}}\n\n', kind: "error" }]);
    expect(openai.end()).toEqual([]);
  });

  it("R13.1 per-stream state lives in the translator: interleaved streams do not mix", () => {
    const a = createStreamTranslator("openai", "anthropic", { clientModel: "a", requestId: "A" });
    const b = createStreamTranslator("openai", "anthropic", { clientModel: "b", requestId: "B" });
    const eventsA = parseSse(openaiSse());
    const eventsB = parseSse(openaiSse()).slice(0, 4);
    const outA: string[] = [];
    const outB: string[] = [];
    eventsA.forEach((evt, i) => {
      outA.push(...a.push(evt).map((frame) => frame.text));
      const other = eventsB[i];
      if (other) outB.push(...b.push(other).map((frame) => frame.text));
    });
    outA.push(...a.end().map((frame) => frame.text));
    outB.push(...b.end().map((frame) => frame.text));
    expect(assembleAnthropicStream(outA.join("")).content).toHaveLength(4);
    const messageB = assembleAnthropicStream(outB.join(""));
    expect(messageB.model).toBe("b");
    expect(messageB.content).toEqual([
      { type: "thinking", thinking: "Paris weather; call the tool.", signature: "switchyard.reasoning.openai" },
      { type: "text", text: "Let me " },
    ]);
  });

  it("R1.2 ping frames from an Anthropic upstream are not forwarded to OpenAI clients", () => {
    const { text } = runStream("anthropic", "openai", ctx, anthropicSse());
    expect(text).not.toContain("ping");
  });
});
