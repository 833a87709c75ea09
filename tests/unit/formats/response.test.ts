import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { extractUsage, translateResponse } from "../../../main/gateway/formats/index.js";
import { expectGolden, fixtureJson } from "./helpers.js";

const ctx = { clientModel: "my-alias", requestId: "req-42" };
const anthropicTool = () => fixtureJson("responses/anthropic-tool-use.json");
const openaiReasoning = () => fixtureJson("responses/openai-reasoning-tools.json");
const geminiThought = () => fixtureJson("responses/gemini-thought-function-call.json");

describe("JSON response translation (R1.4)", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2025-06-01T12:00:00Z"));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("R1.4 translates an Anthropic thinking + tool_use message for OpenAI and Gemini clients (golden)", () => {
    expectGolden("responses/anthropic-tool-use.to-openai.json", translateResponse("anthropic", "openai", anthropicTool(), ctx));
    expectGolden("responses/anthropic-tool-use.to-gemini.json", translateResponse("anthropic", "gemini", anthropicTool(), ctx));
  });

  it("R1.4 translates a DeepSeek-style reasoning + tool_calls completion for Anthropic and Gemini clients (golden)", () => {
    expectGolden("responses/openai-reasoning-tools.to-anthropic.json", translateResponse("openai", "anthropic", openaiReasoning(), ctx));
    expectGolden("responses/openai-reasoning-tools.to-gemini.json", translateResponse("openai", "gemini", openaiReasoning(), ctx));
  });

  it("R1.4 translates a Gemini thought + functionCall response for Anthropic and OpenAI clients (golden)", () => {
    expectGolden("responses/gemini-thought-function-call.to-anthropic.json", translateResponse("gemini", "anthropic", geminiThought(), ctx));
    expectGolden("responses/gemini-thought-function-call.to-openai.json", translateResponse("gemini", "openai", geminiThought(), ctx));
  });

  it("R1.4 reports the client's model, never the upstream id, in every direction", () => {
    for (const [from, body] of [
      ["anthropic", anthropicTool()],
      ["openai", openaiReasoning()],
      ["gemini", geminiThought()],
    ] as const) {
      for (const to of ["openai", "anthropic"] as const) {
        const out = translateResponse(from, to, body, ctx);
        expect(out["model"]).toBe("my-alias");
        expect(JSON.stringify(out)).not.toMatch(/claude-sonnet-4-5-20250929|deepseek-reasoner|gemini-2\.5-flash/);
      }
    }
  });

  it("R1.4 same-format responses are returned unchanged except the model", () => {
    const body = anthropicTool();
    expect(translateResponse("anthropic", "anthropic", body, ctx)).toEqual({ ...body, model: "my-alias" });
    const openai = openaiReasoning();
    expect(translateResponse("openai", "openai", openai, ctx)).toEqual({ ...openai, model: "my-alias" });
  });

  it("R1.4 Anthropic tool_use round-trips to OpenAI tool_calls with ids preserved", () => {
    const openai = translateResponse("anthropic", "openai", anthropicTool(), ctx);
    const call = (openai["choices"] as any[])[0].message.tool_calls[0];
    expect(call).toEqual({
      id: "toolu_01A09q90qw90lq917835lq9",
      type: "function",
      function: { name: "get_weather", arguments: '{"location":"San Francisco, CA","unit":"celsius"}' },
    });
    const back = translateResponse("openai", "anthropic", openai, ctx);
    expect((back["content"] as any[]).find((b) => b.type === "tool_use")).toEqual({
      type: "tool_use",
      id: "toolu_01A09q90qw90lq917835lq9",
      name: "get_weather",
      input: { location: "San Francisco, CA", unit: "celsius" },
    });
  });

  it("R1.4 synthesises stable ids for Gemini function calls (same ids in JSON as in the stream)", () => {
    const first = translateResponse("gemini", "anthropic", geminiThought(), ctx);
    const second = translateResponse("gemini", "anthropic", geminiThought(), ctx);
    const ids = (first["content"] as any[]).filter((b) => b.type === "tool_use").map((b) => b.id);
    expect(ids).toEqual(["call_req-42_0", "call_req-42_1"]);
    expect((second["content"] as any[]).filter((b) => b.type === "tool_use").map((b) => b.id)).toEqual(ids);
    const withIds = geminiThought();
    (withIds as any).candidates[0].content.parts[2].functionCall.id = "fc-upstream";
    expect((translateResponse("gemini", "openai", withIds, ctx)["choices"] as any[])[0].message.tool_calls[0].id).toBe("fc-upstream");
  });

  it("R1.4 maps stop reasons: end_turn/stop, max_tokens/length, tool_use/tool_calls, stop_sequence/stop, Gemini STOP/MAX_TOKENS/SAFETY", () => {
    const anthropic = (stop_reason: string, stop_sequence: string | null = null) => ({ ...anthropicTool(), content: [{ type: "text", text: "x" }], stop_reason, stop_sequence });
    const finish = (out: Record<string, unknown>) => (out["choices"] as any[])[0].finish_reason;
    expect(finish(translateResponse("anthropic", "openai", anthropic("end_turn"), ctx))).toBe("stop");
    expect(finish(translateResponse("anthropic", "openai", anthropic("max_tokens"), ctx))).toBe("length");
    expect(finish(translateResponse("anthropic", "openai", anthropic("tool_use"), ctx))).toBe("tool_calls");
    expect(finish(translateResponse("anthropic", "openai", anthropic("stop_sequence", "END"), ctx))).toBe("stop");
    expect(finish(translateResponse("anthropic", "openai", anthropic("refusal"), ctx))).toBe("content_filter");
    const openai = (finish_reason: string) => ({ ...openaiReasoning(), choices: [{ index: 0, message: { role: "assistant", content: "x" }, finish_reason }] });
    expect(translateResponse("openai", "anthropic", openai("stop"), ctx)["stop_reason"]).toBe("end_turn");
    expect(translateResponse("openai", "anthropic", openai("length"), ctx)["stop_reason"]).toBe("max_tokens");
    expect(translateResponse("openai", "anthropic", openai("tool_calls"), ctx)["stop_reason"]).toBe("tool_use");
    expect(translateResponse("openai", "anthropic", openai("content_filter"), ctx)["stop_reason"]).toBe("refusal");
    const gemini = (finishReason: string) => ({ candidates: [{ content: { role: "model", parts: [{ text: "x" }] }, finishReason }] });
    expect(translateResponse("gemini", "anthropic", gemini("STOP"), ctx)["stop_reason"]).toBe("end_turn");
    expect(translateResponse("gemini", "anthropic", gemini("MAX_TOKENS"), ctx)["stop_reason"]).toBe("max_tokens");
    expect(translateResponse("gemini", "anthropic", gemini("SAFETY"), ctx)["stop_reason"]).toBe("refusal");
    expect(finish(translateResponse("gemini", "openai", gemini("SAFETY"), ctx))).toBe("content_filter");
    expect(translateResponse("gemini", "anthropic", { promptFeedback: { blockReason: "SAFETY" } }, ctx)["stop_reason"]).toBe("refusal");
    const stopSequence = translateResponse("anthropic", "anthropic", anthropic("stop_sequence", "END"), ctx);
    expect(stopSequence["stop_sequence"]).toBe("END");
  });

  it("R1.4 maps usage: cache reads ⇄ prompt_tokens_details.cached_tokens, Gemini thoughts counted as output", () => {
    const openai = translateResponse("anthropic", "openai", anthropicTool(), ctx);
    expect(openai["usage"]).toEqual({ prompt_tokens: 2572, completion_tokens: 91, total_tokens: 2663, prompt_tokens_details: { cached_tokens: 2000 } });
    const anthropic = translateResponse("openai", "anthropic", openaiReasoning(), ctx);
    expect(anthropic["usage"]).toEqual({ input_tokens: 176, cache_creation_input_tokens: 0, cache_read_input_tokens: 1024, output_tokens: 80 });
    const fromGemini = translateResponse("gemini", "anthropic", geminiThought(), ctx);
    expect(fromGemini["usage"]).toEqual({ input_tokens: 44, cache_creation_input_tokens: 0, cache_read_input_tokens: 256, output_tokens: 160 });
  });

  it("R1.4 extracts usage from each format's JSON, cache tokens included", () => {
    expect(extractUsage("anthropic", anthropicTool())).toEqual({ inputTokens: 2572, outputTokens: 91, cacheReadTokens: 2000, cacheCreationTokens: 100 });
    expect(extractUsage("openai", openaiReasoning())).toEqual({ inputTokens: 1200, outputTokens: 80, cacheReadTokens: 1024, reasoningTokens: 50 });
    expect(extractUsage("gemini", geminiThought())).toEqual({ inputTokens: 300, outputTokens: 160, cacheReadTokens: 256, reasoningTokens: 120 });
    expect(extractUsage("openai", { choices: [] })).toEqual({ inputTokens: null, outputTokens: null });
    expect(extractUsage("anthropic", "not json")).toEqual({ inputTokens: null, outputTokens: null });
  });

  it("R1.4 thinking from another upstream reaches Anthropic clients with a marker signature", () => {
    const anthropic = translateResponse("openai", "anthropic", openaiReasoning(), ctx);
    expect((anthropic["content"] as any[])[0]).toEqual({
      type: "thinking",
      thinking: "The user asks for Paris weather; call get_weather.",
      signature: "switchyard.reasoning.openai",
    });
    const openai = translateResponse("anthropic", "openai", anthropicTool(), ctx);
    expect((openai["choices"] as any[])[0].message.reasoning_content).toBe("The user wants the weather; I'll call the tool.");
  });

  it("R1.4 never crashes on malformed upstream JSON", () => {
    for (const from of ["openai", "anthropic", "gemini"] as const) {
      for (const to of ["openai", "anthropic", "gemini"] as const) {
        for (const body of [null, 42, "x", [], {}, { choices: "nope", content: 5, candidates: [null] }]) {
          expect(() => translateResponse(from, to, body, ctx)).not.toThrow();
        }
      }
    }
  });
});
