// The resilience settings document (R10): its type, every default number from the spec, the
// documented ranges, the cross-field rules and the partial patch. Free of zod, so the renderer can
// show defaults and ranges; the document's one validator (strict for PATCH, tolerant and clamping
// for the stored document) is shared/schemas/resilienceDocument.ts, env seeding shared/resilienceEnv.ts.

import type { TrafficClass } from "./types.js";
import { isRecord } from "./records.js";

export type Category = "oauth" | "apikey" | "local";

export interface BreakerProfileSettings {
  /** null = derived from failureThreshold (D2). */
  degradationThreshold: number | null;
  failureThreshold: number;
  resetTimeoutMs: number;
  escalateAfter: number;
  maxBackoffMultiplier: number;
}

export interface ProviderCooldownProfile {
  failureThreshold: number;
  failureWindowMs: number;
  cooldownMs: number;
}

export interface ConnectionCooldownProfile {
  baseCooldownMs: number;
  maxBackoffSteps: number;
  useUpstreamRetryHints: boolean;
}

export interface ResilienceSettings {
  providerBreaker: Record<Category, BreakerProfileSettings>;
  providerCooldown: Record<Category, ProviderCooldownProfile> & {
    enabled: boolean;
    minRetryCooldownMs: number;
    maxRetryCooldownMs: number;
  };
  connectionCooldown: {
    oauth: ConnectionCooldownProfile;
    apikey: ConnectionCooldownProfile;
    /** Absent = local providers use the apikey profile. */
    local?: ConnectionCooldownProfile;
    /** Global rate-limit reset hint in seconds (env OMNIROUTE_ROTATION_RATE_LIMIT_RESET_SECONDS); null = none. */
    rateLimitResetSeconds: number | null;
  };
  modelLockout: {
    enabled: boolean;
    errorCodes: number[];
    baseCooldownMs: number;
    maxCooldownMs: number;
    maxBackoffSteps: number;
    useExponentialBackoff: boolean;
  };
  streamStallCooldown: { enabled: boolean };
  requestQueue: {
    maxWaitMs: number;
    executionMaxWaitMs: number;
    maxQueueDepth: number;
    autoEnableApiKeyProviders: boolean;
  };
  comboCooldownWait: { enabled: boolean; maxWaitMs: number; maxAttempts: number; budgetMs: number };
  streamRecovery: {
    enabled: boolean;
    midstreamEnabled: boolean;
    contentStallTimeoutMs: number;
    idleTimeoutMs: number;
    attemptDeadlineMs: number;
    throughputWatchdog: { enabled: boolean; warmupMs: number; windowMs: number; minBytesPerSec: number; minBytes: number };
  };
  p2cLatency: { weight: number };
  quotaShareConcurrencyLimit: { enabled: boolean };
  /**
   * R10.2 (issue 26 item 7): before dispatch, a connection whose learned remaining quota is at or
   * below `cutoffPercent` of its limit is passed over while a sibling of its provider has more.
   */
  quotaPreflightCutoff: { enabled: boolean; cutoffPercent: number };
  /** R20.1: take reasoning artifacts another connection issued out of a request before it is sent. */
  reasoningProvenance: { enabled: boolean };
  /**
   * R20.3: under 429 or queue pressure background work waits or is shed first; `mainHeadroom` is
   * how many of a connection's concurrency slots only main, subagent and compaction turns may take.
   */
  trafficClasses: { enabled: boolean; mainHeadroom: number };
  /** R20.4: at a 429 whose hint is at most `maxWaitMs`, on the connection holding the session's warm cache, wait instead of moving. */
  waitOrSwitch: { enabled: boolean; maxWaitMs: number };
  /**
   * R21.5: per traffic class, what happens when a subscription account's window is used up and the
   * next account is metered: cross (fail over, marked and notified), wait (for a reset within
   * waitOrSwitch.maxWaitMs, else stay) or stay (429 window_exhausted until the reset).
   */
  billingBoundary: Record<TrafficClass, BillingBoundaryChoice>;
}

export const BILLING_BOUNDARY_CHOICES = ["cross", "wait", "stay"] as const;
export type BillingBoundaryChoice = (typeof BILLING_BOUNDARY_CHOICES)[number];

