// General (non-resilience) settings: defaults, documented ranges and a tolerant normaliser.
// The stored document may be partial or written by an older version; reading it must never
// fail, so the normaliser falls back to defaults field by field and clamps numbers into range.
// Strict validation of operator input (400 with a field path) lives in shared/schemas/config.ts.
import type { AppSettings, ProviderErrorRule } from "./types.js";

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
});

export function defaultAppSettings(): AppSettings {
  return structuredClone(DEFAULT_APP_SETTINGS) as AppSettings;
}

export interface NormalisedAppSettings {
  settings: AppSettings;
  /** Dotted paths of fields that were clamped or dropped back to their default. */
  adjusted: string[];
}

/** Reads a stored (possibly partial, possibly stale) settings document into a full one. */
export function normaliseAppSettings(raw: unknown): AppSettings {
  return normaliseAppSettingsWithReport(raw).settings;
}

export function normaliseAppSettingsWithReport(raw: unknown): NormalisedAppSettings {
  const src = isRecord(raw) ? raw : {};
  const adjusted: string[] = [];
  const d = DEFAULT_APP_SETTINGS;
  const L = APP_SETTINGS_LIMITS;

  const settings: AppSettings = {
    sessionAffinityTtlMs: readNumber(src, "sessionAffinityTtlMs", d.sessionAffinityTtlMs, L.sessionAffinityTtlMs, adjusted),
    requireClientKey: readBoolean(src, "requireClientKey", d.requireClientKey, adjusted),
    maxBodyMb: readNumber(src, "maxBodyMb", d.maxBodyMb, L.maxBodyMb, adjusted),
    proxyEnabled: readBoolean(src, "proxyEnabled", d.proxyEnabled, adjusted),
    providerErrorRules: readRules(src.providerErrorRules, adjusted),
    providerErrorDefaults: readErrorDefaults(src.providerErrorDefaults, adjusted),
    emergencyFallback: readEmergencyFallback(src.emergencyFallback, adjusted),
    aliases: readAliases(src.aliases, adjusted),
    requestLogRetention: Math.round(
      readNumber(src, "requestLogRetention", d.requestLogRetention, L.requestLogRetention, adjusted),
    ),
  };
  return { settings, adjusted };
}

function readNumber(
  src: Record<string, unknown>,
  key: string,
  fallback: number,
  range: { min: number; max: number },
  adjusted: string[],
): number {
  const value = src[key];
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value)) {
    adjusted.push(key);
    return fallback;
  }
  const clamped = Math.min(range.max, Math.max(range.min, value));
  if (clamped !== value) adjusted.push(key);
  return clamped;
}

function readBoolean(src: Record<string, unknown>, key: string, fallback: boolean, adjusted: string[]): boolean {
  const value = src[key];
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") {
    adjusted.push(key);
    return fallback;
  }
  return value;
}

/** Keeps only rules that satisfy R12.4; an invalid rule is dropped rather than guessed at. */
function readRules(value: unknown, adjusted: string[]): ProviderErrorRule[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    adjusted.push("providerErrorRules");
    return [];
  }
  const rules: ProviderErrorRule[] = [];
  value.forEach((item, index) => {
    const rule = readRule(item);
    if (rule && rules.length < APP_SETTINGS_LIMITS.providerErrorRulesMax) rules.push(rule);
    else adjusted.push(`providerErrorRules.${index}`);
  });
  return rules;
}

function readRule(item: unknown): ProviderErrorRule | null {
  if (!isRecord(item) || typeof item.provider !== "string" || item.provider === "") return null;
  const L = APP_SETTINGS_LIMITS;
  const status = item.status;
  const match = item.match;
  const hasStatus = Number.isInteger(status) && (status as number) >= L.ruleStatus.min && (status as number) <= L.ruleStatus.max;
  const hasMatch = typeof match === "string" && match !== "" && match.length <= L.ruleMatchMaxLength;
  if ((status !== undefined && !hasStatus) || (match !== undefined && !hasMatch)) return null;
  if (!hasStatus && !hasMatch) return null;
  const scope = item.scope === undefined ? "connection" : item.scope;
  if (!ERROR_RULE_SCOPES.includes(scope as ErrorRuleScope)) return null;
  const cooldownMs = item.cooldownMs;
  if (cooldownMs !== undefined && !inIntRange(cooldownMs, L.ruleCooldownMs)) return null;
  if (item.reason !== undefined && typeof item.reason !== "string") return null;

  const rule: ProviderErrorRule = { provider: item.provider, scope: scope as ErrorRuleScope };
  if (hasStatus) rule.status = status as number;
  if (hasMatch) rule.match = match as string;
  if (typeof item.reason === "string") rule.reason = item.reason;
  if (cooldownMs !== undefined) rule.cooldownMs = cooldownMs as number;
  return rule;
}

function readErrorDefaults(value: unknown, adjusted: string[]): AppSettings["providerErrorDefaults"] {
  if (value === undefined) return {};
  if (!isRecord(value)) {
    adjusted.push("providerErrorDefaults");
    return {};
  }
  const out: AppSettings["providerErrorDefaults"] = {};
  for (const [provider, entry] of Object.entries(value)) {
    const valid =
      isRecord(entry) &&
      inIntRange(entry.cooldownMs, APP_SETTINGS_LIMITS.defaultCooldownMs) &&
      (entry.scope === undefined || ERROR_RULE_SCOPES.includes(entry.scope as ErrorRuleScope)) &&
      (entry.reason === undefined || typeof entry.reason === "string");
    if (!valid) {
      adjusted.push(`providerErrorDefaults.${provider}`);
      continue;
    }
    const item: AppSettings["providerErrorDefaults"][string] = { cooldownMs: entry.cooldownMs as number };
    if (entry.scope !== undefined) item.scope = entry.scope as ErrorRuleScope;
    if (entry.reason !== undefined) item.reason = entry.reason as string;
    out[provider] = item;
  }
  return out;
}

function readEmergencyFallback(value: unknown, adjusted: string[]): AppSettings["emergencyFallback"] {
  const fallback = { ...DEFAULT_APP_SETTINGS.emergencyFallback };
  if (value === undefined) return fallback;
  if (!isRecord(value)) {
    adjusted.push("emergencyFallback");
    return fallback;
  }
  const enabled = typeof value.enabled === "boolean" ? value.enabled : fallback.enabled;
  if (value.enabled !== undefined && typeof value.enabled !== "boolean") adjusted.push("emergencyFallback.enabled");
  const modelValid = value.model === null || (typeof value.model === "string" && value.model !== "");
  if (value.model !== undefined && !modelValid) adjusted.push("emergencyFallback.model");
  return { enabled, model: modelValid ? (value.model as string | null) : fallback.model };
}

function readAliases(value: unknown, adjusted: string[]): Record<string, string> {
  if (value === undefined) return {};
  if (!isRecord(value)) {
    adjusted.push("aliases");
    return {};
  }
  const out: Record<string, string> = {};
  for (const [name, target] of Object.entries(value)) {
    if (typeof target === "string" && target !== "" && name !== "") out[name] = target;
    else adjusted.push(`aliases.${name}`);
  }
  return out;
}

function inIntRange(value: unknown, range: { min: number; max: number }): boolean {
  return Number.isInteger(value) && (value as number) >= range.min && (value as number) <= range.max;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
