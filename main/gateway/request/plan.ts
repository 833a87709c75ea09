// Stage "plan": the client's model becomes ordered targets (R1.3 alias | provider/model | combo).
// A combo's targets (nested combos expanded) are ordered by its strategy (R11.1); failover then
// walks that order (R11.3).
import type { Combo } from "../../../shared/types.js";
import type { CatalogPort } from "../ports.js";
import { resolveModel, type Resolution, type Target } from "../resolve.js";
import type { ComboRouter } from "../routing/comboRouter.js";

export interface RequestPlan {
  targets: Target[];
  /** The combo the model named, if any (logged with the request). */
  combo: string | null;
  /** Its definition: strategy and config (the cooldown-wait opt-out). */
  comboDef?: Combo;
}

/** What ordering by strategy needs; absent, a combo keeps its stored order. */
export interface PlanRouting {
  router: ComboRouter;
  body: Record<string, unknown>;
  now: number;
  random: () => number;
  /** The client's session, for strategies that keep a session on its previous target. */
  sessionKey: string | null;
}

/** R1.3 addressing against the catalog port: alias, combo, `provider/model` or a bare model name. */
export function resolveFromCatalog(model: string, catalog: CatalogPort): Resolution | null {
  return resolveModel(model, { providers: catalog.providers(), getCombo: (name) => catalog.combo(name), aliases: catalog.aliases() });
}

export function planRequest(model: string, catalog: CatalogPort, routing?: PlanRouting): RequestPlan | null {
  const resolution = resolveFromCatalog(model, catalog);
  if (!resolution || resolution.combo === null) return resolution;
  const comboDef = catalog.combo(resolution.combo);
  if (!comboDef) return resolution;
  const targets = routing ? routing.router.order(comboDef, resolution.targets, routing) : resolution.targets;
  return { targets, combo: resolution.combo, comboDef };
}
