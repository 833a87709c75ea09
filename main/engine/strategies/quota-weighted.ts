// quota-weighted: like weighted, but the weight is what the target has left in its current quota
// window (`quota.remaining` from learned headers): a target with 300 left leads three times as often
// as one with 100. Targets without live quota info follow in combo order, exhausted ones last. A
// past `resetAt` makes the info stale (unknown). No state.
import { exhaustedLast, inComboOrder, liveQuota, weightedOrder } from "./rank.js";
import type { Candidate, RoutingStats, StrategyReads } from "./types.js";

export function order(candidates: readonly Candidate[], _stats: RoutingStats, now: number, random: () => number): Candidate[] {
  const remainingOf = (c: Candidate) => liveQuota(c, now)?.remaining ?? 0;
  const ordered = inComboOrder(candidates);
  const withQuota = ordered.filter((c) => remainingOf(c) > 0);
  const rest = ordered.filter((c) => !(remainingOf(c) > 0));
  return [...weightedOrder(withQuota, remainingOf, random), ...exhaustedLast(rest, now)];
}

/** What this strategy reads (R11.1): the router pays for a request fact only when a strategy says so. */
export const reads: StrategyReads = { inputs: "learned quota headers (remaining, resetAt)" };
