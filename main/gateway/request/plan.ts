// Stage "plan": the client's model becomes ordered targets (R1.3 alias | provider/model | combo).
// A combo's targets (nested combos expanded) are ordered by its strategy (R11.1); failover then
// walks that order (R11.3). The plan also says how each target's connections of one priority are
// chosen: by weight, or by the combo's p2c signal (connectionOrder.ts, R4.10).
import type { Combo, WireFormat } from "../../../shared/types.js";
import type { ConnectionChoice } from "../../engine/connectionOrder.js";
import type { CatalogPort } from "../ports.js";
import { resolveModel, type Resolution, type Target } from "../resolve.js";
import type { ComboRouter } from "../routing/comboRouter.js";
import { pinnedTargetFirst, type PinnedTarget } from "../routing/sessionTarget.js";

export interface RequestPlan {
  targets: Target[];
  /** The combo the model named, if any (logged with the request). */
  combo: string | null;
  /** Its definition: strategy and config (the cooldown-wait opt-out). */
  comboDef?: Combo;
  /** How each target's connections of one priority are chosen (absent: by weight). */
  connectionChoice?: ConnectionChoice;
}

/** What ordering by strategy needs; absent, a combo keeps its stored order. */
export interface PlanRouting {
  router: ComboRouter;
  /** The client's format, whose half reads the body for the strategies that look at it. */
  format: WireFormat;
  body: Record<string, unknown>;
  now: number;
  random: () => number;
  /** The client's session, for strategies that keep a session on its previous target. */
  sessionKey: string | null;
  /** R7.1: the session's live pin; its target goes first whatever the strategy (absent = none). */
  pin?: PinnedTarget | null;
}

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
