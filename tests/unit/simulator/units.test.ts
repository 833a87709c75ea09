import { describe, expect, it } from "vitest";
import { readConversation, stringChars } from "../../../main/simulator/conversation.js";
import { FaultBook, InvalidFaultError, parseFault } from "../../../main/simulator/faults.js";
import { chunkText, composeAnswer } from "../../../main/simulator/reply.js";

describe("FaultBook", () => {
  it("R0.5 consumes `times` from the head of a key's FIFO, then moves to the next fault", () => {
    const book = new FaultBook();
    book.add("k", { status: 429, times: 2 });
    book.add("k", { status: 500, times: 1 });
    expect([book.take("k")?.status, book.take("k")?.status, book.take("k")?.status, book.take("k")]).toEqual([429, 429, 500, undefined]);
  });

  it("R0.5 falls back to '*' for keys without a FIFO and for requests with no key", () => {
    const book = new FaultBook();
    book.add("*", { status: 503 });
    book.add("a", { status: 401, times: 1 });
    expect(book.take("a")?.status).toBe(401);
    expect(book.take("a")?.status).toBe(503);
    expect(book.take(null)?.status).toBe(503);
  });

  it("R0.5 copies added faults so later mutation by the caller has no effect, and ignores times: 0", () => {
    const book = new FaultBook();
    const spec = { status: 429, headers: { a: "1" } };
    book.add("k", spec);
    spec.status = 500;
    spec.headers.a = "2";
    expect(book.take("k")).toEqual({ status: 429, headers: { a: "1" } });
    book.clear();
    book.add("k", { status: 429, times: 0 });
    expect(book.take("k")).toBeUndefined();
  });

  it("R0.5 validates untrusted fault specs", () => {
    expect(() => parseFault([])).toThrow(InvalidFaultError);
    expect(() => parseFault({ status: 99 })).toThrow(/status/);
    expect(() => parseFault({ reset: "yes" })).toThrow(/reset/);
    expect(() => parseFault({ headers: { a: 1 } })).toThrow(/headers\.a/);
    expect(parseFault({ status: 429, retryAfter: 1, unknown: true })).toEqual({ status: 429, retryAfter: 1 });
  });
});

describe("reply composition", () => {
  it("R0.5 splits replies into at least three chunks that join back to the text", () => {
    expect(chunkText("Hello from sim (key k)")).toEqual(["Hello", " from", " sim", " (key", " k)"]);
    expect(chunkText("abcdefg")).toEqual(["abc", "def", "g"]);
    expect(chunkText("two words").join("")).toBe("two words");
    expect(chunkText("two words").length).toBeGreaterThanOrEqual(3);
  });

  it("R0.5 estimates input tokens from prompt characters and output tokens from reply words", () => {
    const conv = readConversation("anthropic", { system: "abcd", messages: [{ role: "user", content: "x".repeat(36) }] });
    expect(conv.promptChars).toBe(4 + 4 + 36);
    const answer = composeAnswer(conv, "one two three");
    expect(answer.usage).toEqual({ input: 11, output: 3 });
    expect(stringChars({ a: ["ab", { b: "c" }], n: 5 })).toBe(3);
  });

  it("R0.5 reads the last user turn and first tool in every format", () => {
    expect(readConversation("openai", { messages: [{ role: "user", content: [{ type: "text", text: "use tool" }] }] }).lastTurn).toEqual({
      kind: "user",
      text: "use tool",
    });
    const gem = readConversation("gemini", {
      tools: [{ googleSearch: {} }, { functionDeclarations: [{ name: "f", parametersJsonSchema: { required: ["q"], properties: { q: { type: ["string", "null"] } } } }] }],
      contents: [{ parts: [{ text: "hi" }] }],
    });
    expect(gem.firstTool).toEqual({ name: "f", requiredStrings: ["q"] });
    expect(gem.lastTurn).toEqual({ kind: "user", text: "hi" });
    // R13.3: a trailing assistant message is a prefill the simulated model continues.
    expect(readConversation("anthropic", { messages: [{ role: "assistant", content: "x" }] }).lastTurn).toEqual({ kind: "assistant_prefix", text: "x" });
    expect(readConversation("anthropic", { messages: [{ role: "system", content: "x" }] }).lastTurn.kind).toBe("other");
    expect(readConversation("openai", "not an object").firstTool).toBeNull();
  });
});

describe("prefill (R13.3)", () => {
  it("R13.3 an assistant prefix that starts the answer is continued with the rest; another prefix gets the whole answer", () => {
    const prefixed = (text: string) =>
      composeAnswer(
        readConversation("anthropic", {
          messages: [
            { role: "user", content: "hi" },
            { role: "assistant", content: text },
          ],
        }),
        "The quick brown fox",
      );
    const rest = prefixed("The quick").reply;
    expect(rest.kind === "text" && rest.text).toBe(" brown fox");
    const other = prefixed("Once upon").reply;
    expect(other.kind === "text" && other.text).toBe("The quick brown fox");
  });
});
