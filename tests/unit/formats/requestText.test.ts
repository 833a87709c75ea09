// A same-format request body passed on as received, only its model replaced (issue 12).
import { describe, expect, it } from "vitest";
import { requestTextWithModel, responseTextWithModel } from "../../../main/gateway/formats/passthrough.js";

describe("same-format request text", () => {
  it("R1.4 replaces only the top-level model and keeps every other byte as the client sent it", () => {
    const raw = '{"model":"sim/m","messages":[{"role":"user","content":"say \\"model\\": hi"}],"x_unknown":  1}';
    const out = requestTextWithModel(raw, "sim/m", "gpt-4o")!;
    expect(JSON.parse(out)).toEqual({ ...JSON.parse(raw), model: "gpt-4o" });
    expect(out).toBe(raw.replace('"sim/m"', '"gpt-4o"'));
  });

  it("R20.2 a pretty-printed body (Python's json.dumps spacing) passes byte for byte too, and a role named model is no key", () => {
    const raw = '{\n  "model" : "a/b",\n  "contents": [{"role": "model", "parts": []}]\n}';
    expect(requestTextWithModel(raw, "a/b", "up")).toBe(raw.replace('"a/b"', '"up"'));
  });

  it.each([
    ['a second "model" key (nested)', '{"model":"a/b","metadata":{"model":"a/b"}}'],
    ["a value other than the parsed model", '{"model":"a\\/b"}'],
  ])("R1.4 falls back to serialising on %s", (_case, raw) => {
    expect(requestTextWithModel(raw, "a/b", "up")).toBeNull();
  });
});

describe("same-format answer text (issue 12)", () => {
  it("R1.4 the upstream's JSON text keeps everything but its model, which becomes the client's", () => {
    const text = '{"id":"c1","object":"chat.completion","model":"gpt-4o","choices":[{"message":{"role":"assistant","content":"say \\"model\\": no"}}]}';
    const out = responseTextWithModel("openai", text, JSON.parse(text), "sim/gpt")!;
    expect(JSON.parse(out)).toEqual({ ...JSON.parse(text), model: "sim/gpt" });
    expect(responseTextWithModel("anthropic", '{"type":"message","model":"c"}', { type: "message", model: "c" }, "a/c")).toBe('{"type":"message","model":"a/c"}');
  });

  it("R1.4 text it cannot edit safely is left to serialisation", () => {
    const spaced = '{"model": "m", "choices": []}';
    // R20.2: spacing no longer needs serialising; the upstream's own bytes go on.
    expect(responseTextWithModel("openai", spaced, JSON.parse(spaced), "x/m")).toBe('{"model": "x/m", "choices": []}');
    const twice = '{"model":"m","choices":[{"model":"m"}]}';
    expect(responseTextWithModel("openai", twice, JSON.parse(twice), "x/m")).toBeNull();
    expect(responseTextWithModel("openai", '{"choices":[]}', { choices: [] }, "x/m")).toBeNull();
    expect(responseTextWithModel("gemini", '{"model":"m"}', { model: "m" }, "x/m")).toBeNull();
  });
});
