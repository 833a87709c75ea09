// least-used (D11): the target with the fewest requests goes first, then the next fewest; ties in
// combo order. The counts are the per-combo in-memory RoutingStats (`requests`, counted when an
// attempt is dispatched) — lost on restart, when every target starts again from zero. A target
// never used counts 0.
import { knownFirst, statsOf } from "./rank.js";
import type { Candidate, RoutingStats, StrategyReads } from "./types.js";

export function order(candidates: readonly Candidate[], stats: RoutingStats): Candidate[] {
  return knownFirst(candidates, (c) => statsOf(stats, c)?.requests ?? 0);
}

/** What this strategy reads (R11.1): the router pays for a request fact only when a strategy says so. */
export const reads: StrategyReads = { inputs: "in-memory request count per target" };
