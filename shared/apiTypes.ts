// Response shapes of the resilience and monitoring API, declared once: the engine builds them and
// the renderer reads them, so a field changed on one side fails to compile on the other.
// Types only (no zod): the responses are built by our own code, never parsed from a client.
import type { BreakerState, TestStatus } from "./types.js";

/** D6: terminal > cooling_down > model_locked > unavailable. */
export type CooldownRowStatus = "terminal" | "cooling_down" | "model_locked" | "unavailable";

/** GET /api/resilience/cooldowns item (R6.1). Runtime fields only, never a credential. */
export interface CooldownRow {
  connectionId: string;
  provider: string;
  name: string;
  status: CooldownRowStatus;
  testStatus: TestStatus;
  remainingMs: number | null;
  rateLimitedUntil: number | null;
  backoffLevel: number;
  lastErrorType: string | null;
  lockouts: Array<{ model: string; reason: string; remainingMs: number }>;
}

/** POST /api/resilience/cooldowns result (R6.2). */
export interface ClearCooldownsResult {
  ok: true;
  cleared: number;
  unchanged: number;
  skippedTerminal: number;
  lockoutsCleared: number;
}

/** GET /api/resilience/model-cooldowns item (R5.5, D5). */
export interface ModelLockoutItem {
  provider: string;
  connectionId: string;
  model: string;
  reason: string;
  remainingMs: number;
  expiresAt: number;
  failureCount: number;
}

/** One provider's breaker as GET /api/monitoring/health lists it (R2.6). */
export interface ProviderBreakerRow {
  provider: string;
  state: BreakerState;
  failureCount: number;
  retryAfterMs: number;
  lastFailureKind: string | null;
}

/** The part of the health report the resilience engine computes. */
export interface ResilienceHealth {
  providerBreakers: ProviderBreakerRow[];
  circuitBreakers: { open: number; halfOpen: number; degraded: number; closed: number; total: number };
  lockouts: number;
}

/** GET /api/monitoring/health (R2.6): the engine's part plus the process fields the API adds. */
export interface MonitoringHealth extends ResilienceHealth {
  ok: true;
  uptimeMs: number;
  /** Always empty for now; kept so clients reading it see an array. */
  queues: unknown[];
}

/** One time bucket of one provider in GET /api/monitoring/stats. */
export interface RequestStatsBucket {
  /** Epoch ms at which the bucket starts; it covers [start, start + bucketMs). */
  start: number;
  requests: number;
  /** Requests answered with status >= 400 or recorded with an error code (a stream that failed after its 200). */
  errors: number;
  latencyMsSum: number;
  /** latencyMsSum / requests, rounded; null when the bucket had no request. */
  meanLatencyMs: number | null;
}

/** GET /api/monitoring/stats (R14.2, R15.1): the request log aggregated per provider and time bucket. */
export interface RequestStats {
  windowMs: number;
  bucketMs: number;
  /**
   * Start of the first bucket. Buckets are aligned to multiples of bucketMs, so the same bucket
   * has the same bounds in every answer; the last one is the current, still open bucket.
   */
  since: number;
  /** The engine clock's "now" when the answer was computed; the window ends here. */
  until: number;
  /**
   * Providers with at least one request in the window, sorted by name, each with all
   * windowMs / bucketMs buckets, oldest first (empty buckets included).
   */
  providers: Array<{
    /** `"(none)"` (NO_PROVIDER, shared/schemas/monitoring.ts) gathers the requests that never reached a provider. */
    provider: string;
    buckets: RequestStatsBucket[];
  }>;
}
