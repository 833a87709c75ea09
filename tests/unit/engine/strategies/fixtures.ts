// Test doubles for the strategies: a seeded PRNG, candidate and stats builders, and a counter of
// who leads over many requests.
import { createStrategyState } from "../../../../main/engine/strategies/types.js";
import type { Candidate, CandidateStats, LatencySample, OrderFn, RequestFacts, RoutingStats, StrategyState } from "../../../../main/engine/strategies/types.js";

export const NOW = Date.UTC(2030, 0, 15, 12, 0, 0);

/** mulberry32: a tiny seeded PRNG in [0, 1), so distributions are reproducible. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export function cand(key: string, index: number, over: Partial<Candidate> = {}): Candidate {
  return { key, index, weight: 1, ...over };
}

export function targets(...keys: string[]): Candidate[] {
  return keys.map((k, i) => cand(k, i));
}

export function candStats(over: Partial<CandidateStats> = {}): CandidateStats {
  return { requests: 0, lastSuccessAt: null, lastFailureAt: null, inFlight: 0, samples: [], ...over };
}

export interface StatsInput {
  candidates?: Record<string, Partial<CandidateStats>>;
  connections?: Record<string, LatencySample[]>;
  request?: Partial<RequestFacts>;
  p2cLatencyWeight?: number;
}

export function statsView(input: StatsInput = {}): RoutingStats {
  return {
    candidates: new Map(Object.entries(input.candidates ?? {}).map(([k, v]) => [k, candStats(v)])),
    connections: new Map(Object.entries(input.connections ?? {})),
    request: { estimatedInputTokens: null, cacheHint: false, previousCandidateKey: null, ...input.request },
    p2cLatencyWeight: input.p2cLatencyWeight ?? 0,
  };
}

/** `n` samples ending at NOW, all with the given time to first byte and outcome. */
export function samples(n: number, ttfbMs: number, okRatio = 1): LatencySample[] {
  return Array.from({ length: n }, (_, i) => ({ at: NOW - (n - i) * 1_000, ttfbMs, ok: i >= Math.round(n * (1 - okRatio)) }));
}

export function keys(ordered: readonly Candidate[]): string[] {
  return ordered.map((c) => c.key);
}

export interface RunOptions {
  stats?: RoutingStats;
  now?: number;
  seed?: number;
  state?: StrategyState;
}

/** The leading key of each of `n` successive requests. */
export function leads(order: OrderFn, candidates: readonly Candidate[], n: number, opts: RunOptions = {}): string[] {
  const random = seeded(opts.seed ?? 42);
  const state = opts.state ?? createStrategyState();
  const stats = opts.stats ?? statsView();
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(order(candidates, stats, opts.now ?? NOW, random, state)[0].key);
  return out;
}

/** Share of requests each key led, over `n` requests. */
export function shares(order: OrderFn, candidates: readonly Candidate[], n: number, opts: RunOptions = {}): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(candidates.map((c) => [c.key, 0]));
  for (const k of leads(order, candidates, n, opts)) counts[k]++;
  return Object.fromEntries(Object.entries(counts).map(([k, count]) => [k, count / n]));
}
