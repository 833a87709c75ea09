// Issue 26 item 7: the rule of quotaPreflightCutoff (R10.2), pure: a connection's remaining share
// is its tightest learned window still in force; it is passed over at or below the cutoff while a
// sibling has more (a sibling nothing is known of is not known to be low).
import { describe, expect, it } from "vitest";
import { passedOverForQuota, remainingPercentOf, RemainingQuota, UNDATED_WINDOW_TRUST_MS, type QuotaWindowFacts } from "../../../main/engine/quotaCutoff.js";

const T0 = 1_700_000_000_000;
const win = (over: Partial<QuotaWindowFacts>): QuotaWindowFacts => ({ window: "requests", usedPercent: null, remaining: null, limit: null, resetAt: null, ...over });

describe("quotaPreflightCutoff rule", () => {
  it("R10.2 a window's remaining share comes from its used percent or from remaining/limit; a window with neither says nothing", () => {
    expect(remainingPercentOf(win({ usedPercent: 97 }))).toBe(3);
    expect(remainingPercentOf(win({ remaining: 4, limit: 200 }))).toBe(2);
    expect(remainingPercentOf(win({ remaining: 4, limit: 0 }))).toBeNull();
    expect(remainingPercentOf(win({ remaining: 4 }))).toBeNull();
    expect(remainingPercentOf(win({ usedPercent: 120 }))).toBe(0);
  });

  it("R10.2 passed over at or below the cutoff only while a sibling has more; the highest of equals is never passed over", () => {
    const low = { remainingPercent: 5, resetAt: null };
    expect(passedOverForQuota(low, 5, [{ remainingPercent: 40, resetAt: null }])).toBe(true);
    expect(passedOverForQuota(low, 5, [null])).toBe(true);
    expect(passedOverForQuota(low, 4.9, [{ remainingPercent: 40, resetAt: null }])).toBe(false);
    expect(
      passedOverForQuota(low, 5, [
        { remainingPercent: 5, resetAt: null },
        { remainingPercent: 2, resetAt: null },
      ]),
    ).toBe(false);
    expect(passedOverForQuota(low, 5, [])).toBe(false);
    expect(passedOverForQuota(null, 5, [{ remainingPercent: 90, resetAt: null }])).toBe(false);
  });

  it("R10.2 a connection's share is its tightest window in force: a window past its reset, or undated past its trust, says nothing; a deleted connection is forgotten", () => {
    const book = new RemainingQuota();
    book.learn("c1", [win({ window: "requests", remaining: 90, limit: 100, resetAt: T0 + 60_000 }), win({ window: "tokens", remaining: 3, limit: 100, resetAt: T0 + 1_000 })], T0);
    expect(book.shareOf("c1", T0)).toEqual({ remainingPercent: 3, resetAt: T0 + 1_000 });
    expect(book.shareOf("c1", T0 + 1_000)).toEqual({ remainingPercent: 90, resetAt: T0 + 60_000 });
    expect(book.shareOf("c1", T0 + 60_000)).toBeNull();
    book.learn("c2", [win({ window: "5h", usedPercent: 99 })], T0);
    expect(book.shareOf("c2", T0 + UNDATED_WINDOW_TRUST_MS - 1)).toEqual({ remainingPercent: 1, resetAt: null });
    expect(book.shareOf("c2", T0 + UNDATED_WINDOW_TRUST_MS)).toBeNull();
    book.learn("c3", [win({ window: "5h", usedPercent: 50, resetAt: T0 + 5_000 })], T0);
    book.forget("c3");
    expect(book.shareOf("c3", T0)).toBeNull();
    expect(book.shareOf("never", T0)).toBeNull();
  });
});
