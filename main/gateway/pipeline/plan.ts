// Stage "plan": the client's model becomes ordered targets (R1.3 alias | provider/model | combo).
// A combo's targets (nested combos expanded) are ordered by its strategy (R11.1); failover then
// walks that order (R11.3). The plan also says how each target's connections of one priority are
// chosen: by weight, or by the combo's p2c signal (connectionOrder.ts, R4.10).
import type { CatalogPort } from "../context/ports.js";
import { resolveModel, type Resolution } from "../context/resolve.js";
import type { PlanRouting } from "./routing/comboRouter.js";
export type { PlanRouting } from "./routing/comboRouter.js";
import { pinnedTargetFirst } from "./routing/sessionTarget.js";

import type { RequestPlan } from "../context/attempt.js";
export type { RequestPlan };

interface ResolutionMemo {
  providers: readonly unknown[];
  combos: readonly unknown[];
  aliases: unknown;
  byModel: Map<string, Resolution | null>;
}

/** The store hands out a fresh array of the same cached objects until a write changes them. */
function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Bounds the memo: a client that invents model names cannot grow it without limit. */
const MEMO_MAX_MODELS = 256;
const memos = new WeakMap<CatalogPort, ResolutionMemo>();

/**
 * R1.3 addressing against the catalog port: alias, combo, `provider/model` or a bare model name.
 * The catalog's lists hold read-cached objects that keep their identity until a write (readCache.ts),
 * so a resolution is kept while the catalog hands back the same providers, combos and aliases: resolving
 * a combo on every request was a visible share of the hot path (issue 12). Callers treat the
 * resolution as read-only.
 */
export function resolveFromCatalog(model: string, catalog: CatalogPort): Resolution | null {
  const providers = catalog.providers();
  const combos = catalog.combos();
  const aliases = catalog.aliases();
  let memo = memos.get(catalog);
  if (!memo || memo.aliases !== aliases || !sameItems(memo.providers, providers) || !sameItems(memo.combos, combos)) {
    // Copies: a caller that changes its list in place still changes what is compared next time.
    memo = { providers: [...providers], combos: [...combos], aliases, byModel: new Map() };
    memos.set(catalog, memo);
  }
  const known = memo.byModel.get(model);
  if (known !== undefined) return known;
  const resolved = resolveModel(model, { providers, getCombo: (name) => catalog.combo(name), aliases });
  if (memo.byModel.size >= MEMO_MAX_MODELS) memo.byModel.clear();
  memo.byModel.set(model, resolved);
  return resolved;
}

export function planRequest(model: string, catalog: CatalogPort, routing?: PlanRouting): RequestPlan | null {
  const resolution = resolveFromCatalog(model, catalog);
  if (!resolution) return null;
  // A plan of its own: later stages narrow plan.targets, the memoised resolution stays as it is.
  if (resolution.combo === null)
    return { targets: pinnedTargetFirst(resolution.targets, routing?.pin), combo: null, connectionChoice: routing?.router.connectionChoice(undefined, routing.random) };
  const comboDef = catalog.combo(resolution.combo);
  if (!comboDef) return { targets: resolution.targets, combo: resolution.combo };
  if (!routing) return { targets: resolution.targets, combo: resolution.combo, comboDef };
  const targets = routing.router.order(comboDef, resolution.targets, routing);
  return { targets, combo: resolution.combo, comboDef, connectionChoice: routing.router.connectionChoice(comboDef, routing.random) };
}
