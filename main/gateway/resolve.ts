// R1.3 model addressing: alias, combo name, `provider/model`, or a bare model name.
import type { AppSettings, Combo, Provider } from "../../shared/types.js";

export interface Target {
  provider: Provider;
  /** Model id sent upstream. */
  model: string;
  connectionId?: string;
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

function serves(provider: Provider, model: string): boolean {
  return provider.passthroughModels || provider.models.length === 0 || provider.models.includes(model);
}

function resolveDirect(name: string, providers: Provider[]): Target[] {
  const slash = name.indexOf("/");
  if (slash > 0) {
    const provider = providers.find((p) => p.id === name.slice(0, slash));
    const model = name.slice(slash + 1);
    if (provider && model && serves(provider, model)) return [{ provider, model }];
  }
  // A bare name (or one whose prefix is not a provider, such as "anthropic/claude-x" on a router):
  // every provider that lists it, in provider order.
  return providers.filter((p) => p.models.includes(name)).map((provider) => ({ provider, model: name }));
}

export function resolveModel(name: string, catalog: Catalog, depth = 0): Resolution | null {
  if (!name || depth > 3) return null;
  const alias = catalog.aliases[name];
  if (alias && alias !== name) return resolveModel(alias, catalog, depth + 1);
  const combo = catalog.getCombo(name);
  if (combo) {
    const targets: Target[] = [];
    for (const t of combo.targets) {
      const [target] = resolveDirect(t.model, catalog.providers);
      if (target) targets.push(t.connectionId ? { ...target, connectionId: t.connectionId } : target);
    }
    return { targets, combo: combo.name };
  }
  const targets = resolveDirect(name, catalog.providers);
  return targets.length ? { targets, combo: null } : null;
}
