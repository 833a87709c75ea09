// Settings the dashboard shows and the server stores, but that no request-path code reads yet
// (issue 8: nothing pretends). Each entry says what will make it live; the issue that builds
// that feature deletes the entry here, and every "not active yet" mark it drove disappears.
// Keys are "<document>.<path>"; an entry covers everything below its path.
//
// Stored-only values the dashboard does not show are not listed: a page that starts showing one
// before its feature exists adds it here. (quotaPreflightCutoff and a combo's targetTimeoutMs,
// once listed in this comment, are live since issue 26: selection and the attempt read them.)
import { COMBO_STRATEGIES } from "../../shared/catalog.js";

// Empty since issue 26: a connection's weight now shares traffic among its provider's connections.
export const INACTIVE_SETTINGS = {} as const satisfies Record<string, string>;

export type InactiveSetting = keyof typeof INACTIVE_SETTINGS;

/** The combo strategies the gateway routes by: all of them since issue 9 (R11.1). */
export const LIVE_COMBO_STRATEGIES: ReadonlySet<string> = new Set(COMBO_STRATEGIES);

/** What will make `key` (or the entry of `settings` it falls under) live, or null when it is live already. */
export function inactiveReason(key: string, settings: Readonly<Record<string, string>> = INACTIVE_SETTINGS): string | null {
  for (let path = key; path !== ""; path = path.includes(".") ? path.slice(0, path.lastIndexOf(".")) : "") {
    if (Object.hasOwn(settings, path)) return settings[path] ?? null;
  }
  return null;
}

/** Why a combo's strategy has no effect yet, or null for a strategy the gateway follows. */
export function strategyInactiveReason(strategy: string): string | null {
  return LIVE_COMBO_STRATEGIES.has(strategy) ? null : inactiveReason("combo.strategy");
}
