// The tray's state and menu (R14.1) as pure data: electron-main turns the template into a Menu
// and wires the item ids to actions. No electron import, so it is unit-tested under Node.
import type { BreakerState } from "../../shared/types.js";
import { isRecord } from "../../shared/records.js";
import { paceText, textBar, type QuotaPace } from "../../shared/quotaPace.js";
import { formatCompact, formatRemaining, formatUsd } from "../../shared/usageText.js";

export type TrayHealth = "healthy" | "degraded" | "open";

export interface TrayState {
  health: TrayHealth;
  /** Providers whose breaker is OPEN or HALF_OPEN (not admitting normal traffic). */
  openProviders: string[];
  degradedProviders: string[];
}

/** What the menu shows besides health; null = not known yet (the toggle is then disabled). */
export interface TraySwitches {
  proxyEnabled: boolean | null;
  modelLockoutEnabled: boolean | null;
  /** The OpenAI-style base URL clients point at. */
  endpoint: string;
}

/** Today's use and the quota window nearest its wall (R18.6 in the tray); null = not read yet. */
export interface TrayUsage {
  todayTokens: number;
  todayCostUsd: number;
  quota: { label: string; usedPercent: number; resetAt: number | null } | null;
  /** R21.6: the fullest 5-hour and weekly subscription windows, drawn as bars (then `quota` is not shown). */
  windows?: TrayWindow[];
}

/** One subscription window in the tray (R21.6). */
export interface TrayWindow {
  /** "5h" or "7d". */
  window: TrayWindowName;
  /** Whose window: the connection's name. */
  name: string;
  usedPercent: number;
  resetAt: number | null;
  pace: QuotaPace | null;
  /** When the upstream last said it (epoch ms). */
  seenAt: number;
}

export type TrayWindowName = "5h" | "7d";
export const TRAY_WINDOWS: readonly TrayWindowName[] = ["5h", "7d"];

/**
 * A window bar whose reading is older than this is dimmed (shown disabled, with its age): 30 min
 * is a sixth of a 5-hour window, long enough that an idle account's window has moved on without
 * the tray seeing it, short enough that a working session (an answer every few minutes) stays lit.
 */
export const TRAY_WINDOW_STALE_MS = 30 * 60_000;

export type TrayAction = "open-dashboard" | "toggle-proxy" | "toggle-model-lockout" | "reset-cooldowns" | "reset-breakers" | "copy-endpoint" | "quit";

export type TrayMenuItem =
  | { type: "normal"; id: TrayAction | TrayInfoLine; label: string; enabled: boolean }
  | { type: "checkbox"; id: TrayAction; label: string; checked: boolean; enabled: boolean }
  | { type: "separator" };

/** Menu lines that only inform: no action; shown disabled, except a fresh window bar (lit; a stale one is dimmed). */
export type TrayInfoLine = "status" | "usage-today" | "usage-quota" | "usage-window-5h" | "usage-window-7d";

/** A usage line of the menu: `enabled` only for a window bar whose reading is fresh (R21.6). */
export interface TrayUsageLine {
  id: TrayInfoLine;
  label: string;
  enabled?: boolean;
}

const INFO_LINES: ReadonlySet<string> = new Set<TrayInfoLine>(["status", "usage-today", "usage-quota", "usage-window-5h", "usage-window-7d"]);
const isInfoLine = (id: string): id is TrayInfoLine => INFO_LINES.has(id);

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

/** "5h ██████░░░░ 62 % · runs out at 15:40 at this pace · Max plan", dimmed (disabled, with its age) when stale. */
export function trayWindowLine(w: TrayWindow, now: number): TrayUsageLine {
  const used = Math.round(w.usedPercent);
  const words = paceText(w.pace, now, w.usedPercent) ?? (w.resetAt === null ? null : w.resetAt > now ? `resets in ${formatRemaining(w.resetAt - now)}` : "reset passed");
  const age = now - w.seenAt;
  const stale = age > TRAY_WINDOW_STALE_MS;
  const parts = [`${w.window} ${textBar(w.usedPercent)} ${used} %`, ...(words ? [words] : []), w.name, ...(stale ? [`seen ${formatRemaining(age)} ago`] : [])];
  return { id: `usage-window-${w.window}`, label: parts.join(" · "), enabled: !stale };
}

