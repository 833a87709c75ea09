// context-relay: stay with the target that served this session's previous request while the
// conversation still fits its context window, and relay to the next target that can hold it once
// it no longer does. Order: the session's previous target (unless its `contextWindow` is known to
// be smaller than the request's estimated input tokens), then targets whose window holds the
// request, in combo order; then targets with no known window, in combo order; then those known to
// be too small, largest window first. Without a token estimate every window counts as fitting.
// Reads `contextWindow`, the request's `estimatedInputTokens` and `previousCandidateKey`; no state.
import { inComboOrder, knownFirst } from "./rank.js";
import type { Candidate, RoutingStats, StrategyReads } from "./types.js";

export function order(candidates: readonly Candidate[], stats: RoutingStats): Candidate[] {
  const tokens = stats.request.estimatedInputTokens;
  const known = (c: Candidate): c is Candidate & { contextWindow: number } => c.contextWindow !== undefined && Number.isFinite(c.contextWindow);
  const tooSmall = (c: Candidate) => known(c) && tokens !== null && c.contextWindow < tokens;
  const ordered = inComboOrder(candidates);
  const previous = ordered.find((c) => c.key === stats.request.previousCandidateKey && !tooSmall(c));
  const rest = ordered.filter((c) => c !== previous);
  const fitting = rest.filter((c) => known(c) && !tooSmall(c));
  const unknown = rest.filter((c) => !known(c));
  const small = knownFirst(rest.filter(tooSmall), (c) => c.contextWindow, true);
  return [...(previous ? [previous] : []), ...fitting, ...unknown, ...small];
}

/** What this strategy reads (R11.1): the router pays for a request fact only when a strategy says so. */
export const reads: StrategyReads = { inputs: "model metadata: contextWindow; request token estimate; session's previous target", tokens: true, previousTarget: true };
