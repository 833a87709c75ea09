import { describe, expect, it } from "vitest";
import { sliceOf } from "../../../main/gateway/pipeline/admission/control.js";

describe("cap slices (R19.1)", () => {
  it("R19.1 the slices of a cap add up to it exactly, whatever the group's size, and differ by at most one", () => {
    for (let count = 1; count <= 7; count++) {
      for (let cap = count; cap <= 40; cap++) {
        const slices = Array.from({ length: count }, (_, index) => sliceOf(cap, { index, count }));
        expect(slices.reduce((x, y) => x + y, 0)).toBe(cap);
        expect(Math.max(...slices) - Math.min(...slices)).toBeLessThanOrEqual(1);
        expect(Math.min(...slices)).toBeGreaterThanOrEqual(1);
      }
    }
    expect(sliceOf(5, { index: 0, count: 2 })).toBe(3);
    expect(sliceOf(5, { index: 1, count: 2 })).toBe(2);
  });
});
