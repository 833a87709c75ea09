import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { classifyEvent, createStreamTranslator, isToolOrReasoningEvent, sameFormatHalf, textDeltaBytes } from "../../../main/gateway/formats/index.js";
import { assembleAnthropicStream, assembleOpenaiStream, expectGolden, fixtureText, parseSse, runStream } from "./helpers.js";
import { assembleResponsesStream } from "./responsesHelpers.js";

const PATCH = '*** Begin Patch\n*** Update File: hello.txt\n@@\n-hello\n+hello, "world"\n*** End Patch\n';
const clientBody = {
  model: "codex-alias",
  input: "What's the weather in Paris?",
  tools: [
    { type: "function", name: "get_weather", parameters: { type: "object", properties: { location: { type: "string" } } }, strict: false },
    { type: "custom", name: "apply_patch", description: "Edit files.", format: { type: "grammar", syntax: "lark", definition: "start: /(.|\\n)+/" } },
  ],
  reasoning: { effort: "medium", summary: "auto" },
  store: false,
  stream: true,
};
const ctx = { clientModel: "codex-alias", requestId: "req-7", clientBody };
const plainCtx = { clientModel: "my-alias", requestId: "req-7" };
const openaiSse = () => fixtureText("streams/openai-reasoning-tools.sse");
const anthropicSse = () => fixtureText("streams/anthropic-thinking-tools.sse");
const geminiSse = () => fixtureText("streams/gemini-thought-function-call.sse");
const responsesSse = () => fixtureText("streams/responses-reasoning-tools.sse");

function chatChunk(delta: Record<string, unknown>, finish: string | null = null, usage?: Record<string, unknown>): string {
  return `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "up", choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`;
}

/** A chat upstream calling the bridged apply_patch function, its JSON arguments split mid-escape. */
function chatPatchCall(): string {
  const args = JSON.stringify({ input: PATCH });
  const cut = args.indexOf("\\n") + 1;
  return [
    chatChunk({ role: "assistant", content: "" }),
    chatChunk({ tool_calls: [{ index: 0, id: "call_P1", type: "function", function: { name: "apply_patch", arguments: "" } }] }),
    chatChunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(0, cut) } }] }),
    chatChunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(cut) } }] }),
    chatChunk({}, "tool_calls"),
    chatChunk({}, null, { prompt_tokens: 300, completion_tokens: 50, prompt_tokens_details: { cached_tokens: 200 }, completion_tokens_details: { reasoning_tokens: 20 } }).replace(
      '"choices":[{"index":0,"delta":{},"finish_reason":null}]',
      '"choices":[]',
    ),
    "data: [DONE]\n\n",
  ].join("");
}

