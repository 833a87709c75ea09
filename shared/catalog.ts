// Closed lists the API validates and the renderer offers. Kept free of zod so that the renderer
// bundle does not carry the schema library just to fill a <select>.

/** R11.1: the routing strategies a combo may name. */
export const COMBO_STRATEGIES = [
  "priority",
  "weighted",
  "round-robin",
  "fill-first",
  "p2c",
  "random",
  "strict-random",
  "least-used",
  "cost-optimized",
  "reset-aware",
  "reset-window",
  "headroom",
  "quota-weighted",
  "lkgp",
  "context-optimized",
  "context-relay",
  "cache-optimized",
  "auto",
  "fusion",
  "pipeline",
] as const;

export type ComboStrategy = (typeof COMBO_STRATEGIES)[number];

/** What each strategy does, in one line (the combo form's hint, the README table). */
export const STRATEGY_SUMMARIES: Record<ComboStrategy, string> = {
  priority: "Always the first target; the others only when it fails.",
  weighted: "Random by target weight (1:3 gives about 25 %/75 %); all weights 0 means uniform.",
  "round-robin": "Each request starts at the next target: a, b, c, a, …",
  "fill-first": "The first target until its quota is used up, then the next.",
  p2c: "Two random targets, the less loaded one first (optionally also the faster, more reliable one).",
  random: "A uniformly random target on every request.",
  "strict-random": "Random without repeats: every target leads once per cycle of a shuffled deck.",
  "least-used": "The target with the fewest requests so far.",
  "cost-optimized": "The cheapest input price first.",
  "reset-aware": "Spend first the quota that resets soonest.",
  "reset-window": "The target with the most quota left per second until its reset.",
  headroom: "The target with the largest share of its quota left.",
  "quota-weighted": "Random in proportion to the quota each target has left.",
  lkgp: "The target that last answered successfully, then the combo order.",
  "context-optimized": "The largest context window first.",
  "context-relay": "Stay on the session's target while the conversation fits, then move to one that holds it.",
  "cache-optimized": "Keep a session on the target with its warm prompt cache, then caching-capable targets.",
  auto: "The healthiest target by error rate, latency, load and quota, decided without randomness.",
  fusion: "A blend of the combo order, price, context window, quota left and health rankings.",
  pipeline: "The target with the fewest requests in flight, so concurrent requests spread out.",
};

/** A stored combo's strategy as one of the list (the API only ever stores those); else "priority". */
export function comboStrategyOf(value: string | undefined): ComboStrategy {
  return COMBO_STRATEGIES.find((strategy) => strategy === value) ?? "priority";
}

export const PROVIDER_FORMATS = ["openai", "openai-responses", "anthropic", "gemini", "simulator"] as const;
export const PROVIDER_CATEGORIES = ["apikey", "oauth", "local"] as const;

/** What every client key Switchyard issues starts with (R1.7). */
export const CLIENT_KEY_PREFIX = "sk-sy-";
