// The admission limits of one attempt (R8.1, R9.1–R9.3, R9.5, D9): which gates apply, how long a
// request may wait for them, how long it may run once dispatched. Precedence: env < saved
// setting (already merged in `requestQueue`) < the connection's own rateLimitOverrides.
import type { ResilienceSettings } from "../../../shared/resilienceSettings.js";
import type { Connection, Provider } from "../../../shared/types.js";

const DAY_MS = 86_400_000;

export interface AdmissionLimits {
  /** The settings' maxConcurrent: requests in flight over every provider (R8.1); null = no gate. */
  globalCap: number | null;
  /** The provider's maxConcurrent: requests in flight over all its connections (R8.1); null = no gate. */
  providerCap: number | null;
  /** max_concurrent / rateLimitOverrides.maxConcurrent: one limit (R9.3); null = no gate. */
  connectionCap: number | null;
  /** rateLimitOverrides.modelConcurrency[model] for this exact upstream model id; null = no gate. */
  modelCap: number | null;
  /** Queue budget: 0 disables it (wait as long as it takes). */
  maxWaitMs: number;
  /** Job expiration, counted from dispatch; the upstream call raises it to its own deadline when that is longer (R9.1). */
  executionMaxWaitMs: number;
  maxQueueDepth: number;
  /** R9.5: the connection is under queue protection (a limiter paces it). */
  protected: boolean;
  /** Providers whose limits are per model keep one limiter per model (R9.4); the provider's format half says which (limitsPerModel). */
  perModel: boolean;
}

function positive(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : null;
}

function clampInt(value: unknown, min: number, max: number, fallback: number): number {
  if (typeof value !== "number" || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.round(value)));
}

/** R9.5: forced on by rateLimitProtection, else every active apikey connection while auto-enable is on. */
export function isQueueProtected(
  queue: ResilienceSettings["requestQueue"],
  provider: Pick<Provider, "category">,
  connection: Pick<Connection, "rateLimitProtection" | "active">,
): boolean {
  if (connection.rateLimitProtection === true) return true;
  return queue.autoEnableApiKeyProviders && provider.category === "apikey" && connection.active;
}

export function resolveAdmissionLimits(
  queue: ResilienceSettings["requestQueue"],
  provider: Pick<Provider, "category" | "maxConcurrent">,
  connection: Pick<Connection, "maxConcurrent" | "rateLimitOverrides" | "rateLimitProtection" | "active">,
  model: string,
  globalCap: number | null = null,
  limitsPerModel = false,
): AdmissionLimits {
  const overrides = connection.rateLimitOverrides ?? {};
  return {
    globalCap: positive(globalCap),
    providerCap: positive(provider.maxConcurrent),
    connectionCap: positive(overrides.maxConcurrent) ?? positive(connection.maxConcurrent),
    modelCap: positive(overrides.modelConcurrency?.[model]),
    maxWaitMs: clampInt(overrides.maxWaitMs, 0, DAY_MS, queue.maxWaitMs),
    executionMaxWaitMs: clampInt(overrides.executionMaxWaitMs, 1, DAY_MS, queue.executionMaxWaitMs),
    maxQueueDepth: queue.maxQueueDepth,
    protected: isQueueProtected(queue, provider, connection),
    perModel: limitsPerModel,
  };
}
