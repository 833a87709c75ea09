// fill-first (D11): keep the combo order and send everything to the first target until it is
// exhausted — its learned quota headers say nothing is left in the current window — then to the
// next. An exhausted target moves to the end until its `resetAt` passes (then its quota is stale
// and it takes the lead again). Reads `quota.remaining`/`quota.resetAt`; no state.
import { exhaustedLast, inComboOrder } from "./rank.js";
import type { Candidate, RoutingStats, StrategyReads } from "./types.js";

export function order(candidates: readonly Candidate[], _stats: RoutingStats, now: number): Candidate[] {
  return exhaustedLast(inComboOrder(candidates), now);
}

/** What this strategy reads (R11.1): the router pays for a request fact only when a strategy says so. */
export const reads: StrategyReads = { inputs: "learned quota headers (remaining, resetAt)" };
