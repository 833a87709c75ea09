// weighted (D11): each request puts a target first with probability weight / total of weights,
// then orders the rest the same way among those left (weighted sampling without replacement), so
// failover also follows the weights. A weight of 0 never goes first while some target has a
// positive weight; such targets follow in combo order. When every weight is 0 the order is a
// uniform shuffle. Reads the per-target `weight` (default 1); no state between requests.
import { weightedOrder } from "./rank.js";
import type { Candidate, RoutingStats, StrategyReads } from "./types.js";

export function order(candidates: readonly Candidate[], _stats: RoutingStats, _now: number, random: () => number): Candidate[] {
  return weightedOrder(candidates, (c) => c.weight, random);
}

/** What this strategy reads (R11.1): the router pays for a request fact only when a strategy says so. */
export const reads: StrategyReads = { inputs: "target weight" };
