// Connection cooldown (R4, D4): how long one account/key leaves rotation after a failure, and the
// runtime-field patches that record it. Pure; the facade reads the stored row and writes the patch.
import type { Connection, ConnectionRuntime, Provider, ProviderCategory, TestStatus } from "../../shared/types.js";
import { TERMINAL_TEST_STATUSES } from "../../shared/types.js";
import {
  CONCURRENCY_LIMIT_COOLDOWN_MS,
  CONNECTION_COOLDOWN_CAP_MS,
  PARSED_RESET_CAP_MS,
  PROVIDER_RETRY_SECONDS_RANGE,
  type ConnectionCooldownProfile,
  type ResilienceSettings,
} from "../../shared/resilienceSettings.js";
import type { Verdict } from "./ports.js";

export type CooldownSource = "upstream_hint" | "connection_override" | "provider_retry_delay" | "env_default" | "classifier" | "rule" | "fixed" | "backoff" | "window";

export interface CooldownChoice {
  ms: number;
  source: CooldownSource;
  /** What the choice does to backoffLevel when it starts a new cooldown. */
  level: "raise" | "reset" | "keep";
}

const TERMINAL = new Set<TestStatus>(TERMINAL_TEST_STATUSES);
export const isTerminal = (status: TestStatus): boolean => TERMINAL.has(status);

export function connectionProfile(settings: ResilienceSettings["connectionCooldown"], category: ProviderCategory): ConnectionCooldownProfile {
  if (category === "local") return settings.local ?? settings.apikey;
  return settings[category];
}

/** D4: base × 2^min(level, maxBackoffSteps), at most 1 800 000. */
export function scaledBackoffMs(profile: ConnectionCooldownProfile, level: number): number {
  return Math.min(profile.baseCooldownMs * 2 ** Math.min(Math.max(0, level), profile.maxBackoffSteps), CONNECTION_COOLDOWN_CAP_MS);
}

const seconds = (value: unknown): number | null =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.min(Math.max(value, PROVIDER_RETRY_SECONDS_RANGE.min), PROVIDER_RETRY_SECONDS_RANGE.max) * 1_000 : null;

const RATE_LIMIT_REASONS = new Set(["rate_limit", "quota_exhausted"]);

/**
 * R4.3 precedence for rate-limit reasons: upstream hint -> per-connection override -> per-provider
 * retry delay -> env default -> scaled backoff. Any configured or upstream value resets the level.
 * Classifier- and rule-decided durations come first: they already include the hint where one counts.
 */
export function chooseCooldown(input: {
  verdict: Verdict;
  connection: Pick<Connection, "providerSpecificData">;
  provider: Pick<Provider, "category" | "rateLimitCooldownSeconds">;
  settings: ResilienceSettings["connectionCooldown"];
  backoffLevel: number;
}): CooldownChoice {
  const { verdict } = input;
  const profile = connectionProfile(input.settings, input.provider.category);
  const capped = (ms: number) => Math.min(Math.max(1, Math.round(ms)), PARSED_RESET_CAP_MS);
  if (verdict.reason === "concurrency_limited") {
    return { ms: capped(verdict.cooldownMs ?? verdict.retryHintMs ?? CONCURRENCY_LIMIT_COOLDOWN_MS), source: "fixed", level: "keep" }; // R4.5
  }
  if (verdict.cooldownMs !== null && verdict.cooldownMs > 0) {
    return { ms: capped(verdict.cooldownMs), source: verdict.rule?.cooldownMs != null ? "rule" : "classifier", level: "reset" };
  }
  if (RATE_LIMIT_REASONS.has(verdict.reason)) {
    if (profile.useUpstreamRetryHints && verdict.retryHintMs !== null && verdict.retryHintMs > 0) {
      return { ms: capped(verdict.retryHintMs), source: "upstream_hint", level: "reset" };
    }
    const override = seconds(input.connection.providerSpecificData.rotationOverrides?.rateLimitResetSeconds);
    if (override !== null) return { ms: override, source: "connection_override", level: "reset" };
    const providerDelay = seconds(input.provider.rateLimitCooldownSeconds);
    if (providerDelay !== null) return { ms: providerDelay, source: "provider_retry_delay", level: "reset" };
    const envDefault = seconds(input.settings.rateLimitResetSeconds);
    if (envDefault !== null) return { ms: envDefault, source: "env_default", level: "reset" };
  }
  return { ms: scaledBackoffMs(profile, input.backoffLevel), source: "backoff", level: "raise" };
}

export function errorFields(verdict: Verdict, now: number): Partial<ConnectionRuntime> {
  return {
    lastError: verdict.message.slice(0, 500),
    lastErrorType: verdict.rule?.label ?? verdict.reason,
    errorCode: verdict.errorCode ?? String(verdict.status),
    lastErrorAt: now,
  };
}

export const activeCooldownUntil = (runtime: Pick<ConnectionRuntime, "rateLimitedUntil">, now: number): number | null =>
  runtime.rateLimitedUntil !== null && runtime.rateLimitedUntil > now ? runtime.rateLimitedUntil : null;

/**
 * R4.4 anti-thundering-herd. A failure that arrives while the connection is already cooling was
 * dispatched before that cooldown began (selection skips cooling connections), so it is the same
 * incident: it never raises backoffLevel again and only an upstream/configured wait that reaches
 * further extends the cooldown. No failure ever shortens an active cooldown.
 */
export function cooldownPatch(runtime: ConnectionRuntime, choice: CooldownChoice, verdict: Verdict, now: number): { patch: Partial<ConnectionRuntime>; until: number } {
  const active = activeCooldownUntil(runtime, now);
  let until: number;
  let backoffLevel = runtime.backoffLevel;
  if (active !== null) {
    until = choice.source === "backoff" ? active : Math.max(active, now + choice.ms);
  } else {
    until = now + choice.ms;
    if (choice.level === "raise") backoffLevel = runtime.backoffLevel + 1;
    if (choice.level === "reset") backoffLevel = 0;
  }
  return { patch: { ...errorFields(verdict, now), testStatus: "unavailable", rateLimitedUntil: until, backoffLevel }, until };
}

export function terminalPatch(status: Exclude<TestStatus, "active" | "unavailable">, verdict: Verdict, now: number): Partial<ConnectionRuntime> {
  return { ...errorFields(verdict, now), testStatus: status, rateLimitedUntil: null };
}

/** R4.9: success clears every error field and the backoff; null when there is nothing to clear. */
export function successPatch(runtime: ConnectionRuntime): Partial<ConnectionRuntime> | null {
  const clean =
    runtime.testStatus === "active" &&
    runtime.rateLimitedUntil === null &&
    runtime.backoffLevel === 0 &&
    runtime.lastError === null &&
    runtime.lastErrorType === null &&
    runtime.errorCode === null &&
    runtime.lastErrorAt === null &&
    runtime.authFailureCount === 0;
  if (clean) return null;
  return {
    testStatus: "active",
    rateLimitedUntil: null,
    backoffLevel: 0,
    lastError: null,
    lastErrorType: null,
    errorCode: null,
    lastErrorAt: null,
    authFailureCount: 0,
  };
}
