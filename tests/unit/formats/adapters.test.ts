import { describe, expect, it } from "vitest";
import type { Provider, ProviderFormat, WireFormat } from "../../../shared/types.js";
import { clientHalf, createStreamTranslator, extractUsage, providerAdapterFor, sameFormatHalf, upstreamFormatOf, upstreamHalf } from "../../../main/gateway/formats/index.js";
import { buildUpstreamHeaders } from "../../../main/gateway/upstream/headers.js";
import { parseSse } from "./helpers.js";

const FORMATS = ["openai", "anthropic", "gemini"] as const satisfies readonly WireFormat[];

function provider(format: ProviderFormat, options: Record<string, unknown> = {}): Provider {
  return {
    id: `p-${format}`,
    format,
    baseUrl: "http://127.0.0.1:1",
    category: "apikey",
    models: ["m"],
    quotaFamilies: {},
    passthroughModels: false,
    rateLimitCooldownSeconds: null,
    priority: 0,
    options,
    createdAt: 0,
    updatedAt: 0,
  };
}

const BASE = { "content-type": "application/json", accept: "application/json, text/event-stream", "user-agent": "switchyard-test" };

describe("adapter registry (R1.4)", () => {
  it("R1.4 has one adapter per wire format, each naming its own format and calling upstream in it", () => {
    for (const format of FORMATS) {
      expect(clientHalf(format).format).toBe(format);
      expect(upstreamHalf(format).format).toBe(format);
      for (const client of FORMATS) expect(upstreamFormatOf(provider(format), client)).toBe(format);
    }
  });

  it("R0.5 a simulator provider is called in the client's own format, so its traffic is never translated", () => {
    for (const client of FORMATS) expect(upstreamFormatOf(provider("simulator"), client)).toBe(client);
  });

  it("R1.4 each adapter builds its upstream path; Gemini puts the model in the URL and streams through alt=sse", () => {
    expect(upstreamHalf("openai").path("gpt-4o", true)).toBe("/chat/completions");
    expect(upstreamHalf("anthropic").path("claude-sonnet-4-5", true)).toBe("/v1/messages");
    expect(upstreamHalf("gemini").path("gemini-2.5-flash", false)).toBe("/models/gemini-2.5-flash:generateContent");
    expect(upstreamHalf("gemini").path("models/gemini-2.5-pro", true)).toBe("/models/gemini-2.5-pro:streamGenerateContent?alt=sse");
  });

  it("R1.4 same-format bodies get the upstream model where the format keeps it, and the client's model on the way back", () => {
    expect(sameFormatHalf("openai").withUpstreamModel({ model: "alias", n: 1 }, "gpt-4o")).toEqual({ model: "gpt-4o", n: 1 });
    expect(sameFormatHalf("anthropic").withUpstreamModel({ model: "alias" }, "claude-x")).toEqual({ model: "claude-x" });
    // R17.1: the route put the path's model and stream into a Gemini body; Google takes neither.
    expect(sameFormatHalf("gemini").withUpstreamModel({ contents: [], model: "alias", stream: true }, "gemini-2.5-pro")).toEqual({ contents: [] });
    expect(sameFormatHalf("openai").withClientModel({ model: "up", id: "x" }, "mine")).toEqual({ model: "mine", id: "x" });
    expect(sameFormatHalf("anthropic").withClientModel({ model: "up" }, "mine")).toEqual({ model: "mine" });
    expect(sameFormatHalf("gemini").withClientModel({ modelVersion: "up" }, "mine")).toEqual({ modelVersion: "mine" });
    expect(sameFormatHalf("gemini").withClientModel("not json", "mine")).toEqual({ modelVersion: "mine" });
  });

  it("R1.1 only an OpenAI client opts in to the trailing usage chunk; the other formats always report usage", () => {
    expect(clientHalf("openai").wantsStreamUsage({ stream_options: { include_usage: true } })).toBe(true);
    expect(clientHalf("openai").wantsStreamUsage({ stream_options: { include_usage: "yes" } })).toBe(false);
    expect(clientHalf("openai").wantsStreamUsage({})).toBe(false);
    expect(clientHalf("anthropic").wantsStreamUsage({})).toBe(true);
    expect(clientHalf("gemini").wantsStreamUsage({})).toBe(true);
  });

  it("R1.2 R17.4 heartbeats are the Anthropic ping event for Anthropic clients, a bare newline for Gemini's, an SSE comment otherwise", () => {
    expect(parseSse(clientHalf("anthropic").heartbeatFrame)).toEqual([{ event: "ping", data: '{"type":"ping"}' }]);
    for (const format of ["openai", "openai-responses"] as const) {
      expect(clientHalf(format).heartbeatFrame).toBe(": keep-alive\n\n");
      expect(parseSse(clientHalf(format).heartbeatFrame)).toEqual([]);
    }
    // The Gemini CLI's parser fails on an SSE comment before content but takes an empty line.
    expect(clientHalf("gemini").heartbeatFrame).toBe("\n");
    expect(parseSse(clientHalf("gemini").heartbeatFrame)).toEqual([]);
  });
});

