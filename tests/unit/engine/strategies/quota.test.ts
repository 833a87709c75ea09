// Strategies that read the quota learned from response headers.
import { describe, expect, it } from "vitest";
import { order as headroom } from "../../../../main/engine/strategies/headroom.js";
import { order as resetAware } from "../../../../main/engine/strategies/reset-aware.js";
import { order as resetWindow } from "../../../../main/engine/strategies/reset-window.js";
import { cand, keys, NOW, statsView } from "./fixtures.js";

const MIN = 60_000;

describe("quota strategies (R11.1)", () => {
  it("R11.1 reset-aware: quota resetting soonest first, then unknown, then exhausted (back soonest first)", () => {
    const list = [
      cand("unknown", 0),
      cand("resets-in-30", 1, { quota: { remaining: 50, resetAt: NOW + 30 * MIN } }),
      cand("exhausted-5", 2, { quota: { remaining: 0, resetAt: NOW + 5 * MIN } }),
      cand("resets-in-2", 3, { quota: { remaining: 5, resetAt: NOW + 2 * MIN } }),
      cand("exhausted-1", 4, { quota: { remaining: 0, resetAt: NOW + 1 * MIN } }),
    ];
    expect(keys(resetAware(list, statsView(), NOW))).toEqual(["resets-in-2", "resets-in-30", "unknown", "exhausted-1", "exhausted-5"]);
  });

  it("R11.1 reset-aware: a reset in the past makes the quota stale, so that target ranks as unknown", () => {
    const list = [cand("stale", 0, { quota: { remaining: 0, resetAt: NOW - 1 } }), cand("soon", 1, { quota: { remaining: 9, resetAt: NOW + MIN } })];
    expect(keys(resetAware(list, statsView(), NOW))).toEqual(["soon", "stale"]);
  });

  it("R11.1 reset-window: the most quota per remaining second leads, exhausted last", () => {
    const list = [
      cand("exhausted", 0, { quota: { remaining: 0, resetAt: NOW + MIN } }),
      cand("100-over-60m", 1, { quota: { remaining: 100, resetAt: NOW + 60 * MIN } }),
      cand("20-over-1m", 2, { quota: { remaining: 20, resetAt: NOW + MIN } }),
      cand("no-reset", 3, { quota: { remaining: 1_000 } }),
    ];
    expect(keys(resetWindow(list, statsView(), NOW))).toEqual(["20-over-1m", "100-over-60m", "no-reset", "exhausted"]);
  });

  it("R11.1 headroom: largest share of quota left first, unknown next, exhausted last", () => {
    const list = [
      cand("exhausted", 0, { quota: { remaining: 0, limit: 10 } }),
      cand("half", 1, { quota: { remaining: 500, limit: 1_000 } }),
      cand("no-limit", 2, { quota: { remaining: 400 } }),
      cand("ninety", 3, { quota: { remaining: 9, limit: 10 } }),
    ];
    expect(keys(headroom(list, statsView(), NOW))).toEqual(["ninety", "half", "no-limit", "exhausted"]);
  });

  it("R11.1 headroom: over 100 requests that each spend one unit, traffic moves to whoever has most left", () => {
    const quota = { a: { remaining: 60, limit: 100 }, b: { remaining: 90, limit: 100 } };
    const counts = { a: 0, b: 0 };
    for (let i = 0; i < 100; i++) {
      const list = [cand("a", 0, { quota: { ...quota.a } }), cand("b", 1, { quota: { ...quota.b } })];
      const lead = headroom(list, statsView(), NOW)[0].key as "a" | "b";
      counts[lead]++;
      quota[lead].remaining--;
    }
    expect(counts).toEqual({ a: 35, b: 65 });
  });
});
