// A same-format request body passed on as received, only its model replaced (issue 12).
import { describe, expect, it } from "vitest";
import { requestTextWithModel } from "../../../main/gateway/formats/passthrough.js";

describe("same-format request text", () => {
  it("R1.4 replaces only the top-level model and keeps every other byte as the client sent it", () => {
    const raw = '{"model":"sim/m","messages":[{"role":"user","content":"say \\"model\\": hi"}],"x_unknown":  1}';
    const out = requestTextWithModel(raw, "sim/m", "gpt-4o")!;
    expect(JSON.parse(out)).toEqual({ ...JSON.parse(raw), model: "gpt-4o" });
    expect(out).toBe(raw.replace('"sim/m"', '"gpt-4o"'));
  });

  it.each([
    ["a second \"model\" key (nested)", '{"model":"a/b","metadata":{"model":"a/b"}}'],
    ["spacing after the colon", '{"model": "a/b"}'],
    ["a value other than the parsed model", '{"model":"a\\/b"}'],
  ])("R1.4 falls back to serialising on %s", (_case, raw) => {
    expect(requestTextWithModel(raw, "a/b", "up")).toBeNull();
  });
});
