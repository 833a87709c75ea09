// R25.1, R25.2: the context windows book: learned windows only lower what modelInfo or the
// catalogue say, the smaller refusal wins, and nothing goes below what a success proved.
import { describe, expect, it } from "vitest";
import { ContextWindows, windowFromRefusal, type ModelWindowRow } from "../../../main/engine/contextWindows.js";

describe("R25.1 context windows", () => {
  it("R25.1 nothing known: the stated window (modelInfo or catalogue) stands, null when none", () => {
    const book = new ContextWindows();
    expect(book.windowOf("p", "m", 128_000)).toBe(128_000);
    expect(book.windowOf("p", "m", null)).toBeNull();
  });

  it("R25.2 a refusal teaches a window below the stated one; the smaller of two refusals wins", () => {
    const book = new ContextWindows();
    expect(book.learn("p", "m", 32_000, 1)).toBe(32_000);
    expect(book.windowOf("p", "m", 128_000)).toBe(32_000);
    expect(book.windowOf("p", "m", null)).toBe(32_000);
    expect(book.learn("p", "m", 64_000, 2)).toBe(32_000);
    expect(book.learn("p", "m", 16_000, 3)).toBe(16_000);
    // A stated window smaller than the learned one stays.
    expect(book.windowOf("p", "m", 8_000)).toBe(8_000);
  });

  it("R25.2 a learned window never shrinks below what a success proved", () => {
    const book = new ContextWindows();
    book.served("p", "m", 20_000, 1);
    expect(book.learn("p", "m", 12_000, 2)).toBe(20_000);
    expect(book.windowOf("p", "m", null)).toBe(20_000);
    // A success past a learned window raises it to what it proved.
    book.served("p", "m", 25_000, 3);
    expect(book.windowOf("p", "m", null)).toBe(25_000);
    // A stated window below a proven input is raised to it too.
    expect(book.windowOf("p", "m", 10_000)).toBe(25_000);
  });

  it("R25.2 a refusal with no numbers teaches just below the prompt's size (stated tokens, else the estimate)", () => {
    expect(windowFromRefusal({ tokens: null, window: null }, 9_000)).toBe(8_999);
    expect(windowFromRefusal({ tokens: 9_500, window: null }, 9_000)).toBe(9_499);
    expect(windowFromRefusal({ tokens: 9_500, window: 8_192 }, 9_000)).toBe(8_192);
  });

  it("R25.1 every change is told to the listener and a book made from the rows knows the same", () => {
    const rows = new Map<string, ModelWindowRow>();
    const book = new ContextWindows();
    book.onChange((row) => rows.set(`${row.provider}/${row.model}`, { ...row }));
    book.learn("p", "m", 8_000, 1);
    book.served("p", "m", 5_000, 2);
    book.served("p", "m", 4_000, 3);
    expect(rows.get("p/m")).toEqual({ provider: "p", model: "m", learnedWindow: 8_000, provenInput: 5_000, updatedAt: 2 });
    const again = new ContextWindows([...rows.values()]);
    expect(again.windowOf("p", "m", 200_000)).toBe(8_000);
    expect(again.learnedOf("p", "m")).toBe(8_000);
  });
});
