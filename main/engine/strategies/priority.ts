// priority (D11): the targets in the order the combo lists them, every request. The first target
// takes all traffic while it is eligible; the next ones are pure failover. Reads nothing but
// the combo order, keeps no state.
import { inComboOrder } from "./rank.js";
import type { Candidate, StrategyReads } from "./types.js";

export function order(candidates: readonly Candidate[]): Candidate[] {
  return inComboOrder(candidates);
}

/** What this strategy reads (R11.1): the router pays for a request fact only when a strategy says so. */
export const reads: StrategyReads = { inputs: "combo order" };
