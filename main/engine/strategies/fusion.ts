// fusion: reciprocal rank fusion of five views of the same targets — the combo order (the user's
// preference), cost-optimized (price), context-optimized (window), headroom (quota left) and auto
// (health and load). Each view ranks every target; a target scores Σ 1 / (60 + rank) and the
// highest fused score goes first, ties in combo order. A target strong in several views rises
// without any one signal dominating; with no metadata and no stats every view is the combo order,
// so fusion is priority. It fuses rankings, not responses: one target serves each attempt.
// Reads whatever the fused views read; no state, no randomness.
import { order as autoOrder } from "./auto.js";
import { order as costOrder } from "./cost-optimized.js";
import { order as contextOrder } from "./context-optimized.js";
import { order as headroomOrder } from "./headroom.js";
import { inComboOrder } from "./rank.js";
import type { Candidate, RoutingStats, StrategyReads } from "./types.js";

/** The usual RRF constant: damps the weight of the very top ranks. */
export const RRF_K = 60;

export function order(candidates: readonly Candidate[], stats: RoutingStats, now: number): Candidate[] {
  const views = [inComboOrder(candidates), costOrder(candidates), contextOrder(candidates), headroomOrder(candidates, stats, now), autoOrder(candidates, stats, now)];
  const fused = new Map<Candidate, number>();
  for (const view of views) view.forEach((c, rank) => fused.set(c, (fused.get(c) ?? 0) + 1 / (RRF_K + rank + 1)));
  const gap = (a: Candidate, b: Candidate) => (fused.get(b) ?? 0) - (fused.get(a) ?? 0);
  // Equal rank multisets summed in another order may differ in the last bit; that is a tie.
  return [...candidates].sort((a, b) => (Math.abs(gap(a, b)) > 1e-12 ? gap(a, b) : a.index - b.index));
}

/** What this strategy reads (R11.1): the router pays for a request fact only when a strategy says so. */
export const reads: StrategyReads = {
  inputs: "everything cost-optimized, context-optimized, headroom and auto read; request token estimate and cache hint",
  tokens: true,
  cacheHint: true,
  price: true,
};