describe("upstream auth headers per adapter (R1.2, R1.4)", () => {
  const anthropicClient = { "anthropic-version": "2024-10-22", "anthropic-beta": ["tools-2024", "cache-2024"] };

  it("R1.2 an Anthropic upstream gets the default anthropic-version, or the Anthropic client's own, and the key in x-api-key", () => {
    const anthropic = upstreamHalf("anthropic");
    expect(anthropic.authHeaders("sk-ant", {}, "anthropic")).toEqual({ "anthropic-version": "2023-06-01", "x-api-key": "sk-ant" });
    expect(anthropic.authHeaders("sk-ant", { "anthropic-version": "2024-10-22" }, "anthropic")["anthropic-version"]).toBe("2024-10-22");
    expect(anthropic.authHeaders(null, {}, "openai")).toEqual({ "anthropic-version": "2023-06-01" });
  });

  it("R1.2 anthropic-beta passes through from Anthropic clients only, several values joined by commas", () => {
    const anthropic = upstreamHalf("anthropic");
    expect(anthropic.authHeaders("k", anthropicClient, "anthropic")).toEqual({
      "anthropic-version": "2024-10-22",
      "anthropic-beta": "tools-2024,cache-2024",
      "x-api-key": "k",
    });
    // An OpenAI or Gemini client never chose a version or betas: whatever such headers it sent stay behind.
    for (const client of ["openai", "gemini"] as const) {
      expect(anthropic.authHeaders("k", anthropicClient, client)).toEqual({ "anthropic-version": "2023-06-01", "x-api-key": "k" });
    }
  });

  it("R1.4 an OpenAI upstream takes a Bearer token and a Gemini upstream x-goog-api-key; no secret, no auth header", () => {
    expect(upstreamHalf("openai").authHeaders("sk-o", anthropicClient, "anthropic")).toEqual({ authorization: "Bearer sk-o" });
    expect(upstreamHalf("gemini").authHeaders("AIza", anthropicClient, "anthropic")).toEqual({ "x-goog-api-key": "AIza" });
    expect(upstreamHalf("openai").authHeaders(null, {}, "openai")).toEqual({});
    expect(upstreamHalf("gemini").authHeaders(null, {}, "gemini")).toEqual({});
  });

  it("R7.1 buildUpstreamHeaders sends only the fixed headers plus the adapter's, never the client's session, key or cookie", () => {
    const client = { "x-session-id": "s1", authorization: "Bearer sk-sy-client", cookie: "a=b", "x-api-key": "sk-sy-client", ...anthropicClient };
    expect(buildUpstreamHeaders(provider("openai"), "openai", "anthropic", "sk-o", client, "switchyard-test")).toEqual({ ...BASE, authorization: "Bearer sk-o" });
    expect(buildUpstreamHeaders(provider("gemini"), "gemini", "openai", "AIza", client, "switchyard-test")).toEqual({ ...BASE, "x-goog-api-key": "AIza" });
    expect(buildUpstreamHeaders(provider("anthropic"), "anthropic", "anthropic", "sk-ant", client, "switchyard-test")).toEqual({
      ...BASE,
      "anthropic-version": "2024-10-22",
      "anthropic-beta": "tools-2024,cache-2024",
      "x-api-key": "sk-ant",
    });
  });
});

