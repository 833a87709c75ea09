// Golden files for the translation pairs with a Gemini client on the receiving side that the
// other golden tests do not cover (issue 23; R17.2, R17.4): a Responses upstream's stream and JSON
// answer for a Gemini client, and a Gemini client's function-calling request for a Responses
// upstream. Goldens are compared byte for byte (`UPDATE_GOLDEN=1` rewrites them, then they are
// reviewed by hand); the semantic checks below say what in them matters.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { translateRequest, translateResponse } from "../../../main/gateway/formats/index.js";
import { expectGolden, fixtureJson, fixtureText, parseSse, runStream } from "./helpers.js";

type Json = Record<string, any>;

const ctx = { clientModel: "my-alias", requestId: "req-7" };
const responsesSse = () => fixtureText("streams/responses-reasoning-tools.sse");
const responsesJson = () => fixtureJson("responses/responses-reasoning-tools.json");
const geminiCalls = () => fixtureJson("requests/gemini-function-calling.json");

/** The data frames of a Gemini SSE stream, parsed (Gemini streams carry no event names). */
function geminiChunks(text: string): Json[] {
  const events = parseSse(text);
  for (const e of events) expect(e.event).toBeUndefined();
  return events.map((e) => JSON.parse(e.data) as Json);
}

function partsOf(chunks: Json[]): Json[] {
  return chunks.flatMap((c) => ((c.candidates ?? []) as Json[]).flatMap((cand) => (cand.content?.parts ?? []) as Json[]));
}

describe("Gemini clients: goldens for the pairs not covered elsewhere (R17.2, R17.4)", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2025-06-01T12:00:00Z"));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("R17.4 translates a Responses reasoning + function + custom tool stream for a Gemini client (golden)", () => {
    const { text, translator } = runStream("openai-responses", "gemini", ctx, responsesSse());
    expectGolden("streams/responses-reasoning-tools.to-gemini.sse", text);
    // Every frame is a bare `data:` line with a GenerateContentResponse, blank-line separated.
    expect(
      text
        .split("\n\n")
        .filter(Boolean)
        .every((frame) => frame.startsWith("data: {")),
    ).toBe(true);
    const chunks = geminiChunks(text);
    const parts = partsOf(chunks);
    const thought = parts
      .filter((p) => p.thought === true)
      .map((p) => p.text)
      .join("");
    expect(thought).toBe("**Reading the file**\n\nCheck the greeting, then patch it.");
    const answer = parts
      .filter((p) => typeof p.text === "string" && p.thought !== true)
      .map((p) => p.text)
      .join("");
    expect(answer).toBe("Reading hello.txt first.");
    const calls = parts.filter((p) => p.functionCall).map((p) => p.functionCall);
    expect(calls.map((c) => c.name)).toEqual(["exec_command", "apply_patch"]);
    expect(calls[0]!.args).toEqual({ cmd: "cat hello.txt" });
    // The custom tool's raw input reaches a Gemini client as a one-string argument.
    expect(Object.values(calls[1]!.args as Json)).toEqual(['*** Begin Patch\n*** Update File: hello.txt\n@@\n-hello\n+hello, "world"\n*** End Patch\n']);
    const last = chunks.at(-1)!;
    expect(last.candidates[0].finishReason).toBe("STOP");
    expect(last.usageMetadata).toMatchObject({ promptTokenCount: expect.any(Number), candidatesTokenCount: expect.any(Number), totalTokenCount: expect.any(Number) });
    for (const c of chunks) expect(c.modelVersion).toBe("my-alias");
    expect(translator.hasContent()).toBe(true);
  });

  it("R17.2 translates a Responses JSON answer with reasoning, text and tool calls for a Gemini client (golden)", () => {
    const out = translateResponse("openai-responses", "gemini", responsesJson(), ctx) as Json;
    expectGolden("responses/responses-reasoning-tools.to-gemini.json", out);
    const candidate = out.candidates[0] as Json;
    expect(candidate.content.role).toBe("model");
    const parts = candidate.content.parts as Json[];
    expect(
      parts
        .filter((p) => p.thought === true)
        .map((p) => p.text)
        .join("\n"),
    ).toContain("**Reading the file**");
    expect(parts.find((p) => typeof p.text === "string" && p.thought !== true)?.text).toBe("Reading hello.txt first.");
    expect(parts.filter((p) => p.functionCall).map((p) => p.functionCall.name)).toEqual(["exec_command", "apply_patch"]);
    expect(candidate.finishReason).toBe("STOP");
    // Cached and reasoning tokens keep their own Gemini fields.
    expect(out.usageMetadata).toMatchObject({ promptTokenCount: 5120, cachedContentTokenCount: 4096, thoughtsTokenCount: 128 });
    expect(out.modelVersion).toBe("my-alias");
  });

  it("R17.2 translates a Gemini function-calling request for a Responses upstream (golden)", () => {
    const out = translateRequest("gemini", "openai-responses", geminiCalls(), "gpt-5-codex");
    expectGolden("requests/gemini-function-calling.to-openai-responses.json", out);
    const body = out.body as Json;
    expect(body.model).toBe("gpt-5-codex");
    expect(JSON.stringify(body.instructions ?? body.input)).toContain("You are a lighting assistant.");
    const input = body.input as Json[];
    const call = input.find((i) => i.type === "function_call")!;
    const output = input.find((i) => i.type === "function_call_output")!;
    expect(call).toMatchObject({ name: "set_light_values" });
    expect(JSON.parse(call.arguments)).toEqual({ brightness: 25, color_temp: "warm" });
    expect(output.call_id).toBe(call.call_id);
    expect(JSON.parse(output.output)).toEqual({ brightness: 25, colorTemperature: "warm" });
    expect((body.tools as Json[]).find((t) => t.name === "set_light_values")).toMatchObject({ type: "function" });
    expect(body.max_output_tokens).toBe(1024);
    expect(body.temperature).toBe(0.7);
  });
});
