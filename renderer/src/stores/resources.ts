// The backend reads the pages show, each with the events that make it stale (R15.2: pushed
// changes, never polling). Shapes follow API.md; the engine owns their exact computation.
import type { ResilienceSettings } from "../../../shared/resilienceSettings.js";
import type { ApiKeyInfo, AppSettings, BreakerState, Combo, SwitchyardEvent } from "../../../shared/types.js";
import { call } from "../transport.js";
import { createLiveResource } from "./liveResource.js";

export type CooldownRowStatus = "cooling_down" | "model_locked" | "terminal" | "unavailable";

/** GET /api/resilience/cooldowns item (R6.1). */
export interface CooldownRow {
  connectionId: string;
  provider: string;
  name: string;
  status: CooldownRowStatus;
  testStatus: string;
  remainingMs: number | null;
  rateLimitedUntil: number | null;
  backoffLevel: number;
  lastErrorType: string | null;
  lockouts: Array<{ model: string; reason: string; remainingMs: number }>;
}

/** POST /api/resilience/cooldowns result (R6.2). */
export interface ClearCooldownsResult {
  ok: boolean;
  cleared: number;
  unchanged: number;
  skippedTerminal: number;
  lockoutsCleared: number;
}

/** GET /api/resilience/model-cooldowns item (R5.5, D5). */
export interface ModelLockoutRow {
  provider: string;
  connectionId: string;
  model: string;
  reason: string;
  remainingMs: number;
  expiresAt: number;
  failureCount: number;
}

/** GET /api/monitoring/health (R2.6). */
export interface MonitoringHealth {
  ok: boolean;
  uptimeMs: number;
  providerBreakers: Array<{ provider: string; state: BreakerState; failureCount: number; retryAfterMs: number; lastFailureKind: string | null }>;
  circuitBreakers: { open: number; halfOpen: number; degraded: number; closed: number; total: number };
  lockouts: number;
}

const isCooldownEvent = (e: SwitchyardEvent) => e.type.startsWith("cooldown.") || e.type.startsWith("lockout.");
const isConfig = (e: SwitchyardEvent, entity?: string) => e.type === "config" && (entity === undefined || e.entity === entity);

export const cooldowns = createLiveResource(
  async () => (await call<{ items: CooldownRow[] }>("listCooldowns")).items,
  (e) => isCooldownEvent(e) || e.type === "breaker" || isConfig(e, "connection") || isConfig(e, "provider"),
);

export const modelCooldowns = createLiveResource(
  async () => (await call<{ items: ModelLockoutRow[] }>("listModelCooldowns")).items,
  (e) => e.type.startsWith("lockout.") || e.type === "breaker" || isConfig(e, "connection") || isConfig(e, "provider"),
);

export const resilienceSettings = createLiveResource(
  () => call<ResilienceSettings>("getResilience"),
  (e) => e.type === "settings" && e.scope === "resilience",
);

/** GET /api/resilience/sources: the saved document and the env-seeded defaults (R10.2). */
export interface ResilienceSources {
  stored: Record<string, unknown>;
  envDefaults: ResilienceSettings;
}

export const resilienceSources = createLiveResource(
  () => call<ResilienceSources>("getResilienceSources"),
  (e) => e.type === "settings" && e.scope === "resilience",
);

export const appSettings = createLiveResource(
  () => call<AppSettings>("getSettings"),
  (e) => e.type === "settings" && e.scope === "settings",
);

export const combos = createLiveResource(() => call<Combo[]>("listCombos"), (e) => isConfig(e, "combo"));

export const apiKeys = createLiveResource(() => call<ApiKeyInfo[]>("listKeys"), (e) => isConfig(e, "key"));

export const health = createLiveResource(
  () => call<MonitoringHealth>("monitoringHealth"),
  (e) => e.type === "breaker" || e.type.startsWith("lockout.") || isConfig(e, "provider"),
);