describe("simulator fault programs (R0.5)", () => {
  const standing = { status: 503 };

  it("R0.5 the request's x-sim-fault header wins over the provider's standing fault option", () => {
    const sim = providerAdapterFor("simulator");
    expect(sim.extraHeaders(provider("simulator", { fault: standing }), { "x-sim-fault": '{"status":429}' })).toEqual({ "x-sim-fault": '{"status":429}' });
    expect(sim.extraHeaders(provider("simulator", { fault: standing }), { "x-sim-fault": ['{"status":500}', '{"status":502}'] })).toEqual({ "x-sim-fault": '{"status":500}' });
    expect(sim.extraHeaders(provider("simulator", { fault: standing }), {})).toEqual({ "x-sim-fault": JSON.stringify(standing) });
    expect(sim.extraHeaders(provider("simulator"), {})).toEqual({});
  });

  it("R0.5 buildUpstreamHeaders forwards x-sim-fault to simulator providers only, after the auth of the client's format", () => {
    const fault = { "x-sim-fault": '{"stallMs":10}' };
    expect(buildUpstreamHeaders(provider("simulator", { fault: standing }), "anthropic", "anthropic", "sim-key", fault, "switchyard-test")).toEqual({
      ...BASE,
      "anthropic-version": "2023-06-01",
      "x-api-key": "sim-key",
      "x-sim-fault": '{"stallMs":10}',
    });
    expect(buildUpstreamHeaders(provider("openai", { fault: standing }), "openai", "openai", null, fault, "switchyard-test")).toEqual(BASE);
    expect(providerAdapterFor("openai").extraHeaders(provider("openai", { fault: standing }), fault)).toEqual({});
  });
});

describe("errors per adapter (R1.5, R13.3)", () => {
  it("R1.5 each adapter writes its own error shape with the verdict code beside the standard type", () => {
    expect(clientHalf("openai").errorBody(429, "rate_limit_error", "slow", { retry_after: 3 })).toEqual({
      error: { message: "slow", type: "rate_limit_error", code: "rate_limit_error", retry_after: 3 },
    });
    expect(clientHalf("anthropic").errorBody(400, "invalid_request", "bad")).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: "bad", code: "invalid_request" },
    });
    expect(clientHalf("gemini").errorBody(504, "RATE_LIMIT_EXECUTION_TIMEOUT", "late")).toEqual({
      error: {
        code: 504,
        message: "late",
        status: "DEADLINE_EXCEEDED",
        details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "RATE_LIMIT_EXECUTION_TIMEOUT", domain: "switchyard" }],
      },
    });
  });

  it("R13.3 error frames: a named `error` event for Anthropic, a bare data event otherwise, status taken from the code", () => {
    const [anthropic] = parseSse(clientHalf("anthropic").errorFrame("model_not_found", "gone"));
    expect(anthropic).toEqual({ event: "error", data: JSON.stringify({ type: "error", error: { type: "not_found_error", message: "gone", code: "model_not_found" } }) });
    const [openai] = parseSse(clientHalf("openai").errorFrame("provider_circuit_open", "open"));
    expect(openai?.event).toBeUndefined();
    expect(JSON.parse(openai.data)).toEqual({ error: { message: "open", type: "server_error", code: "provider_circuit_open" } });
    const [gemini] = parseSse(clientHalf("gemini").errorFrame("unknown_code", "boom"));
    expect(gemini?.event).toBeUndefined();
    expect(JSON.parse(gemini.data).error).toMatchObject({ code: 500, status: "INTERNAL", message: "boom" });
  });
});

describe("usage reading per adapter (R1.4)", () => {
  it("R1.4 each adapter reads its own usage fields into prompt-inclusive input counts", () => {
    expect(upstreamHalf("openai").usage({ usage: { prompt_tokens: 10, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 6 } } })).toEqual({
      inputTokens: 10,
      outputTokens: 4,
      cacheReadTokens: 6,
    });
    expect(upstreamHalf("anthropic").usage({ usage: { input_tokens: 3, cache_read_input_tokens: 5, cache_creation_input_tokens: 2, output_tokens: 7 } })).toEqual({
      inputTokens: 10,
      outputTokens: 7,
      cacheReadTokens: 5,
      cacheCreationTokens: 2,
    });
    expect(upstreamHalf("gemini").usage({ usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 3, thoughtsTokenCount: 2 } })).toEqual({
      inputTokens: 8,
      outputTokens: 5,
      reasoningTokens: 2,
    });
  });

  it("R1.4 a body without usage (or not JSON at all) reads as unknown, never zero", () => {
    for (const format of FORMATS) {
      expect(upstreamHalf(format).usage({})).toBeUndefined();
      expect(upstreamHalf(format).usage("oops")).toBeUndefined();
      expect(extractUsage(format, null)).toEqual({ inputTokens: null, outputTokens: null });
    }
    // Another format's usage field is not read: the adapter knows only its own.
    expect(upstreamHalf("gemini").usage({ usage: { prompt_tokens: 1 } })).toBeUndefined();
  });
});

