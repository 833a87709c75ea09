// Closed lists the API validates and the renderer offers. Kept free of zod so that the renderer
// bundle does not carry the schema library just to fill a <select>.

/** R11.1: the routing strategies a combo may name. */
export const COMBO_STRATEGIES = [
  "priority", "weighted", "round-robin", "fill-first", "p2c", "random", "strict-random",
  "least-used", "cost-optimized", "reset-aware", "reset-window", "headroom", "quota-weighted",
  "lkgp", "context-optimized", "context-relay", "cache-optimized", "auto", "fusion", "pipeline",
] as const;

export type ComboStrategy = (typeof COMBO_STRATEGIES)[number];

/** A stored combo's strategy as one of the list (the API only ever stores those); else "priority". */
export function comboStrategyOf(value: string | undefined): ComboStrategy {
  return COMBO_STRATEGIES.find((strategy) => strategy === value) ?? "priority";
}

export const PROVIDER_FORMATS = ["openai", "anthropic", "gemini", "simulator"] as const;
export const PROVIDER_CATEGORIES = ["apikey", "oauth", "local"] as const;
