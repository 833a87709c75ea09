// reset-aware: spend first the quota that refills soonest. Targets whose learned quota headers
// show something left and a known `resetAt` go first, earliest reset first ("use it or lose it":
// what is left at the reset is wasted); then targets without live quota info, in combo order;
// then exhausted targets (nothing left), the one back soonest first. A `resetAt` in the past makes
// the info stale, so that target counts as unknown. Reads `quota.remaining`/`quota.resetAt`; no state.
import { inComboOrder, knownFirst, liveQuota, quotaExhausted } from "./rank.js";
import type { Candidate, RoutingStats, StrategyReads } from "./types.js";

export function order(candidates: readonly Candidate[], _stats: RoutingStats, now: number): Candidate[] {
  const ordered = inComboOrder(candidates);
  const exhausted = ordered.filter((c) => quotaExhausted(c, now));
  const open = ordered.filter((c) => !quotaExhausted(c, now));
  const resetOf = (c: Candidate) => liveQuota(c, now)?.resetAt;
  return [...knownFirst(open, resetOf), ...knownFirst(exhausted, resetOf)];
}

/** What this strategy reads (R11.1): the router pays for a request fact only when a strategy says so. */
export const reads: StrategyReads = { inputs: "learned quota headers (remaining, resetAt)" };
