import { describe, expect, it } from "vitest";
import { StreamTranscript, textOfFrame } from "../../../main/gateway/context/streamTranscript.js";
import type { OutFrame } from "../../../main/gateway/formats/index.js";

const delta = (text: string): OutFrame => ({
  kind: "content",
  text: `event: content_block_delta\ndata: ${JSON.stringify({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } })}\n\n`,
});
const lifecycle = (event: string): OutFrame => ({ kind: "lifecycle", text: `event: ${event}\ndata: {"type":"${event}"}\n\n` });
const textOf = (frames: OutFrame[] | null) => (frames ?? []).map((f) => textOfFrame("anthropic", f)).join("");

function broken(sent: string[]): StreamTranscript {
  const t = StreamTranscript.for("anthropic", true)!;
  t.record(sent.map(delta));
  expect(t.breakAfterOutput()).toBe(true);
  return t;
}

describe("mid-stream stitching (R13.3)", () => {
  it("R13.3 the continuation's own message start is dropped and its new text goes out", () => {
    const stitch = broken(["The", " quick"]).stitch();
    const out = stitch.filter([lifecycle("message_start"), lifecycle("content_block_start"), delta(" brown"), delta(" fox"), lifecycle("content_block_stop")]);
    expect(out?.map((f) => f.kind)).toEqual(["content", "content", "lifecycle"]);
    expect(textOf(out)).toBe(" brown fox");
  });

  it("R13.3 a continuation that restarts from the top never repeats what the client has", () => {
    const t = broken(["The", " quick"]);
    const stitch = t.stitch();
    expect(textOf(stitch.filter([delta("The")]))).toBe("");
    expect(textOf(stitch.filter([delta(" qu")]))).toBe("");
    expect(textOf(stitch.filter([delta("ick brown")]))).toBe(" brown");
    expect(t.text).toBe("The quick brown");
  });

  it("R13.3 whitespace the prefill could not carry is not sent twice", () => {
    const t = broken(["The", " quick "]);
    expect(t.continuationBody({ messages: [{ role: "user", content: "hi" }], thinking: { type: "enabled" } })).toEqual({
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: "The quick" },
      ],
    });
    expect(textOf(t.stitch().filter([delta(" brown")]))).toBe("brown");
  });

  it("R13.3 never after a tool call or reasoning, and a continuation turning into one is refused", () => {
    const t = StreamTranscript.for("anthropic", true)!;
    t.record([delta("Let me look"), { kind: "tool", text: "event: content_block_start\ndata: {}\n\n" }]);
    expect(t.breakAfterOutput()).toBe(false);
    expect(
      broken(["Hi"])
        .stitch()
        .filter([{ kind: "tool", text: "data: {}\n\n" }]),
    ).toBeNull();
    // R17.4: Gemini clients are continued too; Responses streams (numbered, one final object) are not.
    expect(StreamTranscript.for("gemini", true)).not.toBeNull();
    expect(StreamTranscript.for("openai-responses", true)).toBeNull();
    expect(StreamTranscript.for("anthropic", false)).toBeNull();
  });
});
