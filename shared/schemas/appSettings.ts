// The general settings, validated by one set of zod schemas (R10.1, R12.4). PATCH /api/settings
// and config imports are strict: a wrong type or an R12.4 violation is a 400 naming the field.
// The stored document is read with the same field schemas, tolerantly: it may be partial or
// written by an older version, so reading it never fails; a field that does not pass falls back
// to its default (a list or map entry is dropped), numbers are clamped into their range, and every
// such adjustment is reported by path.
import { z } from "zod";
import { APP_SETTINGS_LIMITS, DEFAULT_APP_SETTINGS } from "../appSettings.js";
import { isRecord } from "../records.js";
import type { AppSettings, ProviderErrorRule } from "../types.js";
import { entityName, nonEmpty, providerId } from "./fields.js";

const L = APP_SETTINGS_LIMITS;

function isPlainRedisUrl(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  return (url.protocol === "redis:" || url.protocol === "rediss:") && url.username === "" && url.password === "";
}

/**
 * R9.6: a redis:// or rediss:// URL. Settings are returned by GET /api/settings and exported, so a
 * URL carrying credentials is refused here; such a Redis is named by SWITCHYARD_REDIS_URL instead.
 */
const redisUrl = z.string().max(2_048).refine(isPlainRedisUrl, "must be a redis:// or rediss:// URL without credentials (give a password-protected Redis in SWITCHYARD_REDIS_URL)");
const scopeEnum = z.enum(["model", "connection", "provider"]);

/** R12.4: status and/or a plain case-insensitive substring (never a RegExp), AND-ed. */
export const providerErrorRuleSchema = z
  .object({
    provider: nonEmpty,
    status: z.number().int().min(L.ruleStatus.min).max(L.ruleStatus.max).optional(),
    match: z.string().min(1, "must not be empty").max(L.ruleMatchMaxLength).optional(),
    scope: scopeEnum.default("connection"),
    reason: nonEmpty.optional(),
    cooldownMs: z.number().int().min(L.ruleCooldownMs.min).max(L.ruleCooldownMs.max, "must be at most 30 days").optional(),
  })
  .refine((rule) => rule.status !== undefined || rule.match !== undefined, {
    error: "a rule needs a status, a match, or both",
    path: ["status"],
  });

export const providerErrorDefaultSchema = z.object({
  cooldownMs: z.number().int().min(L.defaultCooldownMs.min, "must be at least 1 minute").max(L.defaultCooldownMs.max, "must be at most 30 days"),
  scope: scopeEnum.optional(),
  reason: nonEmpty.optional(),
});

const emergencyFallbackSchema = z.strictObject({ enabled: z.boolean().optional(), model: nonEmpty.nullable().optional() });

/**
 * PATCH /api/settings: top-level keys replace the stored value, except `emergencyFallback`,
 * whose two fields merge. Numbers out of their documented range are clamped afterwards by
 * the normaliser (R10.1); wrong types and R12.4 violations are rejected here.
 */
export const settingsPatchSchema = z.strictObject({
  sessionAffinityTtlMs: z.number().optional(),
  requireClientKey: z.boolean().optional(),
  maxBodyMb: z.number().optional(),
  proxyEnabled: z.boolean().optional(),
  providerErrorRules: z.array(providerErrorRuleSchema).max(L.providerErrorRulesMax, "at most 50 rules").optional(),
  providerErrorDefaults: z.record(providerId, providerErrorDefaultSchema).optional(),
  emergencyFallback: emergencyFallbackSchema.optional(),
  aliases: z.record(entityName, nonEmpty).optional(),
  requestLogRetention: z.number().int().optional(),
  promptLogging: z.boolean().optional(),
  promptRetentionHours: z.number().optional(),
  responsesRetentionHours: z.number().int().optional(),
  redisUrl: redisUrl.nullable().optional(),
  metricsPublic: z.boolean().optional(),
  /** R8.1: the global gate; null removes it. */
  maxConcurrent: z.number().int().min(L.maxConcurrent.min).max(L.maxConcurrent.max).nullable().optional(),
});

export type SettingsPatchBody = z.infer<typeof settingsPatchSchema>;

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
  const adjusted: string[] = [];
  const settings = storedSettingsSchema(adjusted.push.bind(adjusted)).parse(isRecord(raw) ? raw : {});
  return { settings, adjusted };
}

type Report = (path: string) => void;

