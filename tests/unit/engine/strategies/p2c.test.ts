// p2c: two random candidates, the better score (D11), with the opt-in R4.10 latency/error signal.
import { describe, expect, it } from "vitest";
import { latencyErrorPoints, order as p2c } from "../../../../main/engine/strategies/p2c.js";
import { cand, NOW, samples, shares, statsView, targets } from "./fixtures.js";

const a = cand("a", 0, { connectionId: "ca" });
const b = cand("b", 1, { connectionId: "cb" });

describe("p2c (R11.1, D11, R4.10)", () => {
  it("D11 p2c: with equal scores each duel goes to combo order — over 10 000 requests a ≈ 2/3, b ≈ 1/3, c never", () => {
    const s = shares(p2c, targets("a", "b", "c"), 10_000);
    expect(Math.abs(s.a - 2 / 3)).toBeLessThan(0.015);
    expect(Math.abs(s.b - 1 / 3)).toBeLessThan(0.015);
    expect(s.c).toBe(0);
  });

  it("D11 p2c: the busier of two loses — 'a' with requests in flight never leads; b ≈ 2/3, c ≈ 1/3", () => {
    const stats = statsView({ candidates: { a: { inFlight: 3 } } });
    const s = shares(p2c, targets("a", "b", "c"), 10_000, { stats });
    expect(s.a).toBe(0);
    expect(Math.abs(s.b - 2 / 3)).toBeLessThan(0.015);
  });

  it("R4.10 weight 10: 2× slower earns the full half (5 points), 1.5× slower half of it; 50 % errors add 2.5", () => {
    const slow = statsView({ p2cLatencyWeight: 10, candidates: { a: { samples: samples(5, 200) }, b: { samples: samples(5, 100) } } });
    expect(latencyErrorPoints(a, b, slow, NOW)).toEqual([5, 0]);
    const mid = statsView({ p2cLatencyWeight: 10, candidates: { a: { samples: samples(4, 150, 0.5) }, b: { samples: samples(4, 100) } } });
    expect(latencyErrorPoints(a, b, mid, NOW)).toEqual([5, 0]);
  });

  it("R4.10 the signal is off at weight 0 and when either side has fewer than 3 samples in the window", () => {
    const base = { a: { samples: samples(5, 500, 0) }, b: { samples: samples(5, 100) } };
    expect(latencyErrorPoints(a, b, statsView({ p2cLatencyWeight: 0, candidates: base }), NOW)).toEqual([0, 0]);
    const few = { a: { samples: samples(5, 500, 0) }, b: { samples: samples(2, 100) } };
    expect(latencyErrorPoints(a, b, statsView({ p2cLatencyWeight: 20, candidates: few }), NOW)).toEqual([0, 0]);
    const old = { a: { samples: samples(5, 500, 0) }, b: { samples: samples(5, 100).map((s) => ({ ...s, at: s.at - 15 * 60_000 })) } };
    expect(latencyErrorPoints(a, b, statsView({ p2cLatencyWeight: 20, candidates: old }), NOW)).toEqual([0, 0]);
  });

  it("R4.10 only the last 20 samples count: 5 old failures followed by 20 successes is an error rate of 0", () => {
    const history = [...samples(5, 100, 0).map((s) => ({ ...s, at: s.at - 30_000 })), ...samples(20, 100)];
    const stats = statsView({ p2cLatencyWeight: 20, candidates: { a: { samples: history }, b: { samples: samples(20, 100) } } });
    expect(latencyErrorPoints(a, b, stats, NOW)).toEqual([0, 0]);
  });

  it("R4.10 per connection when the connection+model window is too small", () => {
    const stats = statsView({ p2cLatencyWeight: 20, connections: { ca: samples(3, 300), cb: samples(3, 100) } });
    expect(latencyErrorPoints(a, b, stats, NOW)).toEqual([10, 0]);
    expect(latencyErrorPoints(cand("a", 0), cand("b", 1), stats, NOW)).toEqual([0, 0]);
  });

  it("R4.10 with weight 10 the faster, reliable target wins every duel: over 10 000 requests 'b' leads always", () => {
    const stats = statsView({ p2cLatencyWeight: 10, candidates: { a: { samples: samples(10, 400, 0.7) }, b: { samples: samples(10, 100) } } });
    expect(shares(p2c, [a, b], 10_000, { stats }).b).toBe(1);
    expect(shares(p2c, [a, b], 1_000, { stats: statsView({ candidates: { a: { samples: samples(10, 400, 0.7) } } }) }).a).toBe(1);
  });

  it("R4.10 the signal's ceiling stays below the quota penalty: an exhausted target loses to a slow, failing one", () => {
    const exhausted = cand("a", 0, { quota: { remaining: 0, resetAt: NOW + 60_000 } });
    const stats = statsView({ p2cLatencyWeight: 20, candidates: { a: { samples: samples(10, 100) }, b: { samples: samples(10, 1_000, 0) } } });
    expect(latencyErrorPoints(exhausted, b, stats, NOW)).toEqual([0, 20]);
    expect(shares(p2c, [exhausted, b], 1_000, { stats }).b).toBe(1);
  });
});