/**
 * "Today: 12.3k tokens · $0.42", then the 5-hour and weekly windows as bars with their pace (R21.6),
 * or, without those, "Quota: Work key 5h 82 % · resets in 1 h 20 min" (when one is known).
 */
export function trayUsageLines(usage: TrayUsage | null, now: number): TrayUsageLine[] {
  if (!usage) return [];
  const lines: TrayUsageLine[] = [{ id: "usage-today", label: `Today: ${formatCompact(usage.todayTokens)} tokens · ${formatUsd(usage.todayCostUsd)}` }];
  if (usage.windows?.length) return [...lines, ...usage.windows.map((w) => trayWindowLine(w, now))];
  const q = usage.quota;
  if (q) {
    const left = q.resetAt === null ? "" : q.resetAt > now ? ` · resets in ${formatRemaining(q.resetAt - now)}` : " · reset passed";
    lines.push({ id: "usage-quota", label: `Quota: ${q.label} ${Math.round(q.usedPercent)} %${left}` });
  }
  return lines;
}

export function trayTooltip(state: TrayState, switches: TraySwitches, usageLines: ReadonlyArray<{ label: string }> = []): string {
  const proxy = switches.proxyEnabled === false ? " · proxy off" : "";
  return [`Switchyard — ${trayStatusLine(state)}${proxy}`, ...usageLines.map((l) => l.label)].join("\n");
}

export function buildTrayMenuTemplate(state: TrayState, switches: TraySwitches, usageLines: readonly TrayUsageLine[] = []): TrayMenuItem[] {
  return [
    { type: "normal", id: "status", label: trayStatusLine(state), enabled: false },
    ...usageLines.map((l): TrayMenuItem => ({ type: "normal", id: l.id, label: l.label, enabled: l.enabled ?? false })),
    { type: "separator" },
    { type: "normal", id: "open-dashboard", label: "Open dashboard", enabled: true },
    { type: "separator" },
    { type: "checkbox", id: "toggle-proxy", label: "Proxy enabled", checked: switches.proxyEnabled === true, enabled: switches.proxyEnabled !== null },
    { type: "checkbox", id: "toggle-model-lockout", label: "Model lockout", checked: switches.modelLockoutEnabled === true, enabled: switches.modelLockoutEnabled !== null },
    { type: "separator" },
    { type: "normal", id: "reset-cooldowns", label: "Reset all cooldowns", enabled: true },
    { type: "normal", id: "reset-breakers", label: "Reset breakers", enabled: true },
    { type: "separator" },
    { type: "normal", id: "copy-endpoint", label: `Copy endpoint URL (${switches.endpoint})`, enabled: true },
    { type: "separator" },
    { type: "normal", id: "quit", label: "Quit Switchyard", enabled: true },
  ];
}

/** Electron's MenuItemConstructorOptions, structurally: what Menu.buildFromTemplate accepts. */
export interface NativeMenuItem {
  type: "normal" | "checkbox" | "separator";
  id?: string;
  label?: string;
  enabled?: boolean;
  checked?: boolean;
  click?: () => void;
}

/** The template as Electron menu items, each actionable item calling `run` with its id. */
export function toNativeMenu(items: readonly TrayMenuItem[], run: (action: TrayAction) => void): NativeMenuItem[] {
  return items.map((item): NativeMenuItem => {
    if (item.type === "separator") return { type: "separator" };
    const id = item.id;
    const click = isInfoLine(id) ? undefined : () => run(id);
    if (item.type === "checkbox") return { type: "checkbox", id, label: item.label, checked: item.checked, enabled: item.enabled, click };
    return { type: "normal", id, label: item.label, enabled: item.enabled, click };
  });
}

/** Reads breaker states from a monitoringHealth result (R2.6), ignoring anything malformed. */
export function breakersFromHealth(health: unknown): Record<string, BreakerState> {
  const out: Record<string, BreakerState> = {};
  const list = isRecord(health) ? health.providerBreakers : undefined;
  if (!Array.isArray(list)) return out;
  for (const item of list) {
    if (!isRecord(item)) continue;
    const { provider, state } = item;
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
