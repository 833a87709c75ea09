// R14.1: the tray icon follows provider health and the menu is built from pure state.
import { describe, expect, it, vi } from "vitest";
import {
  breakersFromHealth,
  buildTrayMenuTemplate,
  toNativeMenu,
  TRAY_ICON_FILES,
  trayStateFromBreakers,
  trayStatusLine,
  trayTooltip,
  trayUsageLines,
  trayWindowLine,
  TRAY_WINDOW_STALE_MS,
  type TrayWindow,
} from "../../../main/desktop/trayMenu.js";

describe("tray state", () => {
  it("R14.1 is healthy with no breakers or only CLOSED ones", () => {
    expect(trayStateFromBreakers({})).toEqual({ health: "healthy", openProviders: [], degradedProviders: [] });
    expect(trayStateFromBreakers({ a: "CLOSED", b: "CLOSED" }).health).toBe("healthy");
  });

  it("R14.1 is degraded when some breaker is DEGRADED and none is open", () => {
    expect(trayStateFromBreakers({ b: "DEGRADED", a: "CLOSED", c: "DEGRADED" })).toEqual({ health: "degraded", openProviders: [], degradedProviders: ["b", "c"] });
  });

  it("R14.1 shows 'open' when any provider is OPEN or HALF_OPEN, whatever the others are", () => {
    const state = trayStateFromBreakers({ z: "OPEN", a: "HALF_OPEN", d: "DEGRADED" });
    expect(state).toEqual({ health: "open", openProviders: ["a", "z"], degradedProviders: ["d"] });
    expect(trayStatusLine(state)).toBe("Circuit open: a, z");
  });

  it("R14.1 keeps the status line short with many providers", () => {
    const state = trayStateFromBreakers({ a: "OPEN", b: "OPEN", c: "OPEN", d: "OPEN", e: "OPEN" });
    expect(trayStatusLine(state)).toBe("Circuit open: a, b, c and 2 more");
  });

  it("R14.1 has one icon file per health state", () => {
    expect(Object.keys(TRAY_ICON_FILES).sort()).toEqual(["degraded", "healthy", "open"]);
  });
});

const SWITCHES = { proxyEnabled: true, modelLockoutEnabled: false, endpoint: "http://127.0.0.1:8642/v1" };

describe("buildTrayMenuTemplate", () => {
  it("R14.1 lists status, Open dashboard, the two toggles, the resets, Copy endpoint URL and Quit", () => {
    const template = buildTrayMenuTemplate(trayStateFromBreakers({ sim: "DEGRADED" }), SWITCHES);
    expect(template).toEqual([
      { type: "normal", id: "status", label: "Degraded: sim", enabled: false },
      { type: "separator" },
      { type: "normal", id: "open-dashboard", label: "Open dashboard", enabled: true },
      { type: "separator" },
      { type: "checkbox", id: "toggle-proxy", label: "Proxy enabled", checked: true, enabled: true },
      { type: "checkbox", id: "toggle-model-lockout", label: "Model lockout", checked: false, enabled: true },
      { type: "separator" },
      { type: "normal", id: "reset-cooldowns", label: "Reset all cooldowns", enabled: true },
      { type: "normal", id: "reset-breakers", label: "Reset breakers", enabled: true },
      { type: "separator" },
      { type: "normal", id: "copy-endpoint", label: "Copy endpoint URL (http://127.0.0.1:8642/v1)", enabled: true },
      { type: "separator" },
      { type: "normal", id: "quit", label: "Quit Switchyard", enabled: true },
    ]);
  });

  it("R14.1 reflects live state: status line and toggles follow the state it is built from", () => {
    const healthy = buildTrayMenuTemplate(trayStateFromBreakers({ sim: "CLOSED" }), SWITCHES);
    const open = buildTrayMenuTemplate(trayStateFromBreakers({ sim: "OPEN" }), { ...SWITCHES, proxyEnabled: false, modelLockoutEnabled: true });
    expect(healthy[0]).toMatchObject({ label: "All providers healthy" });
    expect(open[0]).toMatchObject({ label: "Circuit open: sim" });
    expect(open.filter((i) => i.type === "checkbox")).toMatchObject([{ checked: false }, { checked: true }]);
  });

  it("R14.1 a toggle whose state is not known yet is shown disabled, never guessed", () => {
    const template = buildTrayMenuTemplate(trayStateFromBreakers({}), { ...SWITCHES, proxyEnabled: null, modelLockoutEnabled: null });
    expect(template.filter((i) => i.type === "checkbox")).toMatchObject([
      { enabled: false, checked: false },
      { enabled: false, checked: false },
    ]);
  });

  it("R14.1 the tooltip says when the proxy is off", () => {
    const state = trayStateFromBreakers({ a: "OPEN" });
    expect(trayTooltip(state, SWITCHES)).toBe("Switchyard — Circuit open: a");
    expect(trayTooltip(state, { ...SWITCHES, proxyEnabled: false })).toBe("Switchyard — Circuit open: a · proxy off");
  });

  it("R14.1 native menu items call the action of their id; the status line and separators do nothing", () => {
    const run = vi.fn();
    const items = toNativeMenu(buildTrayMenuTemplate(trayStateFromBreakers({}), SWITCHES), run);
    expect(items[0]).toMatchObject({ type: "normal", label: "All providers healthy", enabled: false, click: undefined });
    expect(items[1]).toEqual({ type: "separator" });
    expect(items.find((i) => i.id === "toggle-proxy")).toMatchObject({ type: "checkbox", checked: true });
    for (const item of items) item.click?.();
    expect(run.mock.calls.map(([id]) => id)).toEqual(["open-dashboard", "toggle-proxy", "toggle-model-lockout", "reset-cooldowns", "reset-breakers", "copy-endpoint", "quit"]);
  });
});