describe("Responses streams (R16.2, R16.6)", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2025-06-01T12:00:00Z"));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("R16.2 Responses clients get the typed event sequence from OpenAI chat, Anthropic and Gemini upstreams (golden)", () => {
    for (const [name, sse, from] of [
      ["openai-reasoning-tools", openaiSse(), "openai"],
      ["anthropic-thinking-tools", anthropicSse(), "anthropic"],
      ["gemini-thought-function-call", geminiSse(), "gemini"],
    ] as const) {
      const { text } = runStream(from, "openai-responses", ctx, sse);
      expectGolden(`streams/${name}.to-openai-responses.sse`, text);
      assembleResponsesStream(text);
    }
  });

  it("R16.6 chat and Anthropic clients get their own streams from a Responses upstream (golden)", () => {
    expectGolden("streams/responses-reasoning-tools.to-openai.sse", runStream("openai-responses", "openai", plainCtx, responsesSse()).text);
    expectGolden("streams/responses-reasoning-tools.to-anthropic.sse", runStream("openai-responses", "anthropic", plainCtx, responsesSse()).text);
  });

  it("R16.2 the event order from an Anthropic upstream: reasoning, message and function_call items, then response.completed", () => {
    const out = assembleResponsesStream(runStream("anthropic", "openai-responses", ctx, anthropicSse()).text);
    expect(out.types).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.reasoning_summary_part.added",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.done",
      "response.reasoning_summary_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(out.text).toBe("I'll check the weather.");
    expect(out.response).toMatchObject({ id: "resp_req-7", status: "completed", model: "codex-alias", tools: clientBody.tools, reasoning: { effort: "medium", summary: "auto" } });
    expect(out.response["usage"]).toEqual({
      input_tokens: 2572,
      input_tokens_details: { cached_tokens: 2000 },
      output_tokens: 89,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 2661,
    });
  });

  it("R16.6 reasoning ⇄ thinking: Anthropic thinking becomes a reasoning item whose encrypted_content carries the signature", () => {
    const out = assembleResponsesStream(runStream("anthropic", "openai-responses", ctx, anthropicSse()).text);
    expect(out.reasoning).toBe("The user wants the weather; call the tool.");
    expect(out.items[0]).toEqual({
      id: "rs_req-7_0",
      type: "reasoning",
      summary: [{ type: "summary_text", text: "The user wants the weather; call the tool." }],
      encrypted_content: "switchyard.anthropic.signature:EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds",
    });
    const message = assembleAnthropicStream(runStream("openai-responses", "anthropic", plainCtx, responsesSse()).text);
    expect(message.content[0]).toEqual({
      type: "thinking",
      thinking: "**Reading the file**\n\nCheck the greeting, then patch it.",
      signature: "switchyard.reasoning.openai-responses",
    });
  });

  it("R16.6 a custom tool round trip: the chat upstream's call to the bridged function reaches the client as custom_tool_call with the raw input", () => {
    const out = assembleResponsesStream(runStream("openai", "openai-responses", ctx, chatPatchCall()).text);
    expect(out.items).toEqual([{ id: "ctc_req-7_0", type: "custom_tool_call", status: "completed", call_id: "call_P1", name: "apply_patch", input: PATCH }]);
    expect(out.customInputs).toEqual([PATCH]);
    expect(out.types).toContain("response.custom_tool_call_input.delta");
    expect(out.types).not.toContain("response.function_call_arguments.delta");
    expect(out.response["usage"]).toEqual({
      input_tokens: 300,
      input_tokens_details: { cached_tokens: 200 },
      output_tokens: 50,
      output_tokens_details: { reasoning_tokens: 20 },
      total_tokens: 350,
    });
  });

  it("R16.6 a Responses upstream's custom_tool_call reaches chat and Anthropic clients as the bridged function with JSON arguments", () => {
    const chat = assembleOpenaiStream(runStream("openai-responses", "openai", plainCtx, responsesSse()).text);
    expect(chat.toolCalls).toEqual([
      { id: "call_Kx81", name: "exec_command", arguments: '{"cmd":"cat hello.txt"}' },
      { id: "call_Pz92", name: "apply_patch", arguments: JSON.stringify({ input: PATCH }) },
    ]);
    expect(chat.reasoning).toBe("**Reading the file**\n\nCheck the greeting, then patch it.");
    expect(chat.content).toBe("Reading hello.txt first.");
    expect(chat.finishReason).toBe("tool_calls");
    expect(chat.usage).toEqual({
      prompt_tokens: 5120,
      completion_tokens: 210,
      total_tokens: 5330,
      prompt_tokens_details: { cached_tokens: 4096 },
      completion_tokens_details: { reasoning_tokens: 128 },
    });
    const message = assembleAnthropicStream(runStream("openai-responses", "anthropic", plainCtx, responsesSse()).text);
    expect(message.content[3]).toEqual({ type: "tool_use", id: "call_Pz92", name: "apply_patch", input: { input: PATCH } });
    expect(message.stopReason).toBe("tool_use");
    expect(message.usage).toEqual({ input_tokens: 1024, cache_creation_input_tokens: 0, cache_read_input_tokens: 4096, output_tokens: 210 });
  });

  it("R16.2 usage from Gemini keeps cached and reasoning tokens; tool ids stay the synthesised ones", () => {
    const out = assembleResponsesStream(runStream("gemini", "openai-responses", ctx, geminiSse()).text);
    expect(out.response["usage"]).toEqual({
      input_tokens: 300,
      input_tokens_details: { cached_tokens: 256 },
      output_tokens: 160,
      output_tokens_details: { reasoning_tokens: 120 },
      total_tokens: 460,
    });
    expect(out.items.map((item) => item["type"])).toEqual(["reasoning", "message", "function_call"]);
    expect(out.items[2]).toMatchObject({ call_id: "call_req-7_0", name: "set_light_values", arguments: '{"brightness":25,"color_temp":"warm"}' });
    expect(out.items[0]?.["encrypted_content"]).toBe("switchyard.reasoning.gemini");
  });

  it("R16.2 R13.2 an upstream error event ends the stream with response.failed carrying the error, and nothing follows", () => {
    const translator = createStreamTranslator("anthropic", "openai-responses", ctx);
    const events = parseSse(anthropicSse());
    const frames = events.slice(0, 10).flatMap((evt) => translator.push(evt));
    frames.push(...translator.push({ event: "error", data: JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }) }));
    expect(translator.end()).toEqual([]);
    const out = assembleResponsesStream(frames.map((frame) => frame.text).join(""));
    expect(out.types[out.types.length - 1]).toBe("response.failed");
    expect(frames[frames.length - 1]?.kind).toBe("error");
    expect(out.response).toMatchObject({ status: "failed", error: { code: "overloaded_error", message: "Overloaded" } });
    const chat = createStreamTranslator("openai-responses", "openai", plainCtx);
    const failed = { type: "response.failed", sequence_number: 3, response: { status: "failed", error: { code: "server_error", message: "boom" } } };
    expect(chat.push({ event: "response.failed", data: JSON.stringify(failed) })).toMatchObject([
      { text: 'data: {"error":{"message":"boom","type":"server_error","code":"server_error"}}\n\n', kind: "error" },
    ]);
    expect(chat.finished()).toBe(true);
  });

  it("R16.2 an answer cut by the token limit ends with response.incomplete", () => {
    const sse = chatChunk({ role: "assistant", content: "Par" }) + chatChunk({ content: "tial" }, "length") + "data: [DONE]\n\n";
    const out = assembleResponsesStream(runStream("openai", "openai-responses", ctx, sse).text);
    expect(out.types[out.types.length - 1]).toBe("response.incomplete");
    expect(out.response).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" } });
    expect(out.text).toBe("Partial");
  });

  it("R13.4 frame kinds: lifecycle for the frame, content for text, reasoning and tool for theirs, done last", () => {
    const { frames } = runStream("anthropic", "openai-responses", ctx, anthropicSse());
    const kindOf = (type: string) => frames.filter((frame) => frame.text.startsWith(`event: ${type}\n`)).map((frame) => frame.kind);
    expect(kindOf("response.created")).toEqual(["lifecycle"]);
    expect(new Set(kindOf("response.output_text.delta"))).toEqual(new Set(["content"]));
    expect(new Set(kindOf("response.reasoning_summary_text.delta"))).toEqual(new Set(["reasoning"]));
    expect(new Set(kindOf("response.function_call_arguments.delta"))).toEqual(new Set(["tool"]));
    expect(kindOf("response.completed")).toEqual(["done"]);
    expect(frames.find((frame) => frame.kind !== "lifecycle")?.text).toContain("response.output_item.added");
  });

  it("R16.2 the same input gives the same bytes, and end() on an empty stream gives nothing", () => {
    for (const [from, sse] of [
      ["anthropic", anthropicSse()],
      ["openai", chatPatchCall()],
      ["gemini", geminiSse()],
    ] as const) {
      expect(runStream(from, "openai-responses", ctx, sse).text).toBe(runStream(from, "openai-responses", ctx, sse).text);
    }
    expect(createStreamTranslator("openai", "openai-responses", ctx).end()).toEqual([]);
  });

  it("R13.4 R13.5 Responses upstream events classify for the watchdogs: reasoning events are reasoning progress", () => {
    const events = parseSse(responsesSse());
    const byType = (type: string) => events.find((evt) => evt.event === type)!;
    expect(classifyEvent("openai-responses", byType("response.reasoning_summary_text.delta"))).toBe("reasoning");
    expect(classifyEvent("openai-responses", byType("response.output_text.delta"))).toBe("content");
    expect(classifyEvent("openai-responses", byType("response.function_call_arguments.delta"))).toBe("tool");
    expect(classifyEvent("openai-responses", byType("response.custom_tool_call_input.delta"))).toBe("tool");
    expect(classifyEvent("openai-responses", byType("response.created"))).toBe("lifecycle");
    expect(classifyEvent("openai-responses", byType("response.completed"))).toBe("done");
    expect(textDeltaBytes("openai-responses", byType("response.output_text.delta"))).toBe(8);
    expect(textDeltaBytes("openai-responses", byType("response.reasoning_summary_text.delta"))).toBe(0);
    expect(isToolOrReasoningEvent("openai-responses", byType("response.reasoning_summary_text.delta"))).toBe(true);
    expect(isToolOrReasoningEvent("openai-responses", byType("response.output_text.delta"))).toBe(false);
  });
});

