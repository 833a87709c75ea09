// Contract methods served by the engine: resilience settings, breakers, Cooldown Manager,
// model lockouts, monitoring health, queue protection, and the test clock.
import type { CooldownRow, MonitoringHealth } from "../../shared/apiTypes.js";
import { applyResiliencePatch, type ResilienceSettings } from "../../shared/resilienceSettings.js";
import type { Connection } from "../../shared/types.js";
import type { ResilienceAdminEngine } from "../engine/index.js";
import type { Clock } from "../engine/ports.js";
import { notFound } from "./errors.js";
import type { EventBus, HandlersFor } from "./handlerTypes.js";
import type { StorePorts } from "./ports.js";
import { unavailableHandlers } from "./unavailable.js";

/** The engine clock as the test-clock routes see it (`--test-clock`). */
export interface AdjustableClock extends Clock {
  readonly adjustable: boolean;
  advance(ms: number): number;
}

/** R18.4: adds the connections over budget to the Cooldown Manager's rows (the usage gate's answer). */
export type BudgetRows = (rows: { items: CooldownRow[] }, connections: Connection[], provider?: string) => { items: CooldownRow[] };

export interface SettingsCache {
  get(): ResilienceSettings;
  raw(): Record<string, unknown>;
  save(raw: Record<string, unknown>): ResilienceSettings;
  /** Re-reads the stored document (after a config import wrote it). */
  reload(): void;
  /** The saved document and the defaults as seeded by the environment, for per-field provenance. */
  sources(): { stored: Record<string, unknown>; envDefaults: ResilienceSettings };
  /** Throws a 400 ApiError naming the field when a resilience document has a wrong type. */
  validate(doc: Record<string, unknown>): Record<string, unknown>;
}

type EngineMethod =
  | "getResilience"
  | "getResilienceSources"
  | "patchResilience"
  | "resetBreakers"
  | "listCooldowns"
  | "clearCooldowns"
  | "listModelCooldowns"
  | "clearModelCooldowns"
  | "monitoringHealth"
  | "setRateLimitProtection"
  | "getClock"
  | "advanceClock";

export function createResilienceHandlers(deps: {
  store: StorePorts<"providers" | "connections">;
  engine: ResilienceAdminEngine;
  bus: Pick<EventBus, "emit">;
  clock: AdjustableClock;
  settings: SettingsCache;
  startedAt: number;
  /** The admission state for `queues` (R9): connections, where the limits live, and where the resilience state lives (R19). */
  admission: () => Pick<MonitoringHealth, "queues" | "sharedLimits" | "sharedState">;
  /** R18.4: connections over budget, listed with the cooldowns. */
  budgetRows?: BudgetRows;
}): HandlersFor<EngineMethod> {
  const { store, engine, settings, clock } = deps;
  const handlers = {
    getResilience: () => settings.get(),
    getResilienceSources: () => settings.sources(),
    patchResilience: (patch) => {
      const next = settings.save(applyResiliencePatch(settings.raw(), patch));
      deps.bus.emit({ type: "settings", scope: "resilience", at: clock.now() });
      return next;
    },
    resetBreakers: ({ provider }) => engine.resetBreakers(provider),
    listCooldowns: ({ provider }) => {
      const connections = store.connections.list();
      const rows = engine.listCooldowns(store.providers.list(), connections, provider ? { provider } : undefined);
      return deps.budgetRows ? deps.budgetRows(rows, connections, provider) : rows;
    },
    clearCooldowns: (body) => engine.clearCooldowns(body, store.connections.list()),
    listModelCooldowns: () => engine.listModelCooldowns(),
    clearModelCooldowns: (body) => engine.clearModelCooldowns(body),
    monitoringHealth: () => {
      const resilience = engine.monitoringHealth(store.providers.list());
      const admission = deps.admission();
      const { open, total } = resilience.circuitBreakers;
      // ok = can serve as configured: not with every provider's breaker OPEN (R2.6), nor on local state alone while the shared Redis is unreachable (R19.3).
      const ok = !(total > 0 && open === total) && admission.sharedState.status !== "unreachable";
      return { ok, uptimeMs: Date.now() - deps.startedAt, ...resilience, ...admission };
    },
    setRateLimitProtection: ({ connectionId, enabled }) => {
      const updated = store.connections.setRateLimitProtection(connectionId, enabled);
      if (!updated) throw notFound("connection", connectionId);
      return { ok: true, connectionId: updated.id, rateLimitProtection: updated.rateLimitProtection };
    },
  } satisfies Omit<HandlersFor<EngineMethod>, "getClock" | "advanceClock">;
  if (!clock.adjustable) return { ...handlers, ...unavailableHandlers(["getClock", "advanceClock"]) };
  return {
    ...handlers,
    getClock: () => ({ now: clock.now() }),
    advanceClock: ({ advanceMs }) => ({ now: clock.advance(advanceMs) }),
  };
}
