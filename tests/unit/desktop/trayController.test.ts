// R14.1 / R15.2: the tray follows live state through events, its actions go through the contract
// handlers (so they are validated like any IPC or HTTP call), and a breaker opening raises a
// desktop notification. Runs under plain Node with fake handlers, bus and Electron effects.
import { describe, expect, it, vi } from "vitest";
import type { SwitchyardEvent } from "../../../shared/types.js";
import { createTrayController, type TrayRender } from "../../../main/desktop/trayController.js";
import { type FakeHandler, fakeHandlers } from "./fakeHandlers.js";

function setup(overrides: Record<string, FakeHandler> = {}) {
  const state = { proxyEnabled: true, lockout: false, breakers: [{ provider: "sim", state: "CLOSED" }] as Array<{ provider: string; state: string }> };
  const calls: Array<[string, Record<string, unknown>]> = [];
  const record = (name: string, fn: (input: Record<string, unknown>) => unknown) => (input: Record<string, unknown>) => {
    calls.push([name, input]);
    return fn(input);
  };
  const handlers = fakeHandlers({
    monitoringHealth: record("monitoringHealth", () => ({ ok: true, providerBreakers: state.breakers })),
    getSettings: record("getSettings", () => ({ proxyEnabled: state.proxyEnabled })),
    getResilience: record("getResilience", () => ({ modelLockout: { enabled: state.lockout } })),
    patchSettings: record("patchSettings", (input) => {
      state.proxyEnabled = input.proxyEnabled as boolean;
      return { proxyEnabled: state.proxyEnabled };
    }),
    patchResilience: record("patchResilience", (input) => {
      state.lockout = (input.modelLockout as { enabled: boolean }).enabled;
      return { modelLockout: { enabled: state.lockout } };
    }),
    clearCooldowns: record("clearCooldowns", () => ({ ok: true, cleared: 2, unchanged: 0, skippedTerminal: 1, lockoutsCleared: 3 })),
    resetBreakers: record("resetBreakers", () => {
      state.breakers = state.breakers.map((b) => ({ ...b, state: "CLOSED" }));
      return { ok: true, resetCount: 1 };
    }),
    ...Object.fromEntries(Object.entries(overrides).map(([name, fn]) => [name, record(name, fn)])),
  });
  const listeners = new Set<(event: SwitchyardEvent) => void>();
  const bus = {
    subscribe: vi.fn((listener: (event: SwitchyardEvent) => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    }),
  };
  const renders: TrayRender[] = [];
  const effects = {
    render: vi.fn((view: TrayRender) => void renders.push(view)),
    showWindow: vi.fn(),
    quit: vi.fn(),
    copyText: vi.fn(),
    notify: vi.fn(),
  };
  const controller = createTrayController({ handlers, bus, endpoint: "http://127.0.0.1:8642/v1", effects });
  const emit = (event: SwitchyardEvent) => {
    for (const listener of listeners) listener(event);
  };
  const last = () => renders[renders.length - 1];
  const item = (id: string) => last().menu.find((i) => i.type !== "separator" && i.id === id) as { checked?: boolean; label: string; enabled: boolean };
  return { state, calls, handlers, bus, listeners, effects, controller, emit, last, item, renders };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("tray controller", () => {
  it("R14.1 starts from the current health, proxy and model-lockout state", async () => {
    const t = setup();
    t.state.breakers = [{ provider: "sim", state: "DEGRADED" }];
    await t.controller.start();
    expect(t.last().health).toBe("degraded");
    expect(t.last().tooltip).toBe("Switchyard — Degraded: sim");
    expect(t.item("toggle-proxy")).toMatchObject({ checked: true, enabled: true });
    expect(t.item("toggle-model-lockout")).toMatchObject({ checked: false, enabled: true });
    expect(t.bus.subscribe).toHaveBeenCalledTimes(1);
  });

  it("R14.1 the icon and menu are rebuilt on breaker events; R14 an opening breaker notifies once", async () => {
    const t = setup();
    await t.controller.start();
    t.emit({ type: "breaker", provider: "sim", from: "CLOSED", to: "OPEN", at: 1 });
    expect(t.last()).toMatchObject({ health: "open", tooltip: "Switchyard — Circuit open: sim" });
    expect(t.effects.notify).toHaveBeenCalledTimes(1);
    expect(t.effects.notify.mock.calls[0][0]).toBe("sim is failing");
    t.emit({ type: "breaker", provider: "sim", from: "OPEN", to: "HALF_OPEN", at: 2 });
    t.emit({ type: "breaker", provider: "sim", from: "HALF_OPEN", to: "CLOSED", at: 3 });
    expect(t.last().health).toBe("healthy");
    expect(t.effects.notify).toHaveBeenCalledTimes(1);
  });

  it("R10.3 settings changed elsewhere (dashboard, API) re-read the toggles", async () => {
    const t = setup();
    await t.controller.start();
    t.state.proxyEnabled = false;
    t.emit({ type: "settings", scope: "settings", at: 1 });
    await flush();
    expect(t.item("toggle-proxy").checked).toBe(false);
    expect(t.last().tooltip).toContain("proxy off");
    t.state.lockout = true;
    t.emit({ type: "settings", scope: "resilience", at: 2 });
    await flush();
    expect(t.item("toggle-model-lockout").checked).toBe(true);
  });

  it("R14.1 a provider added or removed re-reads the breakers", async () => {
    const t = setup();
    await t.controller.start();
    t.state.breakers = [{ provider: "other", state: "OPEN" }];
    t.emit({ type: "config", entity: "provider", id: "other", action: "created", at: 1 });
    await flush();
    expect(t.last().tooltip).toBe("Switchyard — Circuit open: other");
  });

  it("R14.1 Proxy on/off patches settings.proxyEnabled; Model lockout on/off patches the resilience document", async () => {
    const t = setup();
    await t.controller.start();
    await t.controller.run("toggle-proxy");
    expect(t.calls).toContainEqual(["patchSettings", { proxyEnabled: false }]);
    expect(t.item("toggle-proxy").checked).toBe(false);
    await t.controller.run("toggle-model-lockout");
    expect(t.calls).toContainEqual(["patchResilience", { modelLockout: { enabled: true } }]);
    expect(t.item("toggle-model-lockout").checked).toBe(true);
  });

  it("R14.1 Reset all cooldowns and Reset breakers call the contract and report the counts", async () => {
    const t = setup();
    t.state.breakers = [{ provider: "sim", state: "OPEN" }];
    await t.controller.start();
    await t.controller.run("reset-cooldowns");
    expect(t.calls).toContainEqual(["clearCooldowns", { all: true }]);
    expect(t.effects.notify).toHaveBeenLastCalledWith(
      "Cooldowns reset",
      "2 connection(s) back in routing, 3 model lockout(s) cleared; 1 banned/expired/out-of-credit left as they are.",
    );
    await t.controller.run("reset-breakers");
    expect(t.calls).toContainEqual(["resetBreakers", {}]);
    expect(t.last().health).toBe("healthy");
    expect(t.effects.notify).toHaveBeenLastCalledWith("Breakers reset", "1 provider breaker(s) closed.");
  });

  it("R14.1 Open dashboard, Copy endpoint URL and Quit reach the shell", async () => {
    const t = setup();
    await t.controller.start();
    await t.controller.run("open-dashboard");
    await t.controller.run("copy-endpoint");
    await t.controller.run("quit");
    expect(t.effects.showWindow).toHaveBeenCalledTimes(1);
    expect(t.effects.copyText).toHaveBeenCalledWith("http://127.0.0.1:8642/v1");
    expect(t.effects.quit).toHaveBeenCalledTimes(1);
  });

  it("R14.1 a failing action is reported in a notification, not swallowed", async () => {
    const t = setup({
      patchSettings: () => {
        throw Object.assign(new Error("proxyEnabled: expected boolean"), { status: 400, code: "invalid_request" });
      },
    });
    await t.controller.start();
    await t.controller.run("toggle-proxy");
    expect(t.effects.notify).toHaveBeenLastCalledWith("Switchyard", "Could not switch the proxy: proxyEnabled: expected boolean");
    expect(t.item("toggle-proxy").checked).toBe(true);
  });

  it("R14.1 unreadable state leaves the toggles disabled instead of guessing", async () => {
    const t = setup({
      getSettings: () => {
        throw new Error("store closed");
      },
    });
    await t.controller.start();
    expect(t.item("toggle-proxy")).toMatchObject({ enabled: false });
    expect(t.item("toggle-model-lockout")).toMatchObject({ enabled: true });
  });

  it("R18.6 / R21.6 shows today's use and the 5-hour and weekly windows as bars, re-read a few seconds after traffic, dimmed once stale", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
    try {
      const usage = { tokens: 1_000 };
      const resetAt = Date.now() + 3_600_000;
      const t = setup({
        getUsage: () => ({
          from: 0,
          to: 1,
          bucket: "hour",
          groupBy: "provider",
          series: [],
          totals: { requests: 3, inputTokens: usage.tokens, outputTokens: 500, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, costUsd: 0.25 },
        }),
        listQuotas: () => ({
          items: [
            {
              connectionId: "c1",
              provider: "claude",
              window: "7d",
              usedPercent: 40,
              remaining: null,
              limit: null,
              resetAt: null,
              source: "anthropic-unified",
              seenAt: Date.now(),
              pace: null,
            },
            { connectionId: "c1", provider: "claude", window: "5h", usedPercent: 91, remaining: null, limit: null, resetAt, source: "anthropic-unified", seenAt: Date.now() },
            { connectionId: "c2", provider: "claude", window: "5h", usedPercent: 20, remaining: null, limit: null, resetAt, source: "anthropic-unified", seenAt: Date.now() },
          ],
        }),
        listConnections: () => [{ id: "c1", name: "Max plan" }],
      });
      await t.controller.start();
      expect(t.item("usage-today").label).toBe("Today: 1.5k tokens · $0.25");
      expect(t.item("usage-quota")).toBeUndefined();
      expect(t.item("usage-window-5h")).toMatchObject({ label: "5h █████████░ 91 % · resets in 1 h · Max plan", enabled: true });
      expect(t.item("usage-window-7d")).toMatchObject({ label: "7d ████░░░░░░ 40 % · Max plan", enabled: true });
      expect(t.last().tooltip).toContain("\nToday: 1.5k tokens · $0.25");
      expect(t.calls.find(([name]) => name === "getUsage")![1]).toMatchObject({ groupBy: "provider", bucket: "hour" });

      usage.tokens = 20_000;
      // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- the tray counts request events, it never reads the entry
      t.emit({ type: "request", entry: {} as never, at: 1 });
      // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- as above
      t.emit({ type: "request", entry: {} as never, at: 2 });
      await vi.advanceTimersByTimeAsync(5_000);
      expect(t.calls.filter(([name]) => name === "getUsage")).toHaveLength(2);
      expect(t.item("usage-today").label).toBe("Today: 20.5k tokens · $0.25");
      await vi.advanceTimersByTimeAsync(60_000);
      expect(t.item("usage-window-5h").label).toBe("5h █████████░ 91 % · resets in 59 min · Max plan");
      // Half an hour without a fresh reading: dimmed, with its age.
      await vi.advanceTimersByTimeAsync(30 * 60_000);
      expect(t.item("usage-window-5h")).toMatchObject({ label: "5h █████████░ 91 % · resets in 29 min · Max plan · seen 30 min 55 s ago", enabled: false });
      t.controller.dispose();
    } finally {
      vi.useRealTimers();
    }
  });

  it("R18.4 a budget at 80 % and at 100 % raises a desktop notification", async () => {
    const t = setup();
    await t.controller.start();
    const base = { type: "budget", scope: "key", id: "k1", name: "laptop", usedCostUsd: 4, usedTokens: 1_000, resetAt: Date.UTC(2030, 0, 2), at: 1 } as const;
    t.emit({ ...base, percent: 80 });
    expect(t.effects.notify).toHaveBeenLastCalledWith("Budget 80 % used", 'API key "laptop" has used 80 % of its budget ($4.00 and 1,000 tokens used).');
    t.emit({ ...base, scope: "connection", name: "Work key", percent: 100 });
    expect(t.effects.notify.mock.calls.at(-1)![0]).toBe("Budget 100 % used");
    expect(t.effects.notify.mock.calls.at(-1)![1]).toMatch(/^Connection "Work key" is over its budget \(\$4\.00 and 1,000 tokens used\): it is skipped until /);
  });

  it("R21.7 a window at 80/95/100 % and a billing crossing's start and end raise desktop notifications naming the accounts", async () => {
    const t = setup({
      listConnections: () => [
        { id: "c1", name: "Max plan" },
        { id: "c2", name: "Team key" },
      ],
    });
    await t.controller.start();
    t.emit({ type: "quota.threshold", connectionId: "c1", window: "5h", percent: 80, at: 1 });
    await flush();
    expect(t.effects.notify).toHaveBeenLastCalledWith("5h window 80 % used", "Max plan's 5h window has used 80 % of this period.");
    t.emit({ type: "quota.threshold", connectionId: "c1", window: "7d", percent: 100, at: 2 });
    await flush();
    expect(t.effects.notify).toHaveBeenLastCalledWith("7d window used up", "Max plan's 7d window is used up; Switchyard moves its requests to other accounts until it resets.");
    t.emit({ type: "billing.crossed", fromConnectionId: "c1", toConnectionId: "c2", trafficClass: "main", at: 3 });
    await flush();
    expect(t.effects.notify).toHaveBeenLastCalledWith("Now billed per use", "Max plan's subscription window is used up: main requests go to Team key, which is billed per use.");
    t.emit({ type: "billing.returned", connectionId: "c1", at: 4 });
    await flush();
    expect(t.effects.notify).toHaveBeenLastCalledWith("Back on the subscription", "Max plan serves again; requests are back on the subscription.");
    expect(t.effects.notify).toHaveBeenCalledTimes(4);
    t.controller.dispose();
  });

  it("R14.1 dispose stops following events", async () => {
    const t = setup();
    await t.controller.start();
    t.controller.dispose();
    expect(t.listeners.size).toBe(0);
    const rendered = t.renders.length;
    t.emit({ type: "breaker", provider: "sim", from: "CLOSED", to: "OPEN", at: 1 });
    expect(t.renders.length).toBe(rendered);
  });
});
