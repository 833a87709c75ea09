// Randomised strategies, shown by their distribution over many requests with a seeded source.
import { describe, expect, it } from "vitest";
import { order as quotaWeighted } from "../../../../main/engine/strategies/quota-weighted.js";
import { order as random } from "../../../../main/engine/strategies/random.js";
import { order as strictRandom } from "../../../../main/engine/strategies/strict-random.js";
import { createStrategyState } from "../../../../main/engine/strategies/types.js";
import { order as weighted } from "../../../../main/engine/strategies/weighted.js";
import { cand, keys, leads, NOW, seeded, shares, statsView, targets } from "./fixtures.js";

describe("randomised strategies (R11.1, D11)", () => {
  it("R11.1 D11 weighted: weights 1:3 give about 25 %/75 % over 10 000 requests", () => {
    const s = shares(weighted, [cand("a", 0, { weight: 1 }), cand("b", 1, { weight: 3 })], 10_000);
    expect(Math.abs(s.a - 0.25)).toBeLessThan(0.015);
    expect(Math.abs(s.b - 0.75)).toBeLessThan(0.015);
  });

  it("R11.1 D11 weighted: weight 0 never leads while another is positive, and all-zero is uniform", () => {
    const s = shares(weighted, [cand("zero", 0, { weight: 0 }), cand("one", 1, { weight: 1 }), cand("two", 2, { weight: 2 })], 10_000);
    expect(s.zero).toBe(0);
    expect(Math.abs(s.one - 1 / 3)).toBeLessThan(0.015);
    const zeros = [0, 1, 2].map((i) => cand(`z${i}`, i, { weight: 0 }));
    for (const share of Object.values(shares(weighted, zeros, 10_000))) expect(Math.abs(share - 1 / 3)).toBeLessThan(0.015);
  });

  it("R11.1 D11 weighted: failover follows the weights too — after 'heavy' leads, 2:1 among the rest", () => {
    const list = [cand("heavy", 0, { weight: 10 }), cand("mid", 1, { weight: 2 }), cand("light", 2, { weight: 1 })];
    const rng = seeded(7);
    let mid = 0;
    let n = 0;
    for (let i = 0; i < 10_000; i++) {
      const o = keys(weighted(list, statsView(), NOW, rng));
      if (o[0] !== "heavy") continue;
      n++;
      if (o[1] === "mid") mid++;
    }
    expect(Math.abs(mid / n - 2 / 3)).toBeLessThan(0.02);
  });

  it("R11.1 random: four targets lead about 25 % each over 10 000 requests, and repeats happen", () => {
    const abcd = targets("a", "b", "c", "d");
    for (const share of Object.values(shares(random, abcd, 10_000))) expect(Math.abs(share - 0.25)).toBeLessThan(0.015);
    const l = leads(random, abcd, 10_000);
    const repeats = l.filter((k, i) => i > 0 && l[i - 1] === k).length / (l.length - 1);
    expect(Math.abs(repeats - 0.25)).toBeLessThan(0.02);
  });

  it("R11.1 D11 strict-random: a shuffled deck — each cycle of 4 requests has every target lead exactly once", () => {
    const l = leads(strictRandom, targets("a", "b", "c", "d"), 10_000);
    const cycles = new Set<string>();
    for (let i = 0; i < l.length; i += 4) {
      const cycle = l.slice(i, i + 4);
      expect([...cycle].sort()).toEqual(["a", "b", "c", "d"]);
      cycles.add(cycle.join(""));
    }
    expect(cycles.size).toBe(24);
  });

  it("R11.1 D11 strict-random: a changed target set starts a new cycle over the new set", () => {
    const state = createStrategyState();
    leads(strictRandom, targets("a", "b", "c"), 1, { state });
    const next = leads(strictRandom, targets("x", "y"), 2, { state, seed: 3 });
    expect([...next].sort()).toEqual(["x", "y"]);
  });

  it("R11.1 quota-weighted: remaining 100 vs 300 leads about 25 %/75 %; unknown next, exhausted last", () => {
    const live = { limit: 1_000, resetAt: NOW + 60_000 };
    const list = [
      cand("exhausted", 0, { quota: { ...live, remaining: 0 } }),
      cand("unknown", 1),
      cand("low", 2, { quota: { ...live, remaining: 100 } }),
      cand("high", 3, { quota: { ...live, remaining: 300 } }),
    ];
    const s = shares(quotaWeighted, list, 10_000);
    expect(Math.abs(s.low - 0.25)).toBeLessThan(0.015);
    expect(Math.abs(s.high - 0.75)).toBeLessThan(0.015);
    expect(keys(quotaWeighted(list, statsView(), NOW, seeded(1))).slice(2)).toEqual(["unknown", "exhausted"]);
  });
});