const text = "héllo"; // 6 UTF-8 bytes
const events = {
  openai: {
    text: { data: JSON.stringify({ choices: [{ delta: { content: text } }] }) },
    tool: { data: JSON.stringify({ choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: "{" } }] } }] }) },
    done: { data: "[DONE]" },
  },
  anthropic: {
    text: { event: "content_block_delta", data: JSON.stringify({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }) },
    tool: { event: "content_block_delta", data: JSON.stringify({ type: "content_block_delta", index: 1, delta: { type: "thinking_delta", thinking: "" } }) },
    done: { event: "message_stop", data: JSON.stringify({ type: "message_stop" }) },
  },
  gemini: {
    text: { data: JSON.stringify({ candidates: [{ content: { parts: [{ text }] } }] }) },
    tool: { data: JSON.stringify({ candidates: [{ content: { parts: [{ functionCall: { name: "f", args: {} } }] } }] }) },
    done: { data: JSON.stringify({ usageMetadata: { promptTokenCount: 1 } }) },
  },
};

describe("watchdog reading per adapter (R13.4, R13.5)", () => {
  it("R13.5 counts UTF-8 bytes of text deltas only, and flags tool or reasoning activity", () => {
    for (const format of FORMATS) {
      const adapter = upstreamHalf(format);
      const { text: textEvent, tool, done } = events[format];
      expect(adapter.textDeltaBytes(textEvent), format).toBe(6);
      expect(adapter.textDeltaBytes(tool), format).toBe(0);
      expect(adapter.textDeltaBytes(done), format).toBe(0);
      expect(adapter.isToolOrReasoningEvent(tool), format).toBe(true);
      expect(adapter.isToolOrReasoningEvent(textEvent), format).toBe(false);
    }
    const thoughtAndText = { data: JSON.stringify({ candidates: [{ content: { parts: [{ text: "thinking…", thought: true }, { text }] } }] }) };
    expect(upstreamHalf("gemini").textDeltaBytes(thoughtAndText)).toBe(6);
  });

  it("R13.4 classifies content, tool or reasoning progress and the end of stream per format", () => {
    const kinds = FORMATS.map((format) => {
      const adapter = upstreamHalf(format);
      const { text: textEvent, tool, done } = events[format];
      const parse = (data: string) => (data === "[DONE]" ? undefined : (JSON.parse(data) as Record<string, unknown>));
      return [adapter.classify(textEvent, parse(textEvent.data)), adapter.classify(tool, parse(tool.data)), adapter.classify(done, parse(done.data))];
    });
    expect(kinds).toEqual([
      ["content", "tool", "done"],
      ["content", "reasoning", "done"],
      ["content", "tool", "usage"],
    ]);
  });
});

describe("same-format stream closing per adapter (R13.3)", () => {
  it("R13.3 an upstream that stops early is closed in its own format: [DONE], open Anthropic blocks and message_stop, nothing for Gemini", () => {
    const ctx = { clientModel: "mine", requestId: "r1" };
    const openai = createStreamTranslator("openai", "openai", ctx);
    openai.push({ data: JSON.stringify({ model: "up", choices: [{ delta: { content: "hi" } }] }) });
    expect(openai.end().map((f) => f.text)).toEqual(["data: [DONE]\n\n"]);

    const anthropic = createStreamTranslator("anthropic", "anthropic", ctx);
    anthropic.push({ event: "message_start", data: JSON.stringify({ type: "message_start", message: { model: "up", usage: { input_tokens: 2, output_tokens: 1 } } }) });
    anthropic.push({ event: "content_block_start", data: JSON.stringify({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }) });
    expect(
      parseSse(
        anthropic
          .end()
          .map((f) => f.text)
          .join(""),
      ),
    ).toEqual([
      { event: "content_block_stop", data: '{"type":"content_block_stop","index":0}' },
      { event: "message_delta", data: '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":1}}' },
      { event: "message_stop", data: '{"type":"message_stop"}' },
    ]);

    const gemini = createStreamTranslator("gemini", "gemini", ctx);
    gemini.push(events.gemini.text);
    expect(gemini.end()).toEqual([]);
  });
});

describe("tool counting per format (R11.7)", () => {
  it("R11.7 counts OpenAI and Anthropic tool lists and Gemini function declarations per group", () => {
    const tools = [{ name: "a" }, { name: "b" }, { name: "c" }];
    expect(clientHalf("openai").toolCount({ tools })).toBe(3);
    expect(clientHalf("anthropic").toolCount({ tools })).toBe(3);
    expect(clientHalf("openai").toolCount({})).toBe(0);
    const gemini = { tools: [{ functionDeclarations: [{ name: "a" }, { name: "b" }] }, { googleSearch: {} }] };
    expect(clientHalf("gemini").toolCount(gemini)).toBe(3);
    expect(clientHalf("gemini").toolCount({ tools: "x" })).toBe(0);
  });
});