/** Settings whose value is one word of a fixed list (every other leaf is a number, a boolean or a code list). */
export const RESILIENCE_CHOICES: Readonly<Record<string, readonly string[]>> = {
  "billingBoundary.main": BILLING_BOUNDARY_CHOICES,
  "billingBoundary.subagent": BILLING_BOUNDARY_CHOICES,
  "billingBoundary.background": BILLING_BOUNDARY_CHOICES,
  "billingBoundary.compaction": BILLING_BOUNDARY_CHOICES,
  "billingBoundary.count": BILLING_BOUNDARY_CHOICES,
};

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

// Fixed numbers of the engine that are not operator settings.
export const BREAKER_SAME_CONNECTION_DEDUPE_MS = 5_000; // D2
export const BREAKER_DERIVED_DEGRADATION_RATIO = 0.6; // D2
export const EXPIRED_RETRY_MAX = 3; // R4.6
export const CONCURRENCY_LIMIT_COOLDOWN_MS = 1_000; // R4.5
export const CONNECTION_COOLDOWN_CAP_MS = 1_800_000; // D4
export const PARSED_RESET_CAP_MS = 30 * DAY; // D4
export const USAGE_LIMIT_COOLDOWN_MS = HOUR; // D4 "usage limit reached" (oauth)
export const WEEKLY_LIMIT_COOLDOWN_MS = DAY; // D4
export const SESSION_LIMIT_COOLDOWN_MS = 5 * HOUR; // D4
export const REQUEST_REJECTED_STEPS_MS: readonly number[] = [5 * MINUTE, 15 * MINUTE, 45 * MINUTE]; // D4
export const REQUEST_REJECTED_MAX_COOLDOWN_MS = HOUR; // R4.7
export const REQUEST_REJECTED_STREAK_RESET_MS = HOUR; // D4
export const MODEL_LOCKOUT_DEFAULT_WINDOW_MS = 30 * MINUTE; // D5
export const RESTATED_QUOTA_CLIENT_RETRY_AFTER_MS = MINUTE; // R12.2
export const MODEL_ACCESS_DENIED_COOLDOWN_MS = 6 * HOUR; // R12.2
export const OPERATOR_RULE_MAX_COOLDOWN_MS = 30 * DAY; // R12.4
export const PROVIDER_RETRY_SECONDS_RANGE = { min: 1, max: 21_600 }; // R4.3
export const DAILY_QUOTA_MAX_COOLDOWN_MS = DAY; // D4 "until local midnight (<= 24 h)"
export const LOCKOUT_HINT_CAP_MS = DAY; // R9.4
export const BREAKER_TRIP_STATUSES: readonly number[] = [408, 500, 502, 503, 504]; // R2.3

export const DEFAULT_RESILIENCE_SETTINGS: ResilienceSettings = {
  providerBreaker: {
    oauth: { degradationThreshold: 5, failureThreshold: 8, resetTimeoutMs: 60_000, escalateAfter: 2, maxBackoffMultiplier: 8 }, // R2.2, D2
    apikey: { degradationThreshold: 7, failureThreshold: 12, resetTimeoutMs: 30_000, escalateAfter: 3, maxBackoffMultiplier: 4 }, // R2.2, D2
    local: { degradationThreshold: null, failureThreshold: 2, resetTimeoutMs: 15_000, escalateAfter: 3, maxBackoffMultiplier: 4 }, // R2.2, D2
  },
  providerCooldown: {
    enabled: false, // R3.1
    oauth: { failureThreshold: 10, failureWindowMs: 15 * MINUTE, cooldownMs: 5 * MINUTE }, // R3.1
    apikey: { failureThreshold: 15, failureWindowMs: 30 * MINUTE, cooldownMs: 10 * MINUTE }, // R3.1
    local: { failureThreshold: 2, failureWindowMs: 5 * MINUTE, cooldownMs: MINUTE }, // R3.1
    minRetryCooldownMs: 3_000, // R3.2 (spec gives no number; matches the apikey base cooldown)
    maxRetryCooldownMs: 2 * MINUTE, // R3.2 (spec gives no number)
  },
  connectionCooldown: {
    oauth: { baseCooldownMs: 5_000, maxBackoffSteps: 8, useUpstreamRetryHints: false }, // R4.2, D4
    apikey: { baseCooldownMs: 3_000, maxBackoffSteps: 5, useUpstreamRetryHints: true }, // R4.2, D4
    rateLimitResetSeconds: null, // R4.3
  },
  modelLockout: {
    enabled: false, // R5.1
    errorCodes: [403, 404, 429, 502, 503, 504], // R5.1
    baseCooldownMs: 120_000, // R5.1
    maxCooldownMs: 1_800_000, // R5.1
    maxBackoffSteps: 10, // R5.1
    useExponentialBackoff: true, // R5.1
  },
  streamStallCooldown: { enabled: false }, // R4.8
  requestQueue: {
    maxWaitMs: 30_000, // R9.1
    executionMaxWaitMs: 600_000, // R9.1
    maxQueueDepth: 0, // R9.3
    autoEnableApiKeyProviders: true, // R9.5
  },
  comboCooldownWait: { enabled: true, maxWaitMs: 90_000, maxAttempts: 5, budgetMs: 300_000 }, // D11
  streamRecovery: {
    enabled: true, // R13.7
    midstreamEnabled: false, // R13.7
    contentStallTimeoutMs: 120_000, // R13.7
    idleTimeoutMs: 300_000, // R13.7
    attemptDeadlineMs: 600_000, // R13.7
    throughputWatchdog: { enabled: false, warmupMs: 30_000, windowMs: 30_000, minBytesPerSec: 4, minBytes: 1 }, // R13.5, D13
  },
  p2cLatency: { weight: 0 }, // R4.10
  quotaShareConcurrencyLimit: { enabled: true }, // R8.2
  quotaPreflightCutoff: { enabled: false, cutoffPercent: 5 }, // R10.2 (off, 5 %)
  reasoningProvenance: { enabled: true }, // R20.1
  trafficClasses: { enabled: true, mainHeadroom: 1 }, // R20.3
  waitOrSwitch: { enabled: true, maxWaitMs: 8_000 }, // R20.4 (on, 8 000)
  billingBoundary: { main: "cross", subagent: "cross", background: "stay", compaction: "cross", count: "cross" }, // R21.5
};

