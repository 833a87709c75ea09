// The tray's behaviour (R14.1): it keeps the health, proxy and model-lockout state from the same
// contract handlers the window uses (every call typed by method and checked by the same schemas), rebuilds
// the menu on every relevant event, runs the menu's actions, and raises a desktop notification
// when a provider's breaker opens or a budget reaches 80 % or 100 % (R18.4), a subscription window
// 80, 95 or 100 % (R21.7) or the billing boundary is crossed and left (R21.5). It also shows today's
// tokens and cost and the 5-hour and weekly windows as bars with their pace (R21.6; else the quota
// window nearest its wall, R18.6), re-read a few seconds after traffic. Electron is reached only through the injected view/effects, so this file runs, and is
// tested, under plain Node.
import type { ContractCallArgs, ContractHandlers, ContractMethod, ContractOutput } from "../../shared/contract.js";
import type { BreakerState, SwitchyardEvent } from "../../shared/types.js";
import { invokeContract } from "../api/index.js";
import {
  breakersFromHealth,
  buildTrayMenuTemplate,
  trayStateFromBreakers,
  trayTooltip,
  trayUsageLines,
  type TrayAction,
  type TrayHealth,
  type TrayMenuItem,
  type TraySwitches,
} from "./trayMenu.js";
import { billingNotice, budgetNotice, createTrayUsageReader, quotaThresholdNotice } from "./trayUsage.js";

export interface TrayRender {
  health: TrayHealth;
  tooltip: string;
  menu: TrayMenuItem[];
}

export interface TrayEffects {
  render(view: TrayRender): void;
  showWindow(): void;
  quit(): void;
  /** Electron's clipboard write is async: a failure reaches the action's error notification. */
  copyText(text: string): void | Promise<void>;
  notify(title: string, body: string): void;
}

export interface TrayControllerDeps {
  handlers: ContractHandlers;
  bus: { subscribe(listener: (event: SwitchyardEvent) => void): () => void };
  /** The base URL clients are given (OpenAI style, ending in /v1). */
  endpoint: string;
  effects: TrayEffects;
  /** The clock "today" and the reset countdown are read from (default Date.now). */
  now?: () => number;
}

/** The menu's quota countdown moves each minute. */
export const TRAY_TICK_MS = 60_000;

export interface TrayController {
  /** Reads the current state, renders once, and starts following events. */
  start(): Promise<void>;
  run(action: TrayAction): Promise<void>;
  dispose(): void;
}

const ACTION_NAMES: Record<TrayAction, string> = {
  "open-dashboard": "open the dashboard",
  "toggle-proxy": "switch the proxy",
  "toggle-model-lockout": "switch model lockout",
  "reset-cooldowns": "reset the cooldowns",
  "reset-breakers": "reset the breakers",
  "copy-endpoint": "copy the endpoint URL",
  quit: "quit",
};

