// headroom: the target with the largest share of its quota left goes first (`remaining / limit`
// from learned quota headers), ties in combo order; targets without both numbers follow in combo
// order; exhausted targets come last. A past `resetAt` makes the info stale (unknown). No state.
import { exhaustedLast, knownFirst, liveQuota } from "./rank.js";
import type { Candidate, RoutingStats, StrategyReads } from "./types.js";

export function order(candidates: readonly Candidate[], _stats: RoutingStats, now: number): Candidate[] {
  const share = (c: Candidate): number | undefined => {
    const q = liveQuota(c, now);
    if (q?.remaining === undefined || q.limit === undefined || q.limit <= 0) return undefined;
    return q.remaining / q.limit;
  };
  return exhaustedLast(knownFirst(candidates, share, true), now);
}

/** What this strategy reads (R11.1): the router pays for a request fact only when a strategy says so. */
export const reads: StrategyReads = { inputs: "learned quota headers (remaining, limit, resetAt)" };
