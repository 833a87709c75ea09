// fill-first (D11): keep the combo order and send everything to the first target until it is
// exhausted — its learned quota headers say nothing is left in the current window — then to the
// next. An exhausted target moves to the end until its `resetAt` passes (then its quota is stale
// and it takes the lead again). Reads `quota.remaining`/`quota.resetAt`; no state.
import { exhaustedLast, inComboOrder } from "./rank.js";
import type { Candidate, RoutingStats } from "./types.js";

export function order(candidates: readonly Candidate[], _stats: RoutingStats, now: number): Candidate[] {
  return exhaustedLast(inComboOrder(candidates), now);
}