export function createTrayController(deps: TrayControllerDeps): TrayController {
  const { handlers, effects } = deps;
  const breakers: Record<string, BreakerState> = {};
  const switches: TraySwitches = { proxyEnabled: null, modelLockoutEnabled: null, endpoint: deps.endpoint };
  let unsubscribe: (() => void) | null = null;
  const now = deps.now ?? Date.now;
  let ticker: ReturnType<typeof setInterval> | null = null;

  function invoke<M extends ContractMethod>(method: M, ...[input]: ContractCallArgs<M>): Promise<ContractOutput<M>> {
    return invokeContract(handlers, method, input ?? {});
  }
  const usage = createTrayUsageReader(invoke, now);

  function render(): void {
    const state = trayStateFromBreakers(breakers);
    const lines = trayUsageLines(usage.current(), now());
    effects.render({ health: state.health, tooltip: trayTooltip(state, switches, lines), menu: buildTrayMenuTemplate(state, switches, lines) });
  }

  // A failed read leaves the last known value (or "unknown", which disables the toggle).
  async function readHealth(): Promise<void> {
    const next = breakersFromHealth(await invoke("monitoringHealth").catch(() => null));
    for (const key of Object.keys(breakers)) if (!(key in next)) delete breakers[key];
    Object.assign(breakers, next);
  }

  async function readSettings(): Promise<void> {
    const settings = await invoke("getSettings").catch(() => null);
    if (settings) switches.proxyEnabled = settings.proxyEnabled;
  }

  async function readResilience(): Promise<void> {
    const doc = await invoke("getResilience").catch(() => null);
    if (doc) switches.modelLockoutEnabled = doc.modelLockout.enabled;
  }

  function onEvent(event: SwitchyardEvent): void {
    if (event.type === "request") return usage.soon(render);
    if (event.type === "budget") {
      const { title, body } = budgetNotice(event);
      return effects.notify(title, body);
    }
    if (event.type === "quota.threshold" || event.type === "billing.crossed" || event.type === "billing.returned") {
      void notifyByName(event);
      // The bars move with the threshold; re-read them with the next traffic read.
      return usage.soon(render);
    }
    if (event.type === "breaker") {
      breakers[event.provider] = event.to;
      if (event.to === "OPEN" && event.from !== "OPEN") {
        effects.notify(`${event.provider} is failing`, `Switchyard stopped sending requests to ${event.provider} after repeated upstream errors and will probe it again shortly.`);
      }
      render();
    } else if (event.type === "settings") {
      void (event.scope === "settings" ? readSettings() : readResilience()).then(render);
    } else if (event.type === "config" && event.entity === "provider") {
      void readHealth().then(render);
    }
  }

  /** R21.7: the notifications that name accounts, by their names (the ids when the list cannot be read). */
  async function notifyByName(event: Extract<SwitchyardEvent, { type: "quota.threshold" | "billing.crossed" | "billing.returned" }>): Promise<void> {
    const connections = await invoke("listConnections").catch(() => null);
    const nameOf = (id: string) => connections?.find((c) => c.id === id)?.name ?? id;
    const { title, body } = event.type === "quota.threshold" ? quotaThresholdNotice(event, nameOf(event.connectionId)) : billingNotice(event, nameOf);
    effects.notify(title, body);
  }

  async function perform(action: TrayAction): Promise<void> {
    switch (action) {
      case "open-dashboard":
        return effects.showWindow();
      case "quit":
        return effects.quit();
      case "copy-endpoint":
        return effects.copyText(deps.endpoint);
      case "toggle-proxy": {
        const saved = await invoke("patchSettings", { proxyEnabled: !(switches.proxyEnabled ?? true) });
        switches.proxyEnabled = saved.proxyEnabled;
        return render();
      }
      case "toggle-model-lockout": {
        const saved = await invoke("patchResilience", { modelLockout: { enabled: !(switches.modelLockoutEnabled ?? false) } });
        switches.modelLockoutEnabled = saved.modelLockout.enabled;
        return render();
      }
      case "reset-cooldowns": {
        const r = await invoke("clearCooldowns", { all: true });
        const skipped = r.skippedTerminal ? `; ${r.skippedTerminal} banned/expired/out-of-credit left as they are` : "";
        return effects.notify("Cooldowns reset", `${r.cleared} connection(s) back in routing, ${r.lockoutsCleared} model lockout(s) cleared${skipped}.`);
      }
      case "reset-breakers": {
        const r = await invoke("resetBreakers");
        await readHealth();
        render();
        return effects.notify("Breakers reset", `${r.resetCount} provider breaker(s) closed.`);
      }
    }
  }

  return {
    async start() {
      await Promise.all([readHealth(), readSettings(), readResilience(), usage.read()]);
      render();
      unsubscribe ??= deps.bus.subscribe(onEvent);
      ticker ??= setInterval(render, TRAY_TICK_MS);
      ticker.unref?.();
    },
    async run(action) {
      try {
        await perform(action);
      } catch (err) {
        // The tray has no window to show an error in; the notification is the only place.
        effects.notify("Switchyard", `Could not ${ACTION_NAMES[action]}: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
    dispose() {
      unsubscribe?.();
      unsubscribe = null;
      usage.dispose();
      if (ticker) clearInterval(ticker);
      ticker = null;
    },
  };
}
