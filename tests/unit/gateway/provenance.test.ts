// R20.1: the provenance book, the tap that fills it from what clients receive, and the stripping
// of foreign artifacts per client format (integration: tests/integration/gateway/codingAgent).
import { describe, expect, it } from "vitest";
import { blobMark, idMark, ReasoningProvenance } from "../../../main/gateway/features/provenance/book.js";
import { foreignStripped } from "../../../main/gateway/features/provenance/strip.js";
import { artifactTap } from "../../../main/gateway/features/provenance/tap.js";

type Json = Record<string, any>;

function bookWith(entries: Array<[string, string]>): ReasoningProvenance {
  const book = new ReasoningProvenance();
  for (const [mark, connection] of entries) book.remember(mark, connection);
  return book;
}

describe("R20.1 the artifact tap", () => {
  it("R20.1 reads Anthropic signatures and redacted data off JSON text and stream frames, never our own markers", () => {
    const book = new ReasoningProvenance();
    const tap = artifactTap("anthropic", book, () => "conn-a")!;
    tap('event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig\\/1"}}\n\n');
    tap('{"content":[{"type":"redacted_thinking","data":"blob-2"},{"type":"thinking","thinking":"x","signature":"switchyard.reasoning.openai"}]}');
    expect(book.issuedBy(blobMark("sig/1"), "conn-a")).toBe(true);
    expect(book.issuedBy(blobMark("blob-2"), "conn-a")).toBe(true);
    expect(book.issuedBy(blobMark("switchyard.reasoning.openai"), "conn-a")).toBe(false);
  });

  it("R20.1 reads Gemini thought signatures; chat completions have no tap at all", () => {
    const book = new ReasoningProvenance();
    artifactTap("gemini", book, () => "g1")!('data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"f"},"thoughtSignature":"ts-1"}]}}]}\r\n\r\n');
    expect(book.issuedBy(blobMark("ts-1"), "g1")).toBe(true);
    expect(artifactTap("openai", book, () => "g1")).toBeNull();
  });

  it("R20.1 a frame before any connection answers is remembered for none", () => {
    const book = new ReasoningProvenance();
    artifactTap("anthropic", book, () => null)!('{"signature":"s"}');
    expect(book.issuedBy(blobMark("s"), "")).toBe(false);
  });
});

describe("R20.1 stripping what the target did not issue", () => {
  const thinking = (signature: string) => ({ type: "thinking", thinking: "because", signature });

  it("R20.1 Anthropic: every foreign thinking block goes, own ones stay, and a body with nothing foreign is left alone (null)", () => {
    const book = bookWith([[blobMark("own"), "a"]]);
    const body = {
      messages: [
        { role: "user", content: "q" },
        { role: "assistant", content: [thinking("own"), { type: "text", text: "1" }] },
        { role: "user", content: "q2" },
        { role: "assistant", content: [thinking("theirs"), { type: "redacted_thinking", data: "r" }, { type: "text", text: "2" }] },
        { role: "user", content: "q3" },
      ],
    };
    const out = foreignStripped("anthropic", body, book, "a")!;
    expect(out.removed).toBe(2);
    expect((out.body as Json).messages[1].content).toEqual([thinking("own"), { type: "text", text: "1" }]);
    expect((out.body as Json).messages[3].content).toEqual([{ type: "text", text: "2" }]);
    expect(foreignStripped("anthropic", { messages: body.messages.slice(0, 3) }, book, "a")).toBeNull();
    // An artifact nobody here issued is foreign to every connection.
    expect(foreignStripped("anthropic", { messages: body.messages.slice(0, 3) }, book, "b")!.removed).toBe(1);
  });

  it("R20.1 Anthropic: an assistant turn that was only reasoning keeps a text block; thinking stays on outside a tool loop", () => {
    const body = {
      thinking: { type: "enabled", budget_tokens: 1024 },
      messages: [
        { role: "user", content: "q" },
        { role: "assistant", content: [thinking("x")] },
        { role: "user", content: "q2" },
      ],
    };
    const out = foreignStripped("anthropic", body, new ReasoningProvenance(), "a")!;
    expect((out.body as Json).messages[1].content).toEqual([{ type: "text", text: "(reasoning omitted)" }]);
    expect((out.body as Json).thinking).toEqual(body.thinking);
  });

  it("R20.1 Gemini: a foreign signature on a function call becomes the bypass value, on text it is dropped; the bypass value itself is left alone", () => {
    const body = {
      contents: [
        {
          role: "model",
          parts: [
            { text: "t", thoughtSignature: "x" },
            { functionCall: { name: "f", args: {} }, thoughtSignature: "y" },
          ],
        },
        { role: "model", parts: [{ functionCall: { name: "g", args: {} }, thoughtSignature: "skip_thought_signature_validator" }] },
      ],
    };
    const out = foreignStripped("gemini", body, new ReasoningProvenance(), "a")!;
    expect(out.plain).toBe(2);
    expect((out.body as Json).contents[0].parts).toEqual([{ text: "t" }, { functionCall: { name: "f", args: {} }, thoughtSignature: "skip_thought_signature_validator" }]);
    expect((out.body as Json).contents[1]).toBe(body.contents[1]);
  });

  it("R20.1 R16.7 Responses: a reasoning item goes unless this connection issued its blob and its id", () => {
    const book = bookWith([
      [blobMark("enc"), "a"],
      [idMark("rs_1"), "a"],
    ]);
    const input = [
      { type: "reasoning", id: "rs_1", encrypted_content: "enc" },
      { type: "reasoning", id: "rs_2", encrypted_content: "enc" },
      { type: "message", role: "user", content: "hi" },
    ];
    const out = foreignStripped("openai-responses", { input }, book, "a")!;
    expect((out.body as Json).input).toEqual([input[0], input[2]]);
    expect(foreignStripped("openai-responses", { input: [input[0]] }, book, "a")).toBeNull();
  });
});
