// auto: a deterministic health-and-load score, lowest first, ties in combo order. Points: 1 000
// when the learned quota says nothing is left; up to 100 from the rolling error rate and up to 50
// from latency (mean time to first byte against the fastest target, 2× slower = all 50), both
// only for targets with ≥ 3 samples in the R4.10 window (last 20 within 15 min); 10 per attempt
// in flight. A target with no samples gets no health points — it is not guessed to be good or
// bad, so untried targets keep their combo position among healthy ones. Reads quota, samples and
// `inFlight`; no state, no randomness.
import { errorRate, meanTtfb, quotaExhausted, recentSamples, statsOf } from "./rank.js";
import type { Candidate, RoutingStats, StrategyReads } from "./types.js";

export const AUTO_QUOTA_PENALTY = 1_000;
export const AUTO_ERROR_POINTS = 100;
export const AUTO_LATENCY_POINTS = 50;
export const AUTO_IN_FLIGHT_POINTS = 10;
const MIN_SAMPLES = 3;

export function autoScores(candidates: readonly Candidate[], stats: RoutingStats, now: number): Map<Candidate, number> {
  const windows = new Map(candidates.map((c) => [c, recentSamples(statsOf(stats, c)?.samples, now)] as const));
  const means = [...windows.values()].filter((s) => s.length >= MIN_SAMPLES).map(meanTtfb);
  const fastest = means.length > 0 ? Math.min(...means) : 0;
  const scores = new Map<Candidate, number>();
  for (const c of candidates) {
    const samples = windows.get(c) ?? [];
    let score = (quotaExhausted(c, now) ? AUTO_QUOTA_PENALTY : 0) + AUTO_IN_FLIGHT_POINTS * (statsOf(stats, c)?.inFlight ?? 0);
    if (samples.length >= MIN_SAMPLES) {
      const mean = meanTtfb(samples);
      const slowness = fastest > 0 ? Math.min(1, mean / fastest - 1) : mean > 0 ? 1 : 0;
      score += AUTO_ERROR_POINTS * errorRate(samples) + AUTO_LATENCY_POINTS * slowness;
    }
    scores.set(c, score);
  }
  return scores;
}

export function order(candidates: readonly Candidate[], stats: RoutingStats, now: number): Candidate[] {
  const scores = autoScores(candidates, stats, now);
  return [...candidates].sort((a, b) => (scores.get(a) ?? 0) - (scores.get(b) ?? 0) || a.index - b.index);
}

/** What this strategy reads (R11.1): the router pays for a request fact only when a strategy says so. */
export const reads: StrategyReads = { inputs: "latency/error samples, in-flight count, learned quota headers" };
