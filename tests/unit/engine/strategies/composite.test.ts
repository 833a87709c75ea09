// auto and fusion: strategies that combine several signals, deterministically.
import { describe, expect, it } from "vitest";
import { autoScores, order as auto } from "../../../../main/engine/strategies/auto.js";
import { order as fusion } from "../../../../main/engine/strategies/fusion.js";
import { cand, keys, NOW, samples, statsView, targets } from "./fixtures.js";

describe("auto (R11.1)", () => {
  it("R11.1 auto: score = 100 × error rate + 50 × slowness (2× = full) + 10 per in flight + 1 000 when exhausted", () => {
    const list = [cand("a", 0), cand("b", 1), cand("c", 2, { quota: { remaining: 0 } }), cand("d", 3)];
    const stats = statsView({
      candidates: { a: { samples: samples(4, 200, 0.5) }, b: { samples: samples(4, 100), inFlight: 2 }, d: { samples: samples(2, 900, 0) } },
    });
    const scores = autoScores(list, stats, NOW);
    expect(list.map((c) => scores.get(c))).toEqual([100, 20, 1_000, 0]);
    expect(keys(auto(list, stats, NOW))).toEqual(["d", "b", "a", "c"]);
  });

  it("R11.1 auto: an untried target is not guessed bad — it keeps its combo place among healthy ones", () => {
    const stats = statsView({ candidates: { b: { samples: samples(10, 100) }, c: { samples: samples(10, 100, 0.2) } } });
    expect(keys(auto(targets("a", "b", "c"), stats, NOW))).toEqual(["a", "b", "c"]);
  });

  it("R11.1 auto: deterministic — 1 000 requests with the same stats give one order", () => {
    const stats = statsView({ candidates: { a: { samples: samples(5, 300) }, b: { samples: samples(5, 100) } } });
    const orders = new Set(Array.from({ length: 1_000 }, () => keys(auto(targets("a", "b", "c"), stats, NOW)).join(",")));
    expect([...orders]).toEqual(["b,c,a"]);
  });
});

describe("fusion (R11.1)", () => {
  it("R11.1 fusion: with no metadata and no stats every view is the combo order, so fusion is priority", () => {
    expect(keys(fusion(targets("a", "b", "c", "d"), statsView(), NOW))).toEqual(["a", "b", "c", "d"]);
  });

  it("R11.1 fusion: one better signal alone does not overtake the combo order, three do", () => {
    const first = cand("first", 0, { inputPricePerMTok: 10, contextWindow: 128_000, quota: { remaining: 10, limit: 100 } });
    const cheaper = cand("cheaper", 1, { inputPricePerMTok: 1, contextWindow: 128_000, quota: { remaining: 10, limit: 100 } });
    expect(keys(fusion([first, cheaper], statsView(), NOW))).toEqual(["first", "cheaper"]);
    const better = cand("better", 1, { inputPricePerMTok: 1, contextWindow: 1_000_000, quota: { remaining: 90, limit: 100 } });
    expect(keys(fusion([first, better], statsView(), NOW))).toEqual(["better", "first"]);
  });
});
