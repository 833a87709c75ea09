// p2c, power of two choices (D11, R4.10): draw two different targets at random and put the one
// with the better (lower) score first; repeat among those left until one remains, so the whole
// order is built from pairwise duels. Score, in points: 10 per attempt in flight (the classic
// least-loaded signal), 100 when the learned quota says nothing is left (blocked/exhausted), plus
// the opt-in R4.10 signal of up to `p2cLatencyWeight` (0–20) points: half from the latency ratio
// to the faster of the pair (2× slower = the full half), half from the rolling error rate — only
// when both have ≥ 3 samples (last 20 within 15 min), per connection+model, else per connection.
// Its 20-point ceiling stays below the 100-point quota penalty. Ties go to combo order. No state.
// The same signal ranks one target's connections of a p2c combo (connectionOrder.ts).
import { errorRate, inComboOrder, meanTtfb, quotaExhausted, recentSamples, statsOf } from "./rank.js";
import type { Candidate, LatencySample, RoutingStats, StrategyReads } from "./types.js";

export const P2C_QUOTA_PENALTY = 100;
export const P2C_IN_FLIGHT_POINTS = 10;
export const P2C_MIN_SAMPLES = 3;
export const P2C_MAX_LATENCY_WEIGHT = 20;

function pairSamples(a: Candidate, b: Candidate, stats: RoutingStats, now: number): [LatencySample[], LatencySample[]] | null {
  const sa = recentSamples(statsOf(stats, a)?.samples, now);
  const sb = recentSamples(statsOf(stats, b)?.samples, now);
  if (sa.length >= P2C_MIN_SAMPLES && sb.length >= P2C_MIN_SAMPLES) return [sa, sb];
  if (a.connectionId === undefined || b.connectionId === undefined) return null;
  const ca = recentSamples(stats.connections.get(a.connectionId), now);
  const cb = recentSamples(stats.connections.get(b.connectionId), now);
  return ca.length >= P2C_MIN_SAMPLES && cb.length >= P2C_MIN_SAMPLES ? [ca, cb] : null;
}

/** `p2cLatency.weight` within its R4.10 range, 0 (off) to 20. */
export function latencyWeight(weight: number): number {
  return Math.min(P2C_MAX_LATENCY_WEIGHT, Math.max(0, weight || 0));
}

/**
 * R4.10 points of two sample windows that both hold enough samples: half of `weight` from the
 * latency ratio to the faster one, half from the error rate. Shared with the in-provider duels.
 */
export function signalPoints(samples: readonly [readonly LatencySample[], readonly LatencySample[]], weight: number): [number, number] {
  const half = weight / 2;
  const means = [meanTtfb(samples[0]), meanTtfb(samples[1])];
  const faster = Math.min(means[0], means[1]);
  const latency = (mean: number) => (faster > 0 ? Math.min(1, mean / faster - 1) : mean > 0 ? 1 : 0);
  return [half * latency(means[0]) + half * errorRate(samples[0]), half * latency(means[1]) + half * errorRate(samples[1])];
}

/** R4.10 points for each of the pair; [0, 0] when the signal is off or samples are too few. */
export function latencyErrorPoints(a: Candidate, b: Candidate, stats: RoutingStats, now: number): [number, number] {
  const weight = latencyWeight(stats.p2cLatencyWeight);
  const samples = weight > 0 ? pairSamples(a, b, stats, now) : null;
  return samples ? signalPoints(samples, weight) : [0, 0];
}

function baseScore(c: Candidate, stats: RoutingStats, now: number): number {
  return (quotaExhausted(c, now) ? P2C_QUOTA_PENALTY : 0) + P2C_IN_FLIGHT_POINTS * (statsOf(stats, c)?.inFlight ?? 0);
}

function duel(a: Candidate, b: Candidate, stats: RoutingStats, now: number): Candidate {
  const [pa, pb] = latencyErrorPoints(a, b, stats, now);
  const sa = baseScore(a, stats, now) + pa;
  const sb = baseScore(b, stats, now) + pb;
  if (sa !== sb) return sa < sb ? a : b;
  return a.index <= b.index ? a : b;
}

export function order(candidates: readonly Candidate[], stats: RoutingStats, now: number, random: () => number): Candidate[] {
  const left = inComboOrder(candidates);
  const out: Candidate[] = [];
  while (left.length > 1) {
    const i = Math.min(left.length - 1, Math.floor(random() * left.length));
    let j = Math.min(left.length - 2, Math.floor(random() * (left.length - 1)));
    if (j >= i) j++;
    const w = duel(left[i], left[j], stats, now) === left[i] ? i : j;
    out.push(left[w]);
    // Swap-remove keeps each step O(1); positions carry no meaning since picks are random.
    left[w] = left[left.length - 1];
    left.pop();
  }
  return [...out, ...left];
}

/** What this strategy reads (R11.1): the router pays for a request fact only when a strategy says so. */
export const reads: StrategyReads = { inputs: "in-flight count, learned quota headers; with p2cLatency.weight > 0 also latency/error samples" };
