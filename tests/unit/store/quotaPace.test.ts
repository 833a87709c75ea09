// R21.6: a window's length from its name, and its pace as the straight line from the window's start
// (reset − length) through the last reading: deficit (with the instant it runs out), on pace, or in
// reserve (projected under 80 % at the reset); nothing before 3 % of the window or after its reset.
import { describe, expect, it } from "vitest";
import { formatClockTime, paceText, PACE_RESERVE_BELOW_PERCENT, projectedPercent, quotaPace, textBar, windowLengthMs } from "../../../shared/quotaPace.js";

const H = 3_600_000;
const D = 24 * H;

describe("R21.6 window lengths", () => {
  it("R21.6 windows named by a duration have a length; count windows have none", () => {
    expect(windowLengthMs("5h")).toBe(5 * H);
    expect(windowLengthMs("7d")).toBe(7 * D);
    expect(windowLengthMs("7d_opus")).toBe(7 * D);
    expect(windowLengthMs("7d_sonnet")).toBe(7 * D);
    expect(windowLengthMs("90m")).toBe(90 * 60_000);
    expect(windowLengthMs("gpt-5-codex-5h")).toBe(5 * H);
    for (const w of ["requests", "tokens", "input-tokens", "output-tokens", "unified", "primary", "overage", "0h"]) expect(windowLengthMs(w)).toBeNull();
  });
});

describe("R21.6 pace", () => {
  // A 5-hour window resetting at 10 h: it started at 5 h.
  const resetAt = 10 * H;
  const at = (hoursIn: number, usedPercent: number | null) => ({ usedPercent, resetAt, windowMs: 5 * H, seenAt: 5 * H + hoursIn * H });

  it("R21.6 no pace before 3 % of the window has passed, after its reset, or without its numbers", () => {
    expect(quotaPace(at(0.14, 10), 5 * H + 0.14 * H)).toBeNull(); // 2.8 %
    expect(quotaPace(at(0.16, 10), 5 * H + 0.16 * H)).not.toBeNull(); // 3.2 %
    expect(quotaPace(at(2, 10), resetAt)).toBeNull();
    expect(quotaPace({ ...at(2, 10), windowMs: null }, 7 * H)).toBeNull();
    expect(quotaPace({ ...at(2, 10), resetAt: null }, 7 * H)).toBeNull();
    expect(quotaPace(at(2, null), 7 * H)).toBeNull();
  });

  it("R21.6 deficit when the line reaches 100 % before the reset, with the instant it does", () => {
    // 60 % after 2 h: 30 %/h, 100 % at 3 h 20 min into the window.
    expect(quotaPace(at(2, 60), 7 * H)).toEqual({ state: "deficit", runsOutAt: 5 * H + (10 / 3) * H });
    expect(projectedPercent(at(2, 60))).toBeCloseTo(150, 9);
    // Already used up: it ran out at (or before) the reading.
    const out = quotaPace(at(4, 100), 9.5 * H)!;
    expect(out.state).toBe("deficit");
    expect(out.runsOutAt).toBe(9 * H);
  });

  it("R21.6 on pace from 80 % to 100 % projected, reserve under it (the threshold is PACE_RESERVE_BELOW_PERCENT)", () => {
    expect(PACE_RESERVE_BELOW_PERCENT).toBe(80);
    expect(quotaPace(at(2, 40), 7 * H)).toEqual({ state: "on_pace" }); // 100 % exactly: lasts
    expect(quotaPace(at(2, 32), 7 * H)).toEqual({ state: "on_pace" }); // 80 %
    expect(quotaPace(at(2, 31.9), 7 * H)).toEqual({ state: "reserve" });
    expect(quotaPace(at(2, 0), 7 * H)).toEqual({ state: "reserve" });
    expect(quotaPace(at(2, 40.1), 7 * H)?.state).toBe("deficit");
  });

  it("R21.6 the pace reads in words and the tray draws a text bar", () => {
    const now = new Date(2026, 11, 3, 12, 0).getTime();
    const soon = new Date(2026, 11, 3, 15, 40).getTime();
    expect(paceText({ state: "deficit", runsOutAt: soon }, now)).toBe("runs out at 15:40 at this pace");
    expect(paceText({ state: "deficit", runsOutAt: new Date(2026, 11, 4, 9, 5).getTime() }, now)).toBe("runs out at Fri 09:05 at this pace");
    expect(paceText({ state: "deficit", runsOutAt: now - 1 }, now, 100)).toBe("used up until the reset");
    expect(paceText({ state: "on_pace" }, now)).toBe("lasts until the reset");
    expect(paceText({ state: "reserve" }, now)).toBe("lasts until the reset, with room to spare");
    expect(paceText(null, now)).toBeNull();
    expect(formatClockTime(soon, now)).toBe("15:40");
    expect(textBar(0)).toBe("░░░░░░░░░░");
    expect(textBar(62)).toBe("██████░░░░");
    expect(textBar(140)).toBe("██████████");
  });
});