describe("Responses pass-through (R16.6)", () => {
  it("R16.6 a Responses upstream streams to a Responses client untouched but for the model in the response objects", () => {
    const { text, frames, translator } = runStream("openai-responses", "openai-responses", ctx, responsesSse());
    const upstream = parseSse(responsesSse());
    const relayed = parseSse(text);
    expect(relayed.map((evt) => evt.event)).toEqual(upstream.map((evt) => evt.event));
    relayed.forEach((evt, i) => {
      const original = upstream[i];
      if (original.data.includes('"model":"gpt-5-codex"')) expect(evt.data).toBe(original.data.replace('"model":"gpt-5-codex"', '"model":"codex-alias"'));
      else expect(evt.data).toBe(original.data);
    });
    expect(translator.usage()).toEqual({ inputTokens: 5120, outputTokens: 210, cacheReadTokens: 4096, reasoningTokens: 128 });
    expect(translator.finished()).toBe(true);
    expect(frames[frames.length - 1]?.kind).toBe("done");
  });

  it("R16.6 the fast path takes only plain text deltas, and a stream cut short gets no made-up completion", () => {
    const same = sameFormatHalf("openai-responses");
    const deltas = parseSse(responsesSse()).filter((evt) => evt.event === "response.output_text.delta");
    expect(deltas.every((evt) => same.isPlainContentChunk?.(evt.data))).toBe(true);
    const others = parseSse(responsesSse()).filter((evt) => evt.event !== "response.output_text.delta");
    expect(others.some((evt) => same.isPlainContentChunk?.(evt.data))).toBe(false);
    expect(same.isPlainContentChunk?.('{"type":"response.output_text.delta","sequence_number":1,"item_id":"m","output_index":0,"content_index":0,"delta":""}')).toBe(false);
    const translator = createStreamTranslator("openai-responses", "openai-responses", ctx);
    parseSse(responsesSse())
      .slice(0, 12)
      .forEach((evt) => translator.push(evt));
    expect(translator.end()).toEqual([]);
    expect(translator.finished()).toBe(false);
  });
});
