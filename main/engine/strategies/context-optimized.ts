// context-optimized (D11): the largest context window first (`contextWindow` from the model
// metadata), ties in combo order; targets without a known window follow in combo order. No state.
import { knownFirst } from "./rank.js";
import type { Candidate, StrategyReads } from "./types.js";

export function order(candidates: readonly Candidate[]): Candidate[] {
  return knownFirst(candidates, (c) => c.contextWindow, true);
}

/** What this strategy reads (R11.1): the router pays for a request fact only when a strategy says so. */
export const reads: StrategyReads = { inputs: "model metadata: contextWindow; request token estimate", tokens: true };