/** A numeric range; `zeroMeansOff` allows 0 below `min` (e.g. a disabled watchdog). */
export interface NumberRange {
  min: number;
  max: number;
  integer?: boolean;
  zeroMeansOff?: boolean;
}

const int = (min: number, max: number): NumberRange => ({ min, max, integer: true });

const breakerRanges = {
  degradationThreshold: int(1, 999), // D2 (then clamped to failureThreshold - 1)
  failureThreshold: int(1, 1_000),
  resetTimeoutMs: int(1_000, HOUR),
  escalateAfter: int(0, 100),
  maxBackoffMultiplier: int(1, 1_024),
};
const windowGateRanges = { failureThreshold: int(1, 10_000), failureWindowMs: int(1_000, DAY), cooldownMs: int(1_000, DAY) };
const connectionCooldownRanges = { baseCooldownMs: int(100, HOUR), maxBackoffSteps: int(0, 20) };

/** Ranges mirror the document's shape: every number of the document has one (a test keeps it so). */
export const RESILIENCE_RANGES = {
  providerBreaker: { oauth: breakerRanges, apikey: breakerRanges, local: breakerRanges },
  providerCooldown: {
    oauth: windowGateRanges,
    apikey: windowGateRanges,
    local: windowGateRanges,
    minRetryCooldownMs: int(100, HOUR),
    maxRetryCooldownMs: int(100, DAY),
  },
  connectionCooldown: {
    oauth: connectionCooldownRanges,
    apikey: connectionCooldownRanges,
    local: connectionCooldownRanges,
    rateLimitResetSeconds: int(PROVIDER_RETRY_SECONDS_RANGE.min, PROVIDER_RETRY_SECONDS_RANGE.max), // R4.3
  },
  modelLockout: { baseCooldownMs: int(5_000, 600_000), maxCooldownMs: int(5_000, HOUR), maxBackoffSteps: int(0, 20) }, // D5
  requestQueue: { maxWaitMs: int(0, DAY), executionMaxWaitMs: int(1, DAY), maxQueueDepth: int(0, 100_000) }, // D9
  comboCooldownWait: { maxWaitMs: int(0, 300_000), maxAttempts: int(0, 100), budgetMs: int(0, HOUR) }, // D11
  streamRecovery: {
    contentStallTimeoutMs: { ...int(1_000, HOUR), zeroMeansOff: true }, // R13.7
    idleTimeoutMs: { ...int(1_000, HOUR), zeroMeansOff: true },
    attemptDeadlineMs: int(1_000, DAY),
    throughputWatchdog: { warmupMs: int(0, HOUR), windowMs: int(1_000, HOUR), minBytesPerSec: { min: 0, max: 1_000_000 }, minBytes: int(0, 1_000_000_000) },
  },
  p2cLatency: { weight: { min: 0, max: 20 } }, // R4.10
  quotaPreflightCutoff: { cutoffPercent: { min: 0, max: 100 } }, // R10.2
  trafficClasses: { mainHeadroom: int(0, 1_000) }, // R20.3
  waitOrSwitch: { maxWaitMs: int(0, 300_000) }, // R20.4
} as const;

