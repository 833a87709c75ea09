// random: a uniformly random order on every request, independent of the previous ones (the same
// target may lead several times in a row). Reads nothing; no state.
import { inComboOrder, shuffle } from "./rank.js";
import type { Candidate, RoutingStats, StrategyReads } from "./types.js";

export function order(candidates: readonly Candidate[], _stats: RoutingStats, _now: number, random: () => number): Candidate[] {
  return shuffle(inComboOrder(candidates), random);
}

/** What this strategy reads (R11.1): the router pays for a request fact only when a strategy says so. */
export const reads: StrategyReads = { inputs: "nothing" };
