// Settings the dashboard shows and the server stores, but that no request-path code reads yet
// (issue 8: nothing pretends). Each entry says what will make it live; the issue that builds
// that feature deletes the entry here, and every "not active yet" mark it drove disappears.
// Keys are "<document>.<path>"; an entry covers everything below its path.
//
// Stored-only values the dashboard does not show at all are not listed (quotaPreflightCutoff,
// a combo's targetTimeoutMs):
// a page that starts showing one before its feature exists adds it here.
import { COMBO_STRATEGIES } from "../../shared/catalog.js";

export const INACTIVE_SETTINGS = {
  "connection.weight": "a connection weight (combos weight their targets, R11.1; nothing reads a connection's)",
} as const;

export type InactiveSetting = keyof typeof INACTIVE_SETTINGS;

/** The combo strategies the gateway routes by: all of them since issue 9 (R11.1). */
export const LIVE_COMBO_STRATEGIES: ReadonlySet<string> = new Set(COMBO_STRATEGIES);

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
