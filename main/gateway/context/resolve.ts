// R1.3 model addressing: alias, combo name, `provider/model`, or a bare model name. A combo target
// may name another combo (D11): it is expanded in place, up to a nesting depth of 3.
import type { AppSettings, Combo, Provider } from "../../../shared/types.js";

export interface Target {
  provider: Provider;
  /** Model id sent upstream. */
  model: string;
  connectionId?: string;
  /** The combo target's weight (default 1), multiplied through nested combos. */
  weight?: number;
  /**
   * R24.2: the provider does not list the model; it takes it only because it serves client logins,
   * so only a request with a login for it may go there, and only on that login.
   */
  loginOnly?: boolean;
}

export interface Resolution {
  targets: Target[];
  combo: string | null;
}

export interface Catalog {
  providers: Provider[];
  getCombo(name: string): Combo | null;
  aliases: AppSettings["aliases"];
}

/** D11: nesting allowed by default; the save-time check refuses deeper combos. */
export const MAX_COMBO_DEPTH = 3;
/** D11 hard cap: resolution never expands deeper than this, whatever was stored. */
export const HARD_COMBO_DEPTH = 10;

/** Whether the provider takes the model by its own list (or takes any name); else only on a login (R24.2). */
function lists(provider: Provider, model: string): boolean {
  return provider.passthroughModels || provider.models.length === 0 || provider.models.includes(model);
}

function targetOn(provider: Provider, model: string): Target {
  return lists(provider, model) ? { provider, model } : { provider, model, loginOnly: true };
}

export function resolveDirect(name: string, providers: Provider[]): Target[] {
  const slash = name.indexOf("/");
  if (slash > 0) {
    const provider = providers.find((p) => p.id === name.slice(0, slash));
    const model = name.slice(slash + 1);
    if (provider && model && (lists(provider, model) || provider.servesLogins === true)) return [targetOn(provider, model)];
  }
  // A bare name (or one whose prefix is not a provider, such as "anthropic/claude-x" on a router):
  // every provider that lists it, lower priority first (R1.3), ties in provider order (creation).
  // The rest stay behind the first for failover. Resolutions are memoised (plan.ts): no sort per request.
  // R21.10, R24.2: the providers that serve logins take any name (Claude Code's small-fast model among
  // them) beside the providers that list it, in priority order; one that does not list it is a target
  // for a request with a login only (the client-logins feature drops it otherwise).
  const serving = providers.filter((p) => p.models.includes(name) || p.servesLogins === true);
  return byPriority(serving).map((provider) => (provider.models.includes(name) ? { provider, model: name } : { provider, model: name, loginOnly: true }));
}

/** Stable: equal priorities keep their order. */
function byPriority(providers: Provider[]): Provider[] {
  if (providers.length < 2) return providers;
  return providers
    .map((p, index) => ({ p, index }))
    .sort((a, b) => a.p.priority - b.p.priority || a.index - b.index)
    .map(({ p }) => p);
}

/** The combo's targets with nested combos expanded; a cycle or a branch past `maxDepth` yields nothing. */
export function expandCombo(combo: Combo, catalog: Catalog, maxDepth = HARD_COMBO_DEPTH, path: readonly string[] = []): Target[] {
  const seen = [...path, combo.name];
  const targets: Target[] = [];
  for (const t of combo.targets) {
    const weight = t.weight ?? 1;
    const inner = catalog.getCombo(t.model);
    if (inner) {
      if (seen.includes(inner.name) || seen.length >= maxDepth) continue;
      for (const nested of expandCombo(inner, catalog, maxDepth, seen)) targets.push({ ...nested, weight: weight * (nested.weight ?? 1) });
      continue;
    }
    const [target] = resolveDirect(t.model, catalog.providers);
    if (target) targets.push(t.connectionId ? { ...target, connectionId: t.connectionId, weight } : { ...target, weight });
  }
  return targets;
}

export function resolveModel(name: string, catalog: Catalog, depth = 0): Resolution | null {
  if (!name || depth > 3) return null;
  const alias = catalog.aliases[name];
  if (alias && alias !== name) return resolveModel(alias, catalog, depth + 1);
  const combo = catalog.getCombo(name);
  if (combo) return { targets: expandCombo(combo, catalog), combo: combo.name };
  const targets = resolveDirect(name, catalog.providers);
  return targets.length ? { targets, combo: null } : null;
}
