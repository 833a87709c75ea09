// cache-optimized: keep prompt caches warm. When the request carries a cache hint or belongs to a
// session, the target that served the session's previous request goes first (its cache already
// holds the shared prefix), then targets whose model metadata says `cacheSupport: true`, then the
// rest, each group in combo order. A request with neither a hint nor a session routes in combo
// order. Reads `cacheSupport`, the request's `cacheHint` and `previousCandidateKey`; no state.
import { inComboOrder } from "./rank.js";
import type { Candidate, RoutingStats, StrategyReads } from "./types.js";

export function order(candidates: readonly Candidate[], stats: RoutingStats): Candidate[] {
  const ordered = inComboOrder(candidates);
  const { cacheHint, previousCandidateKey } = stats.request;
  if (!cacheHint && previousCandidateKey === null) return ordered;
  const previous = ordered.find((c) => c.key === previousCandidateKey);
  const rest = ordered.filter((c) => c !== previous);
  const caching = rest.filter((c) => c.cacheSupport === true);
  const others = rest.filter((c) => c.cacheSupport !== true);
  return [...(previous ? [previous] : []), ...caching, ...others];
}

/** What this strategy reads (R11.1): the router pays for a request fact only when a strategy says so. */
export const reads: StrategyReads = { inputs: "model metadata: cacheSupport; request cache hint; session's previous target", cacheHint: true, previousTarget: true };
