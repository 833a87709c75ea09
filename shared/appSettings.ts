// General (non-resilience) settings: defaults and documented ranges. Free of zod, so the renderer
// can show them; the one validator of the settings document (strict for PATCH, tolerant for the
// stored document) is shared/schemas/appSettings.ts.
import type { AppSettings, ProviderErrorRule } from "./types.js";

// R16.4's setting joins AppSettings here because shared/types.ts is being reworked for issue 22 in
// parallel; the field moves into the interface there once that work lands.
export type ErrorRuleScope = ProviderErrorRule["scope"];
export const ERROR_RULE_SCOPES: readonly ErrorRuleScope[] = ["model", "connection", "provider"];

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

export const APP_SETTINGS_LIMITS = {
  /** R7.1: 0 disables session affinity. */
  sessionAffinityTtlMs: { min: 0, max: 7 * DAY_MS },
  /** Request body cap for every route, in MB (API.md: default 50). */
  maxBodyMb: { min: 1, max: 500 },
  /** R15.1: bounded request-log retention, in entries. */
  requestLogRetention: { min: 100, max: 1_000_000 },
  /** R12.4: at most 50 operator rules. */
  providerErrorRulesMax: 50,
  /** R12.4: a rule's cooldown is at most 30 days. */
  ruleCooldownMs: { min: 0, max: 30 * DAY_MS },
  /** R12.4: a per-provider catch-all cooldown is 1 minute to 30 days. */
  defaultCooldownMs: { min: MINUTE_MS, max: 30 * DAY_MS },
  /** HTTP status range a rule may match. */
  ruleStatus: { min: 100, max: 599 },
  ruleMatchMaxLength: 500,
  /** Logged prompts live 1 hour to 30 days. */
  promptRetentionHours: { min: 1, max: 720 },
  /** R16.4: stored Responses API turns live up to a year; 0 stores none. */
  responsesRetentionHours: { min: 0, max: 8_760 },
  /** R8.1: the global gate's cap on requests in flight (null = no gate). */
  maxConcurrent: { min: 1, max: 100_000 },
} as const;

export const DEFAULT_APP_SETTINGS: Readonly<AppSettings> = Object.freeze({
  sessionAffinityTtlMs: 3_600_000, // R7.1: one hour; 0 disables
  requireClientKey: false, // R1.7: loopback clients need no key by default
  maxBodyMb: 50,
  proxyEnabled: true,
  providerErrorRules: [],
  providerErrorDefaults: {},
  emergencyFallback: { enabled: false, model: null }, // R11.6
  aliases: {},
  requestLogRetention: 10_000, // R15.1
  promptLogging: false,
  promptRetentionHours: 24,
  responsesRetentionHours: 24, // R16.4: a day of previous_response_id history; 0 keeps none
  redisUrl: null, // R9.6: SWITCHYARD_REDIS_URL, else limits stay in-process
  metricsPublic: false, // R18.5: GET /metrics wants the admin token
  maxConcurrent: null, // R8.1: no global gate
});

export function defaultAppSettings(): AppSettings {
  return structuredClone(DEFAULT_APP_SETTINGS);
}
