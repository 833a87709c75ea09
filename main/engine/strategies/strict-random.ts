// strict-random (D11): a shuffled deck. Each request deals the next card: that target goes first,
// then the targets still in the deck (in deck order), then the ones already dealt (combo order).
// When the deck is empty it is reshuffled, so within a cycle of n requests every target leads
// exactly once — random, but no repeat within a cycle. A change in the set of targets starts a new
// cycle. The deck lives in the per-combo StrategyState: in memory only, a restart deals afresh.
import { inComboOrder, shuffle } from "./rank.js";
import type { Candidate, RoutingStats, StrategyReads, StrategyState } from "./types.js";

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((k, i) => k === b[i]);
}

export function order(candidates: readonly Candidate[], _stats: RoutingStats, _now: number, random: () => number, state: StrategyState): Candidate[] {
  const ordered = inComboOrder(candidates);
  if (ordered.length === 0) return ordered;
  const keys = ordered.map((c) => c.key);
  if (!sameKeys(state.deckOf, keys)) {
    state.deckOf = keys;
    state.deck = [];
  }
  if (state.deck.length === 0) state.deck = shuffle(keys, random);
  const dealt = state.deck.shift();
  const lead = ordered.find((c) => c.key === dealt) ?? ordered[0];
  const deckPosition = new Map(state.deck.map((k, i) => [k, i] as const));
  const rest = ordered.filter((c) => c !== lead).sort((a, b) => (deckPosition.get(a.key) ?? Infinity) - (deckPosition.get(b.key) ?? Infinity) || a.index - b.index);
  return [lead, ...rest];
}

/** What this strategy reads (R11.1): the router pays for a request fact only when a strategy says so. */
export const reads: StrategyReads = { inputs: "in-memory deck per combo" };
