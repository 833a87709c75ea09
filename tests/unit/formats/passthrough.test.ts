import { describe, expect, it } from "vitest";
import { classifyEvent, createStreamTranslator } from "../../../main/gateway/formats/index.js";
import { fixtureText, parseSse, runStream } from "./helpers.js";

const ctx = { clientModel: "my-alias", requestId: "req-9" };

function reserialise(evt: { event?: string; data: string }): string {
  return `${evt.event === undefined ? "" : `event: ${evt.event}\n`}data: ${evt.data}\n\n`;
}

describe("same-format stream pass-through (R1.4)", () => {
  it("R1.4 passes Anthropic frames through byte-faithfully, rewriting only message_start's model", () => {
    const events = parseSse(fixtureText("streams/anthropic-thinking-tools.sse"));
    const { frames } = runStream("anthropic", "anthropic", ctx, fixtureText("streams/anthropic-thinking-tools.sse"));
    expect(frames).toHaveLength(events.length);
    frames.forEach((frame, i) => {
      const expected = reserialise(events[i]);
      if (i === 0) expect(frame.text).toBe(expected.replace('"model":"claude-sonnet-4-5-20250929"', '"model":"my-alias"'));
      else expect(frame.text).toBe(expected);
    });
    expect(frames[2].text).toBe('event: ping\ndata: {"type": "ping"}\n\n');
  });

  it("R1.4 passes OpenAI chunks through byte-faithfully, rewriting only the model field", () => {
    const sse = fixtureText("streams/openai-reasoning-tools.sse");
    const { frames } = runStream("openai", "openai", ctx, sse);
    expect(frames.map((frame) => frame.text).join("")).toBe(sse.replaceAll('"model":"deepseek-reasoner"', '"model":"my-alias"'));
  });

  it("R1.4 R17.2 passes Gemini events through untouched but for modelVersion, which names the client's model", () => {
    const events = parseSse(fixtureText("streams/gemini-thought-function-call.sse"));
    const { frames, translator } = runStream("gemini", "gemini", ctx, fixtureText("streams/gemini-thought-function-call.sse"));
    const withClientModel = (data: string) => data.replace(/("modelVersion":)"[^"]*"/, `$1${JSON.stringify(ctx.clientModel)}`);
    expect(frames.map((frame) => frame.text)).toEqual(events.map((e) => reserialise({ ...e, data: withClientModel(e.data) })));
    expect(frames.some((frame) => frame.text.includes('"modelVersion"'))).toBe(events.some((e) => e.data.includes('"modelVersion"')));
    expect(translator.usage()).toEqual({ inputTokens: 300, outputTokens: 160, cacheReadTokens: 256, reasoningTokens: 120 });
  });

  it("R1.4 keeps the model rewrite exact when the model name needs escaping or sits after other keys", () => {
    const translator = createStreamTranslator("openai", "openai", { clientModel: 'we"ird\\name', requestId: "r" });
    const data =
      '{"id":"c","object":"chat.completion.chunk","created":1,"model" : "gpt-\\"x\\"","choices":[{"index":0,"delta":{"content":"\\"model\\":\\"keep\\""},"finish_reason":null}]}';
    const [frame] = translator.push({ data });
    const parsed = JSON.parse(frame.text.slice("data: ".length)) as Record<string, any>;
    expect(parsed["model"]).toBe('we"ird\\name');
    expect(parsed["choices"][0].delta.content).toBe('"model":"keep"');
    expect(frame.kind).toBe("content");
  });

  it("R13.4 classifies pass-through frames and tracks usage and content", () => {
    const { frames, translator } = runStream("anthropic", "anthropic", ctx, fixtureText("streams/anthropic-thinking-tools.sse"));
    expect(frames.map((frame) => frame.kind)).toEqual([
      "lifecycle",
      "reasoning",
      "lifecycle",
      "reasoning",
      "reasoning",
      "reasoning",
      "lifecycle",
      "lifecycle",
      "content",
      "content",
      "lifecycle",
      "tool",
      "tool",
      "tool",
      "tool",
      "lifecycle",
      "usage",
      "done",
    ]);
    expect(translator.hasContent()).toBe(true);
    expect(translator.usage()).toEqual({ inputTokens: 2572, outputTokens: 89, cacheReadTokens: 2000, cacheCreationTokens: 100 });
    expect(translator.end()).toEqual([]);
  });

  it("R1.2 end() completes a truncated Anthropic pass-through stream", () => {
    const events = parseSse(fixtureText("streams/anthropic-thinking-tools.sse")).slice(0, 9);
    const translator = createStreamTranslator("anthropic", "anthropic", ctx);
    for (const evt of events) translator.push(evt);
    expect(translator.end().map((frame) => frame.text)).toEqual([
      'event: content_block_stop\ndata: {"type":"content_block_stop","index":1}\n\n',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":1}}\n\n',
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    ]);
    expect(translator.end()).toEqual([]);
  });

  it("R1.1 end() adds [DONE] to a truncated OpenAI pass-through stream, and nothing to an empty one", () => {
    const events = parseSse(fixtureText("streams/openai-reasoning-tools.sse")).slice(0, 3);
    const translator = createStreamTranslator("openai", "openai", ctx);
    for (const evt of events) translator.push(evt);
    expect(translator.end()).toEqual([{ text: "data: [DONE]\n\n", kind: "done" }]);
    expect(createStreamTranslator("openai", "openai", ctx).end()).toEqual([]);
    expect(createStreamTranslator("anthropic", "anthropic", ctx).end()).toEqual([]);
  });

  it("R13.4 classifyEvent: empty deltas, role chunks and pings are lifecycle; thinking and signature deltas are reasoning", () => {
    const chunk = (delta: unknown, extra: Record<string, unknown> = {}) => ({ data: JSON.stringify({ choices: [{ index: 0, delta, finish_reason: null }], ...extra }) });
    expect(classifyEvent("openai", chunk({ role: "assistant", content: "" }))).toBe("lifecycle");
    expect(classifyEvent("openai", chunk({ content: "hi" }))).toBe("content");
    expect(classifyEvent("openai", chunk({ reasoning_content: "hmm", content: null }))).toBe("reasoning");
    expect(classifyEvent("openai", chunk({ tool_calls: [{ index: 0, function: { arguments: "{" } }] }))).toBe("tool");
    expect(classifyEvent("openai", { data: JSON.stringify({ choices: [], usage: { prompt_tokens: 1 } }) })).toBe("usage");
    expect(classifyEvent("openai", { data: "[DONE]" })).toBe("done");
    expect(classifyEvent("openai", { data: JSON.stringify({ error: { message: "x" } }) })).toBe("error");
    expect(classifyEvent("openai", { data: "not json" })).toBe("lifecycle");
    const block = (delta: unknown) => ({ event: "content_block_delta", data: JSON.stringify({ type: "content_block_delta", index: 0, delta }) });
    expect(classifyEvent("anthropic", block({ type: "thinking_delta", thinking: "" }))).toBe("reasoning");
    expect(classifyEvent("anthropic", block({ type: "signature_delta", signature: "s" }))).toBe("reasoning");
    expect(classifyEvent("anthropic", block({ type: "text_delta", text: "" }))).toBe("lifecycle");
    expect(classifyEvent("anthropic", block({ type: "text_delta", text: "a" }))).toBe("content");
    expect(classifyEvent("anthropic", block({ type: "input_json_delta", partial_json: "" }))).toBe("tool");
    expect(classifyEvent("anthropic", { event: "ping", data: '{"type":"ping"}' })).toBe("lifecycle");
    expect(
      classifyEvent("anthropic", {
        event: "content_block_start",
        data: JSON.stringify({ type: "content_block_start", index: 0, content_block: { type: "redacted_thinking", data: "x" } }),
      }),
    ).toBe("reasoning");
    expect(classifyEvent("anthropic", { event: "error", data: JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "o" } }) })).toBe("error");
    const gemini = (parts: unknown[], extra: Record<string, unknown> = {}) => ({ data: JSON.stringify({ candidates: [{ content: { role: "model", parts } }], ...extra }) });
    expect(classifyEvent("gemini", gemini([{ text: "a" }]))).toBe("content");
    expect(classifyEvent("gemini", gemini([{ text: "a", thought: true }]))).toBe("reasoning");
    expect(classifyEvent("gemini", gemini([{ functionCall: { name: "f", args: {} } }]))).toBe("tool");
    expect(classifyEvent("gemini", gemini([{ text: "" }], { usageMetadata: { promptTokenCount: 1 } }))).toBe("usage");
    expect(classifyEvent("gemini", gemini([]))).toBe("lifecycle");
  });
});
