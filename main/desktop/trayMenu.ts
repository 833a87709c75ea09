// The tray's state and menu (R14.1) as pure data: electron-main turns the template into a Menu
// and wires the item ids to actions. No electron import, so it is unit-tested under Node.
import type { BreakerState } from "../../shared/types.js";

export type TrayHealth = "healthy" | "degraded" | "open";

export interface TrayState {
  health: TrayHealth;
  /** Providers whose breaker is OPEN or HALF_OPEN (not admitting normal traffic). */
  openProviders: string[];
  degradedProviders: string[];
}

export type TrayAction = "open-dashboard" | "quit";

export type TrayMenuItem =
  | { type: "normal"; id: TrayAction | "status"; label: string; enabled: boolean }
  | { type: "separator" };

export const TRAY_ICON_FILES: Record<TrayHealth, string> = {
  healthy: "tray-healthy.png",
  degraded: "tray-degraded.png",
  open: "tray-open.png",
};

export function trayStateFromBreakers(breakers: Readonly<Record<string, BreakerState>>): TrayState {
  const openProviders: string[] = [];
  const degradedProviders: string[] = [];
  for (const [provider, state] of Object.entries(breakers)) {
    if (state === "OPEN" || state === "HALF_OPEN") openProviders.push(provider);
    else if (state === "DEGRADED") degradedProviders.push(provider);
  }
  openProviders.sort();
  degradedProviders.sort();
  const health: TrayHealth = openProviders.length > 0 ? "open" : degradedProviders.length > 0 ? "degraded" : "healthy";
  return { health, openProviders, degradedProviders };
}

export function trayStatusLine(state: TrayState): string {
  if (state.health === "open") return `Circuit open: ${listNames(state.openProviders)}`;
  if (state.health === "degraded") return `Degraded: ${listNames(state.degradedProviders)}`;
  return "All providers healthy";
}

export function buildTrayMenuTemplate(state: TrayState): TrayMenuItem[] {
  return [
    { type: "normal", id: "status", label: trayStatusLine(state), enabled: false },
    { type: "separator" },
    { type: "normal", id: "open-dashboard", label: "Open dashboard", enabled: true },
    { type: "separator" },
    { type: "normal", id: "quit", label: "Quit Switchyard", enabled: true },
  ];
}

/** Reads breaker states from a monitoringHealth result (R2.6), ignoring anything malformed. */
export function breakersFromHealth(health: unknown): Record<string, BreakerState> {
  const out: Record<string, BreakerState> = {};
  const list = typeof health === "object" && health !== null ? (health as { providerBreakers?: unknown }).providerBreakers : undefined;
  if (!Array.isArray(list)) return out;
  for (const item of list) {
    const { provider, state } = (item ?? {}) as { provider?: unknown; state?: unknown };
    if (typeof provider === "string" && isBreakerState(state)) out[provider] = state;
  }
  return out;
}

function isBreakerState(value: unknown): value is BreakerState {
  return value === "CLOSED" || value === "DEGRADED" || value === "OPEN" || value === "HALF_OPEN";
}

/** A menu line stays short: three names, then a count. */
function listNames(names: string[]): string {
  return names.length <= 3 ? names.join(", ") : `${names.slice(0, 3).join(", ")} and ${names.length - 3} more`;
}