describe("breakersFromHealth", () => {
  it("R2.6 reads provider breaker states from monitoringHealth and ignores malformed entries", () => {
    const health = {
      ok: true,
      providerBreakers: [{ provider: "a", state: "OPEN", failureCount: 2 }, { provider: "b", state: "DEGRADED" }, { provider: "c", state: "EXPLODED" }, { state: "OPEN" }, null],
    };
    expect(breakersFromHealth(health)).toEqual({ a: "OPEN", b: "DEGRADED" });
    expect(breakersFromHealth(null)).toEqual({});
    expect(breakersFromHealth({ providerBreakers: "nope" })).toEqual({});
  });
});

describe("tray usage lines", () => {
  const usage = { todayTokens: 12_345, todayCostUsd: 0.4213, quota: { label: "Work key 5h", usedPercent: 82.4, resetAt: 10_000 + 4_800_000 } };

  it("R18.6 shows today's tokens and cost and the quota nearest its wall with its reset countdown", () => {
    const lines = trayUsageLines(usage, 10_000);
    expect(lines).toEqual([
      { id: "usage-today", label: "Today: 12.3k tokens · $0.42" },
      { id: "usage-quota", label: "Quota: Work key 5h 82 % · resets in 1 h 20 min" },
    ]);
    expect(trayUsageLines({ ...usage, quota: null }, 0)).toEqual([{ id: "usage-today", label: "Today: 12.3k tokens · $0.42" }]);
    expect(trayUsageLines(usage, 10_000 + 4_800_000)[1].label).toBe("Quota: Work key 5h 82 % · reset passed");
    expect(trayUsageLines(null, 0)).toEqual([]);
  });

  it("R18.6 the lines sit under the status line, inform only, and end the tooltip", () => {
    const lines = trayUsageLines(usage, 10_000);
    const template = buildTrayMenuTemplate(trayStateFromBreakers({}), SWITCHES, lines);
    expect(template.slice(0, 4)).toEqual([
      { type: "normal", id: "status", label: "All providers healthy", enabled: false },
      { type: "normal", id: "usage-today", label: "Today: 12.3k tokens · $0.42", enabled: false },
      { type: "normal", id: "usage-quota", label: "Quota: Work key 5h 82 % · resets in 1 h 20 min", enabled: false },
      { type: "separator" },
    ]);
    const run = vi.fn();
    for (const item of toNativeMenu(template, run)) item.click?.();
    expect(run.mock.calls.map(([id]) => id)).not.toContain("usage-today");
    expect(trayTooltip(trayStateFromBreakers({}), SWITCHES, lines)).toBe(
      "Switchyard — All providers healthy\nToday: 12.3k tokens · $0.42\nQuota: Work key 5h 82 % · resets in 1 h 20 min",
    );
  });
});

describe("R21.6 tray window bars", () => {
  const now = new Date(2026, 11, 3, 12, 0).getTime();
  const window = (over: Partial<TrayWindow> = {}): TrayWindow => ({
    window: "5h",
    name: "Max plan",
    usedPercent: 62,
    resetAt: now + 2 * 3_600_000,
    pace: null,
    seenAt: now - 60_000,
    ...over,
  });

  it("R21.6 the 5-hour and weekly windows are bars with their pace; they replace the single quota line", () => {
    const usage = {
      todayTokens: 1_000,
      todayCostUsd: 0,
      quota: { label: "Max plan 5h", usedPercent: 62, resetAt: null },
      windows: [
        window({ pace: { state: "deficit", runsOutAt: new Date(2026, 11, 3, 15, 40).getTime() } }),
        window({ window: "7d", usedPercent: 30, resetAt: now + 4 * 86_400_000, pace: { state: "reserve" } }),
      ],
    };
    expect(trayUsageLines(usage, now)).toEqual([
      { id: "usage-today", label: "Today: 1k tokens · $0.00" },
      { id: "usage-window-5h", label: "5h ██████░░░░ 62 % · runs out at 15:40 at this pace · Max plan", enabled: true },
      { id: "usage-window-7d", label: "7d ███░░░░░░░ 30 % · lasts until the reset, with room to spare · Max plan", enabled: true },
    ]);
    const template = buildTrayMenuTemplate(trayStateFromBreakers({}), SWITCHES, trayUsageLines(usage, now));
    expect(template[2]).toMatchObject({ id: "usage-window-5h", enabled: true });
    const run = vi.fn();
    for (const item of toNativeMenu(template, run)) item.click?.();
    expect(run.mock.calls.map(([id]) => id)).not.toContain("usage-window-5h");
  });

  it(`R21.6 a window not seen for ${TRAY_WINDOW_STALE_MS / 60_000} min is dimmed (disabled) and says how old it is`, () => {
    expect(trayWindowLine(window({ seenAt: now - TRAY_WINDOW_STALE_MS }), now).enabled).toBe(true);
    expect(trayWindowLine(window({ seenAt: now - TRAY_WINDOW_STALE_MS - 60_000, pace: { state: "on_pace" } }), now)).toEqual({
      id: "usage-window-5h",
      label: "5h ██████░░░░ 62 % · lasts until the reset · Max plan · seen 31 min ago",
      enabled: false,
    });
  });
});
