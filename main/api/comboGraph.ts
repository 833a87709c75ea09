// Nested combos at save time (D11): a combo target may name another combo, but never in a cycle
// and never deeper than MAX_COMBO_DEPTH levels. Checked on the graph as it would be after the save,
// so an edit that makes some other combo too deep, or closes a loop through it, is refused too.
import type { ComboTarget } from "../../shared/types.js";
import { MAX_COMBO_DEPTH } from "../gateway/context/resolve.js";
import { invalidRequest } from "./errors.js";

/** combo name -> the model names of its targets */
export type ComboGraph = Map<string, readonly string[]>;

/** The chain from `from` back to `to`, or null when `to` is not reachable. */
function pathTo(graph: ComboGraph, from: string, to: string, seen = new Set<string>()): string[] | null {
  if (from === to) return [from];
  if (seen.has(from)) return null;
  seen.add(from);
  for (const next of graph.get(from) ?? []) {
    if (!graph.has(next)) continue;
    const rest = pathTo(graph, next, to, seen);
    if (rest) return [from, ...rest];
  }
  return null;
}

/** Levels of nesting below and including `name` (a combo of plain targets is 1). */
function depthOf(graph: ComboGraph, name: string, memo: Map<string, number>): number {
  const known = memo.get(name);
  if (known !== undefined) return known;
  memo.set(name, Number.POSITIVE_INFINITY);
  let deepest = 0;
  for (const next of graph.get(name) ?? []) if (graph.has(next)) deepest = Math.max(deepest, depthOf(graph, next, memo));
  const depth = 1 + deepest;
  memo.set(name, depth);
  return depth;
}

/** Refuses a save of `name` with `targets` that would close a cycle or nest deeper than allowed. */
export function checkComboNesting(graph: ComboGraph, name: string, targets: readonly ComboTarget[], pathPrefix: string): void {
  const next: ComboGraph = new Map(graph);
  next.set(
    name,
    targets.map((t) => t.model),
  );
  targets.forEach((target, index) => {
    if (!next.has(target.model)) return;
    const at = `${pathPrefix}targets.${index}.model`;
    const loop = pathTo(next, target.model, name);
    if (loop) throw invalidRequest(`combo "${name}" would contain itself: ${[name, ...loop].join(" → ")}`, at);
  });
  const memo = new Map<string, number>();
  for (const combo of next.keys()) {
    if (depthOf(next, combo, memo) <= MAX_COMBO_DEPTH) continue;
    const index = targets.findIndex((t) => next.has(t.model));
    const at = index >= 0 ? `${pathPrefix}targets.${index}.model` : `${pathPrefix}targets`;
    throw invalidRequest(`combo "${combo}" would nest combos ${depthOf(next, combo, memo)} levels deep; at most ${MAX_COMBO_DEPTH} are allowed`, at);
  }
}
