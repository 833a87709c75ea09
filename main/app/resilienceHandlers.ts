// Contract methods served by the engine: resilience settings, breakers, Cooldown Manager,
// model lockouts, monitoring health, queue protection, and the test clock.
import { z } from "zod";
import type { MonitoringHealth } from "../../shared/apiTypes.js";
import {
  applyResiliencePatch, normalizeResilienceSettings, resilienceDefaults, type ResilienceSettings,
} from "../../shared/resilienceSettings.js";
import {
  clearCooldownsBodySchema as clearCooldownsSchema, clearModelCooldownsBodySchema as clearModelCooldownsSchema, resetBreakersBodySchema as resetBreakersSchema, resiliencePatchSchema,
} from "../../shared/schemas/resilience.js";
import { fromZodError, notFound } from "../api/errors.js";
import type { ResilienceAdminEngine } from "../engine/index.js";
import type { Store } from "../store/types.js";
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
export function createSettingsCache(store: Store, env: NodeJS.ProcessEnv): SettingsCache {
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
    validate: (doc) => parse(resiliencePatchSchema, doc) as Record<string, unknown>,
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

function parse<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = schema.safeParse(input);
  if (!result.success) throw fromZodError(result.error);
  return result.data;
}

const rateLimitSchema = z.object({ connectionId: z.string().min(1).max(128), enabled: z.boolean().nullable() }).strict();
const advanceSchema = z.object({ advanceMs: z.number().finite().min(0).max(365 * 24 * 3_600_000) }).strict();

export function createResilienceHandlers(deps: {
  store: Store;
  engine: ResilienceAdminEngine;
  bus: EventBus;
  clock: AdjustableClock;
  settings: SettingsCache;
  startedAt: number;
}) {
  const { store, engine, settings, clock } = deps;
  const handlers = {
    getResilience: () => settings.get(),
    getResilienceSources: () => settings.sources(),
    patchResilience: (input: Record<string, unknown>) => {
      const patch = parse(resiliencePatchSchema, input) as Record<string, unknown>;
      const next = settings.save(applyResiliencePatch(settings.raw(), patch));
      deps.bus.emit({ type: "settings", scope: "resilience", at: clock.now() });
      return next;
    },
    resetBreakers: (input: Record<string, unknown>) => {
      const body = parse(resetBreakersSchema, input ?? {});
      return engine.resetBreakers(body.provider);
    },
    listCooldowns: (input: Record<string, unknown>) => {
      const provider = typeof input?.provider === "string" && input.provider ? input.provider : undefined;
      return engine.listCooldowns(store.providers.list(), store.connections.list(), provider ? { provider } : undefined);
    },
    clearCooldowns: (input: Record<string, unknown>) => {
      const body = parse(clearCooldownsSchema, input);
      return engine.clearCooldowns(body, store.connections.list());
    },
    listModelCooldowns: () => engine.listModelCooldowns(),
    clearModelCooldowns: (input: Record<string, unknown>) => engine.clearModelCooldowns(parse(clearModelCooldownsSchema, input)),
    monitoringHealth: (): MonitoringHealth => ({
      ok: true,
      uptimeMs: Date.now() - deps.startedAt,
      ...engine.monitoringHealth(store.providers.list()),
      queues: [],
    }),
    setRateLimitProtection: (input: Record<string, unknown>) => {
      const body = parse(rateLimitSchema, input);
      const updated = store.connections.setRateLimitProtection(body.connectionId, body.enabled);
      if (!updated) throw notFound("connection", body.connectionId);
      return { ok: true, connectionId: updated.id, rateLimitProtection: updated.rateLimitProtection };
    },
  };
  if (!clock.adjustable) return handlers;
  return {
    ...handlers,
    getClock: () => ({ now: clock.now() }),
    advanceClock: (input: Record<string, unknown>) => {
      const body = parse(advanceSchema, input);
      return { now: clock.advance(body.advanceMs) };
    },
  };
}

