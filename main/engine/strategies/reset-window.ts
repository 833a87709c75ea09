// reset-window: pace each target over its quota window. A target's allowance is what is left
// divided by the time until its window resets (`remaining / (resetAt − now)`, from learned quota
// headers); the largest allowance goes first, so no target runs dry long before its reset while
// another sits on unspent quota. Targets without both numbers follow in combo order, exhausted
// targets come last. A past `resetAt` makes the info stale (unknown). No state.
import { exhaustedLast, knownFirst, liveQuota } from "./rank.js";
import type { Candidate, RoutingStats, StrategyReads } from "./types.js";

export function order(candidates: readonly Candidate[], _stats: RoutingStats, now: number): Candidate[] {
  const allowance = (c: Candidate): number | undefined => {
    const q = liveQuota(c, now);
    if (q?.remaining === undefined || q.resetAt === undefined || q.remaining <= 0) return undefined;
    return q.remaining / (q.resetAt - now);
  };
  return exhaustedLast(knownFirst(candidates, allowance, true), now);
}

/** What this strategy reads (R11.1): the router pays for a request fact only when a strategy says so. */
export const reads: StrategyReads = { inputs: "learned quota headers (remaining, resetAt)" };
