// round-robin (D11): successive requests start at successive targets — a, b, c, a, b, c, … — and
// each order continues from its start through the combo, wrapping around, for failover. The
// cursor lives in the per-combo StrategyState: in memory only, it restarts at the first target
// after a restart. A change in the number of targets just takes the cursor modulo the new size.
import { inComboOrder } from "./rank.js";
import type { Candidate, RoutingStats, StrategyReads, StrategyState } from "./types.js";

export function order(candidates: readonly Candidate[], _stats: RoutingStats, _now: number, _random: () => number, state: StrategyState): Candidate[] {
  const ordered = inComboOrder(candidates);
  if (ordered.length === 0) return ordered;
  const start = state.cursor % ordered.length;
  state.cursor = (start + 1) % ordered.length;
  return [...ordered.slice(start), ...ordered.slice(0, start)];
}

/** What this strategy reads (R11.1): the router pays for a request fact only when a strategy says so. */
export const reads: StrategyReads = { inputs: "combo order; in-memory cursor per combo" };
