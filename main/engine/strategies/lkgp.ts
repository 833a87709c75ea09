// lkgp, last known good provider (D11): the target that most recently answered successfully goes
// first; the others follow in combo order, as with priority. Before any success (or after a
// restart: the success times are in-memory RoutingStats) it is plain priority. No state of its own.
import { inComboOrder, statsOf } from "./rank.js";
import type { Candidate, RoutingStats, StrategyReads } from "./types.js";

export function order(candidates: readonly Candidate[], stats: RoutingStats): Candidate[] {
  const ordered = inComboOrder(candidates);
  let best: Candidate | undefined;
  let bestAt = -Infinity;
  for (const c of ordered) {
    const at = statsOf(stats, c)?.lastSuccessAt;
    if (at !== null && at !== undefined && at > bestAt) {
      best = c;
      bestAt = at;
    }
  }
  return best ? [best, ...ordered.filter((c) => c !== best)] : ordered;
}

/** What this strategy reads (R11.1): the router pays for a request fact only when a strategy says so. */
export const reads: StrategyReads = { inputs: "in-memory last success time per target" };
