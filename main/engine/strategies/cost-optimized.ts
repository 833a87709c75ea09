// cost-optimized (D11): cheapest input price first (`inputPricePerMTok` from the model metadata in
// the provider config, else the price catalogue shipped for R18.1), ties broken by output price
// (known before unknown), then combo order. Targets without an input price follow in combo order —
// no price is ever guessed. No state.
import { knownFirst } from "./rank.js";
import type { Candidate, StrategyReads } from "./types.js";

function price(value: number | undefined): number {
  return value !== undefined && Number.isFinite(value) ? value : Infinity;
}

export function order(candidates: readonly Candidate[]): Candidate[] {
  const byInput = knownFirst(candidates, (c) => c.inputPricePerMTok);
  const priced = byInput.filter((c) => price(c.inputPricePerMTok) !== Infinity);
  const unpriced = byInput.slice(priced.length);
  priced.sort((a, b) => price(a.inputPricePerMTok) - price(b.inputPricePerMTok) || price(a.outputPricePerMTok) - price(b.outputPricePerMTok) || a.index - b.index);
  return [...priced, ...unpriced];
}

/** What this strategy reads (R11.1): the router pays for a request fact only when a strategy says so. */
export const reads: StrategyReads = { inputs: "model metadata: inputPricePerMTok, outputPricePerMTok, else the shipped price catalogue", price: true };