/**
 * The stored document's schema. It is built per read because it reports into that read's list;
 * the field rules themselves are the patch schema's.
 */
function storedSettingsSchema(report: Report) {
  const d = DEFAULT_APP_SETTINGS;
  return z.object({
    sessionAffinityTtlMs: tolerant("sessionAffinityTtlMs", clamped("sessionAffinityTtlMs", L.sessionAffinityTtlMs, report), d.sessionAffinityTtlMs, report),
    requireClientKey: tolerant("requireClientKey", z.boolean(), d.requireClientKey, report),
    maxBodyMb: tolerant("maxBodyMb", clamped("maxBodyMb", L.maxBodyMb, report), d.maxBodyMb, report),
    proxyEnabled: tolerant("proxyEnabled", z.boolean(), d.proxyEnabled, report),
    providerErrorRules: tolerant("providerErrorRules", storedRules(report), [], report),
    providerErrorDefaults: tolerant("providerErrorDefaults", storedEntries("providerErrorDefaults", providerErrorDefaultSchema, report), {}, report),
    emergencyFallback: tolerant("emergencyFallback", storedEmergencyFallback(report), { ...d.emergencyFallback }, report),
    redisUrl: tolerant("redisUrl", redisUrl.nullable(), d.redisUrl, report),
    aliases: tolerant("aliases", storedEntries("aliases", nonEmpty, report), {}, report),
    requestLogRetention: tolerant("requestLogRetention", clamped("requestLogRetention", L.requestLogRetention, report).transform(Math.round), d.requestLogRetention, report),
    promptLogging: tolerant("promptLogging", z.boolean(), d.promptLogging, report),
    metricsPublic: tolerant("metricsPublic", z.boolean(), d.metricsPublic, report),
    maxConcurrent: tolerant("maxConcurrent", clamped("maxConcurrent", L.maxConcurrent, report).transform(Math.round).nullable(), d.maxConcurrent, report),
    promptRetentionHours: tolerant("promptRetentionHours", clamped("promptRetentionHours", L.promptRetentionHours, report), d.promptRetentionHours, report),
    responsesRetentionHours: tolerant(
      "responsesRetentionHours",
      clamped("responsesRetentionHours", L.responsesRetentionHours, report).transform(Math.round),
      d.responsesRetentionHours,
      report,
    ),
  });
}

/** Absent: the default, silently. Present but failing `schema`: the default, reported. */
function tolerant<T>(path: string, schema: z.ZodType<T>, fallback: T, report: Report): z.ZodType<T> {
  return schema
    .optional()
    .catch(() => {
      report(path);
      return undefined;
    })
    .transform((value) => (value === undefined ? structuredClone(fallback) : value));
}

function clamped(path: string, range: { min: number; max: number }, report: Report) {
  return z.number().transform((value) => {
    const within = Math.min(range.max, Math.max(range.min, value));
    if (within !== value) report(path);
    return within;
  });
}

/** Keeps the rules that pass the patch schema's rule (R12.4), at most 50; each one dropped is reported. */
function storedRules(report: Report): z.ZodType<ProviderErrorRule[]> {
  return z.array(z.unknown()).transform((items) => {
    const rules: ProviderErrorRule[] = [];
    items.forEach((item, index) => {
      const rule = providerErrorRuleSchema.safeParse(item);
      if (rule.success && rules.length < L.providerErrorRulesMax) rules.push(rule.data);
      else report(`providerErrorRules.${index}`);
    });
    return rules;
  });
}

/** A map whose entries must pass `entry`; each one that does not is dropped and reported. */
function storedEntries<T>(path: string, entry: z.ZodType<T>, report: Report): z.ZodType<Record<string, T>> {
  return z.record(z.string(), z.unknown()).transform((entries) => {
    const out: Record<string, T> = {};
    for (const [key, value] of Object.entries(entries)) {
      const parsed = entry.safeParse(value);
      if (parsed.success && key !== "") out[key] = parsed.data;
      else report(`${path}.${key}`);
    }
    return out;
  });
}

function storedEmergencyFallback(report: Report): z.ZodType<AppSettings["emergencyFallback"]> {
  const d = DEFAULT_APP_SETTINGS.emergencyFallback;
  return z.object({
    enabled: tolerant("emergencyFallback.enabled", z.boolean(), d.enabled, report),
    model: tolerant("emergencyFallback.model", nonEmpty.nullable(), d.model, report),
  });
}
