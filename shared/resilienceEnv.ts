// Env vars seed the resilience defaults (R10.2): a persisted value wins over them, except
// RATE_LIMIT_AUTO_ENABLE (R9.5). An unparseable or out-of-range value is reported, never fatal.
import { isRecord } from "./records.js";
import { type Category, DEFAULT_RESILIENCE_SETTINGS, type Env, type ResilienceSettings, type SettingsChange, clampNumber, describeRange, rangeAt } from "./resilienceSettings.js";

export function parseEnvBoolean(value: string | undefined): boolean | undefined {
  const v = value?.trim().toLowerCase();
  if (v === "true" || v === "1" || v === "on" || v === "yes") return true;
  if (v === "false" || v === "0" || v === "off" || v === "no") return false;
  return undefined;
}

function parseEnvNumber(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

const BREAKER_ENV_CATEGORY: Record<Category, string> = { oauth: "OAUTH", apikey: "API_KEY", local: "LOCAL" };

/** [env var names (first set wins), document path, kind]. */
function envBindings(): Array<[string[], string, "boolean" | "number"]> {
  const out: Array<[string[], string, "boolean" | "number"]> = [
    [["QUOTA_PREFLIGHT_CUTOFF_ENABLED"], "quotaPreflightCutoff.enabled", "boolean"],
    [["PROVIDER_COOLDOWN_ENABLED"], "providerCooldown.enabled", "boolean"],
    [["STREAM_RECOVERY_ENABLED"], "streamRecovery.enabled", "boolean"],
    [["STREAM_RECOVERY_MIDSTREAM_ENABLED"], "streamRecovery.midstreamEnabled", "boolean"],
    [["STREAM_THROUGHPUT_WATCHDOG_ENABLED"], "streamRecovery.throughputWatchdog.enabled", "boolean"],
    [["STREAM_CONTENT_STALL_TIMEOUT_MS"], "streamRecovery.contentStallTimeoutMs", "number"],
    [["OMNIROUTE_ROTATION_RATE_LIMIT_RESET_SECONDS"], "connectionCooldown.rateLimitResetSeconds", "number"],
    [["RATE_LIMIT_MAX_WAIT_MS"], "requestQueue.maxWaitMs", "number"],
    [["RATE_LIMIT_EXECUTION_MAX_WAIT_MS"], "requestQueue.executionMaxWaitMs", "number"],
    [["RATE_LIMIT_MAX_QUEUE_DEPTH"], "requestQueue.maxQueueDepth", "number"],
  ];
  for (const [category, name] of Object.entries(BREAKER_ENV_CATEGORY)) {
    const names = (suffix: string) => [`SWITCHYARD_CIRCUIT_BREAKER_${name}_${suffix}`, `OMNIROUTE_CIRCUIT_BREAKER_${name}_${suffix}`];
    out.push([names("THRESHOLD"), `providerBreaker.${category}.failureThreshold`, "number"]);
    out.push([names("DEGRADATION_THRESHOLD"), `providerBreaker.${category}.degradationThreshold`, "number"]);
    out.push([names("RESET_MS"), `providerBreaker.${category}.resetTimeoutMs`, "number"]);
  }
  for (const [category, name] of [
    ["oauth", "OAUTH"],
    ["apikey", "API_KEY"],
  ] as const) {
    const prefix = `OMNIROUTE_PROVIDER_BREAKER_${name}_`;
    out.push([[`${prefix}FAILURE_THRESHOLD`], `providerCooldown.${category}.failureThreshold`, "number"]);
    out.push([[`${prefix}FAILURE_WINDOW_MS`], `providerCooldown.${category}.failureWindowMs`, "number"]);
    out.push([[`${prefix}COOLDOWN_MS`], `providerCooldown.${category}.cooldownMs`, "number"]);
  }
  return out;
}

/** Writes `value` at a dotted path of envBindings(); every section on the way exists in the defaults. */
function setPath(doc: object, path: string, value: unknown): void {
  const keys = path.split(".");
  let node: unknown = doc;
  for (const key of keys.slice(0, -1)) node = isRecord(node) ? node[key] : undefined;
  if (!isRecord(node)) throw new Error(`resilience env binding ${path} names no section of the defaults`);
  node[keys[keys.length - 1]] = value;
}

/** The defaults with env seeds applied: what an empty stored document normalises to (R10.2). */
export function resilienceDefaults(env: Env, changes: SettingsChange[] = []): ResilienceSettings {
  const defaults = structuredClone(DEFAULT_RESILIENCE_SETTINGS);
  for (const [names, path, kind] of envBindings()) {
    const name = names.find((n) => env[n] !== undefined && env[n].trim() !== "");
    if (!name) continue;
    const parsed = kind === "boolean" ? parseEnvBoolean(env[name]) : parseEnvNumber(env[name]);
    if (parsed === undefined) {
      changes.push({ path: `env:${name}`, from: env[name], to: undefined, reason: `ignored: not a ${kind}` });
      continue;
    }
    const value = typeof parsed === "number" ? clampNumber(parsed, rangeAt(path)) : parsed;
    if (value !== parsed) changes.push({ path: `env:${name}`, from: parsed, to: value, reason: describeRange(rangeAt(path)) });
    setPath(defaults, path, value);
  }
  return defaults;
}
