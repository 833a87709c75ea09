// R21.6 session charging and R21.7 thresholds of one window: the first reading of a period is the
// baseline, each later rise over the period's high-water mark is charged to its session and
// traffic class, a new reset starts a new period, and 80/95/100 % are each told once per period.
import { describe, expect, it } from "vitest";
import { burnReading, isNewPeriod, newBurn, PERIOD_RESET_TOLERANCE_MS, thresholdOf, topSessions, type WindowBurn } from "../../../main/store/quotaBurn.js";

const RESET = 1_000_000;
const A = { session: "sess-a", trafficClass: "main" };
const B = { session: "sess-b", trafficClass: "main" };

function run(steps: Array<[number | null, { session: string | null; trafficClass: string }, number?]>): { burn: WindowBurn; thresholds: number[] } {
  let burn: WindowBurn | null = null;
  const thresholds: number[] = [];
  for (const [usedPercent, who, resetAt] of steps) {
    const step = burnReading(burn, { usedPercent, resetAt: resetAt ?? RESET }, who);
    burn = step.burn;
    if (step.threshold !== null) thresholds.push(step.threshold);
  }
  return { burn: burn!, thresholds };
}

describe("R21.6 charging a window's rises to sessions", () => {
  it("R21.6 the first reading is the baseline; each rise is charged to the session whose response showed it", () => {
    const { burn } = run([
      [10, A],
      [14, A],
      [20, B],
      [21.5, A],
    ]);
    expect(topSessions(burn)).toEqual([
      { session: "sess-b", usedPercent: 6, requests: 1, byClass: { main: 6 } },
      { session: "sess-a", usedPercent: 5.5, requests: 2, byClass: { main: 5.5 } },
    ]);
  });

  it("R21.6 a reading that went back (answers overtaking each other) charges nothing, and the next rise counts from the high-water mark", () => {
    const { burn } = run([
      [10, A],
      [12, A],
      [11, B],
      [13, A],
    ]);
    // Charged in all: 13 − 10, never more than the window rose.
    expect(topSessions(burn)).toEqual([
      { session: "sess-a", usedPercent: 3, requests: 2, byClass: { main: 3 } },
      { session: "sess-b", usedPercent: 0, requests: 1, byClass: { main: 0 } },
    ]);
  });

  it("R21.6 charges are kept by traffic class and summed per session; requests without a session are one entry", () => {
    const { burn } = run([
      [0, A],
      [2, A],
      [5, { session: "sess-a", trafficClass: "subagent" }],
      [6, { session: null, trafficClass: "background" }],
    ]);
    expect(topSessions(burn)).toEqual([
      { session: "sess-a", usedPercent: 5, requests: 2, byClass: { main: 2, subagent: 3 } },
      { session: null, usedPercent: 1, requests: 1, byClass: { background: 1 } },
    ]);
  });

  it("R21.6 a new reset starts a new period whose first reading is again the baseline; a jitter of the reset does not", () => {
    expect(isNewPeriod(RESET, RESET + PERIOD_RESET_TOLERANCE_MS)).toBe(false);
    expect(isNewPeriod(RESET, RESET + PERIOD_RESET_TOLERANCE_MS + 1)).toBe(true);
    expect(isNewPeriod(null, RESET)).toBe(true);
    expect(isNewPeriod(null, null)).toBe(false);
    const { burn } = run([
      [50, A],
      [60, A],
      [61, B, RESET + 1_000],
      [2, B, RESET + 5 * 3_600_000],
      [3, A, RESET + 5 * 3_600_000],
    ]);
    expect(burn.periodResetAt).toBe(RESET + 5 * 3_600_000);
    expect(topSessions(burn)).toEqual([{ session: "sess-a", usedPercent: 1, requests: 1, byClass: { main: 1 } }]);
  });

  it("R21.6 only the top 10 sessions by share are listed", () => {
    const steps: Array<[number, typeof A]> = [[0, A]];
    for (let i = 1; i <= 12; i++) steps.push([steps[steps.length - 1][0] + i, { session: `s${String(i).padStart(2, "0")}`, trafficClass: "main" }]);
    const list = topSessions(run(steps).burn);
    expect(list).toHaveLength(10);
    expect(list[0].session).toBe("s12");
    expect(list[9].session).toBe("s03");
  });
});

describe("R21.7 thresholds once per window period", () => {
  it("R21.7 80, 95 and 100 % are each told once per period; a jump over several tells the highest", () => {
    expect(
      run([
        [10, A],
        [79.9, A],
        [80, A],
        [85, B],
        [95.5, A],
        [97, A],
        [100, B],
        [100, A],
      ]).thresholds,
    ).toEqual([80, 95, 100]);
    expect(
      run([
        [10, A],
        [96, A],
        [99, A],
      ]).thresholds,
    ).toEqual([95]);
    // A baseline already over a threshold is told (nobody told it in this period yet).
    expect(run([[82, A]]).thresholds).toEqual([80]);
    // A new period tells them again.
    expect(
      run([
        [10, A],
        [81, A],
        [5, A, RESET + 3_600_000],
        [84, A, RESET + 3_600_000],
      ]).thresholds,
    ).toEqual([80, 80]);
  });

  it("R21.7 a period resumed after a restart does not repeat the thresholds its stored reading passed", () => {
    const resumed = newBurn(RESET, 90, thresholdOf(90));
    const steps = [91, 96].map((p) => burnReading(resumed, { usedPercent: p, resetAt: RESET }, A).threshold);
    expect(steps).toEqual([null, 95]);
    expect(thresholdOf(null)).toBe(0);
    expect(thresholdOf(79.99)).toBe(0);
    expect(thresholdOf(100.5)).toBe(100);
  });
});
