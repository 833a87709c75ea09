import { describe, expect, it } from "vitest";
import { parseResetAt } from "../../../main/engine/retryHints.js";
import { jitteredWaitMs, UsageWallBook, USAGE_WALL, waitBudgetMs } from "../../../main/engine/usageWall.js";
import { readWallAnswer } from "../../../main/gateway/formats/anthropic/usageWall.js";
import { T0 } from "./fixtures.js";

const wall = {
  "anthropic-ratelimit-unified-status": "rejected",
  "anthropic-ratelimit-unified-slow-offer": "treatment",
  "anthropic-ratelimit-unified-reset": String(T0 / 1000 + 3_600),
};

describe("usage wall answers (R12.6)", () => {
  it("R12.6 a 429 with unified-status rejected is the wall; the offer and the announced reset are read", () => {
    expect(readWallAnswer(429, wall)).toEqual({ kind: "wall", offer: true, resetAt: T0 + 3_600_000 });
    expect(readWallAnswer(429, { "anthropic-ratelimit-unified-status": "rejected" })).toEqual({ kind: "wall", offer: false, resetAt: null });
    expect(readWallAnswer(429, { "retry-after": "5" })).toEqual({ kind: "other" });
    expect(readWallAnswer(200, {})).toEqual({ kind: "other" });
  });

  it("R12.6 slot_busy and 529 wait the slow retry-after (default 20 s, 5–600 s) bounded by max-wait (default 20 min, 1 min–6 h)", () => {
    expect(readWallAnswer(429, { "anthropic-ratelimit-unified-slow-status": "slot_busy" })).toEqual({ kind: "slot_busy", retryAfterMs: 20_000, maxWaitMs: 1_200_000 });
    expect(readWallAnswer(529, { "anthropic-ratelimit-unified-slow-retry-after": "1", "anthropic-ratelimit-unified-slow-max-wait": "30" })).toEqual({
      kind: "slot_busy",
      retryAfterMs: 5_000,
      maxWaitMs: 60_000,
    });
    expect(readWallAnswer(529, { "anthropic-ratelimit-unified-slow-retry-after": "9999", "anthropic-ratelimit-unified-slow-max-wait": "99999" })).toEqual({
      kind: "slot_busy",
      retryAfterMs: 600_000,
      maxWaitMs: 21_600_000,
    });
  });

  it("R12.6 weekly_limit, budget_exhausted, off, ineligible and paid overage end the lane", () => {
    for (const status of ["weekly_limit", "budget_exhausted", "off", "ineligible"]) {
      expect(readWallAnswer(429, { "anthropic-ratelimit-unified-slow-status": status })).toEqual({ kind: "lane_end", reason: status });
    }
    expect(readWallAnswer(200, { "anthropic-ratelimit-unified-slow-status": "ineligible", "anthropic-ratelimit-unified-overage-in-use": "true" })).toEqual({
      kind: "lane_end",
      reason: "extra_usage",
    });
  });

  it("R12.6 the jitter stays within ±30 % and the wait budget is min(max-wait, request timeout − 5 s) minus what was waited", () => {
    expect([0, 0.5, 0.999999].map((r) => jitteredWaitMs(20_000, r))).toEqual([14_000, 20_000, 26_000]);
    expect(waitBudgetMs(1_200_000, 600_000, 0)).toBe(595_000);
    expect(waitBudgetMs(60_000, 600_000, 50_000)).toBe(10_000);
    expect(waitBudgetMs(60_000, 0, 0)).toBe(60_000);
    expect(parseResetAt("1700000000")).toBe(1_700_000_000_000);
    expect(parseResetAt("1700000000000")).toBe(1_700_000_000_000);
  });
});

describe("usage wall state (R12.6)", () => {
  it("R12.6 the lane runs until the announced reset + 60 s, then reads as over", () => {
    const book = new UsageWallBook();
    expect(book.enterLane("c1", T0 + 3_600_000, T0)).toBe(true);
    expect(book.laneUntil("c1", T0)).toBe(T0 + 3_660_000);
    expect(book.lanes(T0)).toEqual([{ connectionId: "c1", laneUntil: T0 + 3_660_000 }]);
    expect(book.laneUntil("c1", T0 + 3_660_000)).toBeNull();
    expect(book.laneUntil("c2", T0)).toBeNull();
  });

  it("R12.6 a lane ended by max-wait blocks re-entry for 10 minutes; other ends do not", () => {
    const book = new UsageWallBook();
    book.enterLane("c1", T0 + 3_600_000, T0);
    book.endLane("c1", "max_wait", T0 + 1_000);
    expect(book.laneUntil("c1", T0 + 1_000)).toBeNull();
    expect(book.enterLane("c1", T0 + 3_600_000, T0 + 1_000 + USAGE_WALL.coolOffMs - 1)).toBe(false);
    expect(book.enterLane("c1", T0 + 3_600_000, T0 + 1_000 + USAGE_WALL.coolOffMs)).toBe(true);
    book.endLane("c1", "weekly_limit", T0 + 700_000);
    expect(book.enterLane("c1", T0 + 3_600_000, T0 + 700_001)).toBe(true);
  });

  it("R12.6 autoLimitReset memoises next_available_at and backs off 15 minutes after a failure", () => {
    const book = new UsageWallBook();
    expect(book.resetMayTry("c1", T0)).toBe(true);
    book.noteReset("c1", "failed", null, T0);
    expect(book.resetMayTry("c1", T0 + 899_999)).toBe(false);
    expect(book.resetMayTry("c1", T0 + 900_000)).toBe(true);
    book.noteReset("c1", "already_used", T0 + 86_400_000, T0);
    expect(book.resetMayTry("c1", T0 + 86_399_999)).toBe(false);
    book.noteReset("c2", "not_offered", null, T0);
    expect(book.resetMayTry("c2", T0 + USAGE_WALL.resetNextDefaultMs - 1)).toBe(false);
    book.noteReset("c3", "reset", null, T0);
    expect(book.resetMayTry("c3", T0)).toBe(true);
  });
});
