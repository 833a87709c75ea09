// Which providers a model name the Connect page offers goes to, for the check shown before its
// snippets (R23.4).
import type { Combo, Provider } from "../../../../shared/types.js";

/**
 * The providers a model name reaches: `provider/model` its provider, a combo every provider of its
 * targets (nested combos included), a bare model the first provider listing it (R1.3).
 */
export function providersOfModel(model: string, providers: readonly Provider[], comboList: readonly Combo[], seen = new Set<string>()): string[] {
  const combo = comboList.find((c) => c.name === model);
  if (combo) {
    if (seen.has(combo.name)) return [];
    seen.add(combo.name);
    const ids = combo.targets.flatMap((t) => providersOfModel(t.model, providers, comboList, seen));
    return [...new Set(ids)];
  }
  const slash = model.indexOf("/");
  if (slash > 0 && providers.some((p) => p.id === model.slice(0, slash))) return [model.slice(0, slash)];
  const serving = [...providers].sort((a, b) => a.priority - b.priority).find((p) => p.models.includes(model));
  return serving ? [serving.id] : [];
}
