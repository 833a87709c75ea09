// Building blocks shared by the strategies. Every sort is stable on combo order, so equal
// candidates, and candidates a strategy knows nothing about, keep the order the user wrote.
import type { Candidate, CandidateStats, LatencySample, QuotaInfo, RoutingStats } from "./types.js";

/** R4.10: the signal looks at the last 20 samples of the last 15 minutes. */
export const SAMPLE_WINDOW_MS = 15 * 60_000;
export const SAMPLE_WINDOW_SIZE = 20;

export function inComboOrder(candidates: readonly Candidate[]): Candidate[] {
  return [...candidates].sort((a, b) => a.index - b.index);
}

/**
 * Candidates with a known value first, sorted by it (ascending, or descending when `descending`),
 * ties in combo order; candidates without a value after them, in combo order.
 */
export function knownFirst(candidates: readonly Candidate[], valueOf: (c: Candidate) => number | undefined, descending = false): Candidate[] {
  const known: { c: Candidate; v: number }[] = [];
  const unknown: Candidate[] = [];
  for (const c of inComboOrder(candidates)) {
    const v = valueOf(c);
    if (v === undefined || !Number.isFinite(v)) unknown.push(c);
    else known.push({ c, v });
  }
  known.sort((a, b) => (descending ? b.v - a.v : a.v - b.v) || a.c.index - b.c.index);
  return [...known.map((k) => k.c), ...unknown];
}

/** Fisher–Yates over a copy. */
export function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.min(i, Math.floor(random() * (i + 1)));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * Weighted sampling without replacement (Efraimidis–Spirakis): the first place goes to each
 * candidate with probability weight / total, the next among the rest likewise. Zero or invalid
 * weights follow in combo order; when nobody has a positive weight the order is a uniform shuffle.
 */
export function weightedOrder(candidates: readonly Candidate[], weightOf: (c: Candidate) => number, random: () => number): Candidate[] {
  const positive: { c: Candidate; key: number }[] = [];
  const rest: Candidate[] = [];
  for (const c of inComboOrder(candidates)) {
    const w = weightOf(c);
    if (Number.isFinite(w) && w > 0) positive.push({ c, key: -Math.log(1 - random()) / w });
    else rest.push(c);
  }
  if (positive.length === 0) return shuffle(rest, random);
  positive.sort((a, b) => a.key - b.key || a.c.index - b.c.index);
  return [...positive.map((p) => p.c), ...rest];
}

/** Quota info still describing the current window; a passed `resetAt` makes it stale (unknown). */
export function liveQuota(c: Candidate, now: number): QuotaInfo | undefined {
  const q = c.quota;
  if (!q) return undefined;
  if (q.resetAt !== undefined && q.resetAt <= now) return undefined;
  return q;
}

/** The provider said nothing is left in the current window. */
export function quotaExhausted(c: Candidate, now: number): boolean {
  return liveQuota(c, now)?.remaining === 0;
}

/** Exhausted candidates moved to the end, each group keeping its order. */
export function exhaustedLast(ordered: readonly Candidate[], now: number): Candidate[] {
  return [...ordered.filter((c) => !quotaExhausted(c, now)), ...ordered.filter((c) => quotaExhausted(c, now))];
}

export function statsOf(stats: RoutingStats, c: Candidate): CandidateStats | undefined {
  return stats.candidates.get(c.key);
}

/** The R4.10 window of a sample list: the last 20 taken within 15 minutes of `now`. */
export function recentSamples(samples: readonly LatencySample[] | undefined, now: number): LatencySample[] {
  if (!samples) return [];
  const fresh = samples.filter((s) => s.at > now - SAMPLE_WINDOW_MS && s.at <= now);
  return fresh.slice(-SAMPLE_WINDOW_SIZE);
}

export function errorRate(samples: readonly LatencySample[]): number {
  return samples.length === 0 ? 0 : samples.filter((s) => !s.ok).length / samples.length;
}

export function meanTtfb(samples: readonly LatencySample[]): number {
  return samples.length === 0 ? 0 : samples.reduce((sum, s) => sum + s.ttfbMs, 0) / samples.length;
}