export interface SettingsChange {
  path: string;
  from: unknown;
  to: unknown;
  reason: string;
}

export interface NormalizedResilience {
  settings: ResilienceSettings;
  changes: SettingsChange[];
}

export type Env = Record<string, string | undefined>;

type Doc = Record<string, unknown>;

/** Sections that may be absent from the document; present, they are read like this profile. */
export const OPTIONAL_SECTIONS: Readonly<Record<string, unknown>> = {
  "connectionCooldown.local": DEFAULT_RESILIENCE_SETTINGS.connectionCooldown.apikey,
};

export function clampNumber(value: number, range: NumberRange | undefined): number {
  if (!range) return value;
  if (range.zeroMeansOff && value <= 0) return 0;
  const rounded = range.integer ? Math.round(value) : value;
  return Math.min(range.max, Math.max(range.min, rounded));
}

function isNumberRange(value: unknown): value is NumberRange {
  return isRecord(value) && typeof value.min === "number" && typeof value.max === "number";
}

export function rangeAt(path: string): NumberRange | undefined {
  let node: unknown = RESILIENCE_RANGES;
  for (const key of path.split(".")) {
    if (!isRecord(node)) return undefined;
    node = node[key];
  }
  return isNumberRange(node) ? node : undefined;
}

export const joinPath = (path: string, key: string): string => (path ? `${path}.${key}` : key);

export function describeRange(range: NumberRange | undefined): string {
  if (!range) return "out of range";
  const span = `${range.min}-${range.max}`;
  return `clamped to ${range.zeroMeansOff ? `0 (off) or ${span}` : span}${range.integer ? " (integer)" : ""}`;
}

/** Fields whose value depends on another field, fixed after the per-field clamp. */
export function applyCrossFieldRules(s: ResilienceSettings, changes: SettingsChange[]): void {
  const raise = (path: string, from: number, to: number, reason: string) => changes.push({ path, from, to, reason });
  for (const category of ["oauth", "apikey", "local"] as const) {
    const profile = s.providerBreaker[category];
    if (profile.degradationThreshold !== null) {
      const limit = Math.max(1, profile.failureThreshold - 1);
      if (profile.degradationThreshold > limit) {
        raise(`providerBreaker.${category}.degradationThreshold`, profile.degradationThreshold, limit, "must stay below failureThreshold"); // D2
        profile.degradationThreshold = limit;
      }
    }
  }
  const pc = s.providerCooldown;
  if (pc.maxRetryCooldownMs < pc.minRetryCooldownMs) {
    raise("providerCooldown.maxRetryCooldownMs", pc.maxRetryCooldownMs, pc.minRetryCooldownMs, "must be >= minRetryCooldownMs");
    pc.maxRetryCooldownMs = pc.minRetryCooldownMs;
  }
  const ml = s.modelLockout;
  if (ml.maxCooldownMs < ml.baseCooldownMs) {
    raise("modelLockout.maxCooldownMs", ml.maxCooldownMs, ml.baseCooldownMs, "must be >= baseCooldownMs"); // D5
    ml.maxCooldownMs = ml.baseCooldownMs;
  }
  const cw = s.comboCooldownWait;
  if (cw.budgetMs < cw.maxWaitMs) {
    raise("comboCooldownWait.budgetMs", cw.budgetMs, cw.maxWaitMs, "must be >= maxWaitMs"); // D11
    cw.budgetMs = cw.maxWaitMs;
  }
}

/**
 * R10.3 partial deep patch over the stored (raw) document: objects merge, arrays and scalars
 * replace, and `null` removes the stored field so the env seed or default applies again.
 */
export function applyResiliencePatch(current: unknown, patch: unknown): Doc {
  const base: Doc = isRecord(current) ? structuredClone(current) : {};
  if (!isRecord(patch)) return base;
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete base[key];
    else if (isRecord(value)) base[key] = applyResiliencePatch(base[key], value);
    else base[key] = structuredClone(value);
  }
  return base;
}
