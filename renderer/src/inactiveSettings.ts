// Settings the dashboard shows and the server stores, but that no request-path code reads yet
// (issue 8: nothing pretends). Each entry says what will make it live; the issue that builds
// that feature deletes the entry here, and every "not active yet" mark it drove disappears.
// Keys are "<document>.<path>"; an entry covers everything below its path.
//
// Stored-only values the dashboard does not show at all are not listed (maxConcurrent,
// rateLimitOverrides, rateLimitProtection, quotaShareConcurrencyLimit, quotaPreflightCutoff,
// a combo's targetTimeoutMs and quotaShare):
// a page that starts showing one before its feature exists adds it here.
export const INACTIVE_SETTINGS = {
  "resilience.requestQueue": "the request queue (R9)",
  "resilience.comboCooldownWait": "cooldown-aware combo retry (R11.4)",
  "resilience.streamRecovery.midstreamEnabled": "mid-stream continuation (R13.3)",
  "resilience.p2cLatency": "the p2c combo strategy and its latency signal (R4.10)",
  "combo.strategy": "routing by the combo's strategy (R11.1)",
  "combo.config.comboCooldownWaitEnabled": "cooldown-aware combo retry (R11.4)",
  "combo.targets.weight": "the weighted combo strategy (R11.1)",
  "connection.weight": "weighted strategies (R11.1)",
} as const;

export type InactiveSetting = keyof typeof INACTIVE_SETTINGS;

/** The combo strategies the gateway routes by today; every other one is stored only. */
export const LIVE_COMBO_STRATEGIES: ReadonlySet<string> = new Set(["priority"]);

/** What will make `key` (or the entry it falls under) live, or null when it is live already. */
export function inactiveReason(key: string): string | null {
  for (let path = key; path !== ""; path = path.includes(".") ? path.slice(0, path.lastIndexOf(".")) : "") {
    if (path in INACTIVE_SETTINGS) return INACTIVE_SETTINGS[path as InactiveSetting];
  }
  return null;
}

/** Why a combo's strategy has no effect yet, or null for a strategy the gateway follows. */
export function strategyInactiveReason(strategy: string): string | null {
  return LIVE_COMBO_STRATEGIES.has(strategy) ? null : inactiveReason("combo.strategy");
}
