// Contract methods served by the engine: resilience settings, breakers, Cooldown Manager,
// model lockouts, monitoring health, queue protection, and the test clock.
import { withBudgetRows, type BudgetGate } from "./usage.js";
import type { MonitoringHealth } from "../../shared/apiTypes.js";
import { resilienceDefaults } from "../../shared/resilienceEnv.js";
import { applyResiliencePatch, type ResilienceSettings } from "../../shared/resilienceSettings.js";
import { normalizeResilienceSettings, resiliencePatchSchema } from "../../shared/schemas/resilienceDocument.js";
import { type HandlersFor, type SettingsPort, type StorePorts, notFound, parseInput, unavailableHandlers } from "../api/index.js";
import type { ResilienceAdminEngine } from "../engine/index.js";
import type { AdjustableClock } from "./clock.js";
import type { EventBus } from "./eventBus.js";

const RESILIENCE_KEY = "resilience";

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

/** The normalised resilience document, recomputed only when it is saved (R10.3: live apply). */
export function createSettingsCache(store: { settings: SettingsPort }, env: NodeJS.ProcessEnv): SettingsCache {
  let raw: Record<string, unknown> = {};
  let current: ResilienceSettings;
  const load = () => {
    raw = store.settings.getDocument<Record<string, unknown>>(RESILIENCE_KEY) ?? {};
    current = normalizeResilienceSettings(raw, env).settings;
  };
  load();
  return {
    get: () => current,
    reload: load,
    sources: () => ({ stored: raw, envDefaults: resilienceDefaults(env) }),
    validate: (doc) => parseInput(resiliencePatchSchema, doc),
    raw: () => raw,
    save(next) {
      const normalised = normalizeResilienceSettings(next, env).settings;
      store.settings.setDocument(RESILIENCE_KEY, next);
      raw = next;
      current = normalised;
      return normalised;
    },
  };
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
  bus: EventBus;
  clock: AdjustableClock;
  settings: SettingsCache;
  startedAt: number;
  /** The admission state for `queues` (R9): connections, where the limits live, and where the resilience state lives (R19). */
  admission: () => Pick<MonitoringHealth, "queues" | "sharedLimits" | "sharedState">;
  /** R18.4: connections over budget, listed with the cooldowns. */
  budgets?: BudgetGate;
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
      return withBudgetRows(engine.listCooldowns(store.providers.list(), connections, provider ? { provider } : undefined), connections, deps.budgets, provider);
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
