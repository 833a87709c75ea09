import { describe, expect, it } from "vitest";
import { errorBody, errorFrame, estimateInputTokens, isStreamRequest, upstreamPath } from "../../../main/gateway/formats/index.js";
import { fixtureJson, parseSse } from "./helpers.js";

describe("errors in the client's format (R1.5)", () => {
  it("R1.5 OpenAI error bodies carry message, the standard type for the status, our code and extras", () => {
    expect(errorBody("openai", 503, "all_targets_cooling_down", "All targets cooling down", { retryAfter: 30 })).toEqual({
      error: { message: "All targets cooling down", type: "server_error", code: "all_targets_cooling_down", retryAfter: 30 },
    });
    const types = [400, 401, 403, 404, 409, 413, 429, 500, 503, 504].map(
      (status) => (errorBody("openai", status, "upstream_error", "m")["error"] as Record<string, unknown>)["type"],
    );
    expect(types).toEqual([
      "invalid_request_error",
      "authentication_error",
      "permission_error",
      "not_found_error",
      "invalid_request_error",
      "invalid_request_error",
      "rate_limit_error",
      "server_error",
      "server_error",
      "server_error",
    ]);
  });

  it("R1.5 Anthropic error bodies keep the standard Anthropic type for the status and put our code in error.code", () => {
    expect(errorBody("anthropic", 404, "model_not_found", "Unknown model nope")).toEqual({
      type: "error",
      error: { type: "not_found_error", message: "Unknown model nope", code: "model_not_found" },
    });
    const table: [number, string][] = [
      [400, "invalid_request_error"],
      [401, "authentication_error"],
      [403, "permission_error"],
      [404, "not_found_error"],
      [413, "request_too_large"],
      [429, "rate_limit_error"],
      [500, "api_error"],
      [502, "api_error"],
      [503, "overloaded_error"],
      [504, "api_error"],
      [529, "overloaded_error"],
    ];
    for (const [status, type] of table) {
      expect((errorBody("anthropic", status, "upstream_error", "m")["error"] as Record<string, unknown>)["type"]).toBe(type);
    }
  });

  it("R1.5 Gemini error bodies follow Google's status shape with our code as the ErrorInfo reason", () => {
    expect(errorBody("gemini", 429, "rate_limit_error", "slow down")).toEqual({
      error: {
        code: 429,
        message: "slow down",
        status: "RESOURCE_EXHAUSTED",
        details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "rate_limit_error", domain: "switchyard" }],
      },
    });
  });

  it("R13.3 errorFrame is a well-formed mid-stream error event per format", () => {
    const anthropic = errorFrame("anthropic", "stream_content_stall", "No output for 120 s");
    expect(anthropic).toBe('event: error\ndata: {"type":"error","error":{"type":"api_error","message":"No output for 120 s","code":"stream_content_stall"}}\n\n');
    const [evt] = parseSse(anthropic);
    expect(evt?.event).toBe("error");
    const openai = errorFrame("openai", "STREAM_THROUGHPUT_TOO_LOW", "too slow");
    expect(openai).toBe('data: {"error":{"message":"too slow","type":"server_error","code":"STREAM_THROUGHPUT_TOO_LOW"}}\n\n');
    expect(openai).not.toContain("[DONE]");
    expect(JSON.parse(parseSse(errorFrame("anthropic", "all_targets_cooling_down", "wait"))[0].data).error.type).toBe("overloaded_error");
    expect(JSON.parse(parseSse(errorFrame("gemini", "provider_circuit_open", "open"))[0].data).error.code).toBe(503);
  });
});

describe("routing helpers (R1.1, R1.2, R1.4)", () => {
  it("R1.4 builds upstream paths per format, streaming Gemini through alt=sse", () => {
    expect(upstreamPath("openai", "gpt-4o", true)).toBe("/chat/completions");
    expect(upstreamPath("anthropic", "claude-sonnet-4-5", false)).toBe("/v1/messages");
    expect(upstreamPath("gemini", "gemini-2.5-flash", false)).toBe("/models/gemini-2.5-flash:generateContent");
    expect(upstreamPath("gemini", "models/gemini-2.5-pro", true)).toBe("/models/gemini-2.5-pro:streamGenerateContent?alt=sse");
  });

  it("R1.1 recognises streaming requests by stream: true only", () => {
    expect(isStreamRequest("openai", { stream: true })).toBe(true);
    expect(isStreamRequest("anthropic", { stream: true })).toBe(true);
    expect(isStreamRequest("openai", { stream: "true" })).toBe(false);
    expect(isStreamRequest("anthropic", {})).toBe(false);
  });

  it("R1.2 estimates count_tokens as ceil(chars / 4) over system, messages and tools, plus a flat cost per image", () => {
    expect(estimateInputTokens({ system: "abcd", messages: [{ role: "user", content: "efgh" }] })).toEqual({ input_tokens: 2 });
    expect(estimateInputTokens({ messages: [] })).toEqual({ input_tokens: 1 });
    const withImage = estimateInputTokens({ messages: [{ role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }] }] });
    expect(withImage).toEqual({ input_tokens: 1600 });
    const tools = estimateInputTokens({ messages: [], tools: [{ name: "ab", description: "cd", input_schema: { type: "object" } }] });
    expect(tools.input_tokens).toBe(Math.ceil((2 + 2 + JSON.stringify({ type: "object" }).length) / 4));
    const claudeCode = estimateInputTokens(fixtureJson("requests/anthropic-claude-code.json"));
    expect(claudeCode.input_tokens).toBeGreaterThan(1600);
    expect(claudeCode.input_tokens).toBeLessThan(2000);
  });
});
