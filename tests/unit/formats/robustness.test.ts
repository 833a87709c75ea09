import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createStreamTranslator, translateRequest, translateResponse, type WireFormat } from "../../../main/gateway/formats/index.js";

const formats: WireFormat[] = ["openai", "anthropic", "gemini"];
const pairs = formats.flatMap((from) => formats.map((to) => [from, to] as const));

/** JSON values biased towards the keys the translators look at. */
const keys = fc.constantFrom(
  "model",
  "messages",
  "role",
  "content",
  "type",
  "text",
  "tools",
  "tool_calls",
  "tool_choice",
  "system",
  "parts",
  "contents",
  "function",
  "arguments",
  "input",
  "source",
  "thinking",
  "choices",
  "delta",
  "candidates",
  "usage",
  "index",
  "id",
  "name",
);
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.string(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom("user", "assistant", "system", "tool", "model", "text", "image", "tool_use", "tool_result", "function", "auto", "any", "thinking"),
    fc.array(tie("value"), { maxLength: 4 }),
    tie("object"),
  ),
  object: fc.dictionary(keys, tie("value"), { maxKeys: 6 }),
}));

describe("robustness (R1.4: unmappable input is dropped, never a crash)", () => {
  it("R1.4 translateRequest never throws on arbitrary bodies in any direction", () => {
    fc.assert(
      fc.property(json.object, (body) => {
        for (const [from, to] of pairs) {
          const out = translateRequest(from, to, body, "m");
          expect(Array.isArray(out.dropped)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("R1.4 translateResponse and stream translators never throw on arbitrary upstream JSON", () => {
    fc.assert(
      fc.property(fc.array(json.value, { maxLength: 6 }), (events) => {
        for (const [from, to] of pairs) {
          for (const body of events) translateResponse(from, to, body, { clientModel: "c", requestId: "r" });
          const translator = createStreamTranslator(from, to, { clientModel: "c", requestId: "r" });
          for (const body of events) translator.push({ event: "content_block_delta", data: JSON.stringify(body) ?? "null" });
          translator.end();
          translator.usage();
        }
      }),
      { numRuns: 200 },
    );
  });
});
