// pipeline: keep every target's pipe busy before any gets a second request. The target with the
// fewest attempts in flight goes first, ties in combo order — with nothing in flight it is
// priority; under concurrency the first target takes one request, the second the next, and so on,
// instead of all queueing on the first. Reads the in-memory `inFlight` of RoutingStats; no state.
import { knownFirst, statsOf } from "./rank.js";
import type { Candidate, RoutingStats, StrategyReads } from "./types.js";

export function order(candidates: readonly Candidate[], stats: RoutingStats): Candidate[] {
  return knownFirst(candidates, (c) => statsOf(stats, c)?.inFlight ?? 0);
}

/** What this strategy reads (R11.1): the router pays for a request fact only when a strategy says so. */
export const reads: StrategyReads = { inputs: "in-memory in-flight count per target" };
