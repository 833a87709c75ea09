import { describe, expect, it } from "vitest";
import { applyResiliencePatch, DEFAULT_RESILIENCE_SETTINGS, RESILIENCE_RANGES } from "../../../shared/resilienceSettings.js";
import { normalizeResilienceSettings } from "../../../shared/schemas/resilienceDocument.js";
import { clearCooldownsBodySchema, clearModelCooldownsBodySchema, resetBreakersBodySchema, resiliencePatchSchema } from "../../../shared/schemas/resilience.js";

const firstIssue = (result: { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } }) =>
  result.error?.issues[0] ? { path: result.error.issues[0].path.join("."), message: result.error.issues[0].message } : null;

describe("resilience settings defaults", () => {
  it("R10.1 an empty document normalises to the spec defaults with no changes reported", () => {
    const { settings, changes } = normalizeResilienceSettings({}, {});
    expect(changes).toEqual([]);
    expect(settings).toEqual(DEFAULT_RESILIENCE_SETTINGS);
  });

  it("R2.2/R3.1/R4.2/R5.1 defaults carry the spec numbers", () => {
    const s = normalizeResilienceSettings(undefined, {}).settings;
    expect(s.providerBreaker.oauth).toMatchObject({ degradationThreshold: 5, failureThreshold: 8, resetTimeoutMs: 60_000, escalateAfter: 2, maxBackoffMultiplier: 8 });
    expect(s.providerBreaker.apikey).toMatchObject({ degradationThreshold: 7, failureThreshold: 12, resetTimeoutMs: 30_000, escalateAfter: 3, maxBackoffMultiplier: 4 });
    expect(s.providerBreaker.local).toMatchObject({ degradationThreshold: null, failureThreshold: 2, resetTimeoutMs: 15_000 });
    expect(s.providerCooldown.enabled).toBe(false);
    expect(s.providerCooldown.oauth).toEqual({ failureThreshold: 10, failureWindowMs: 900_000, cooldownMs: 300_000 });
    expect(s.providerCooldown.apikey).toEqual({ failureThreshold: 15, failureWindowMs: 1_800_000, cooldownMs: 600_000 });
    expect(s.providerCooldown.local).toEqual({ failureThreshold: 2, failureWindowMs: 300_000, cooldownMs: 60_000 });
    expect(s.connectionCooldown.oauth).toEqual({ baseCooldownMs: 5_000, maxBackoffSteps: 8, useUpstreamRetryHints: false });
    expect(s.connectionCooldown.apikey).toEqual({ baseCooldownMs: 3_000, maxBackoffSteps: 5, useUpstreamRetryHints: true });
    expect(s.modelLockout).toEqual({
      enabled: false,
      errorCodes: [403, 404, 429, 502, 503, 504],
      baseCooldownMs: 120_000,
      maxCooldownMs: 1_800_000,
      maxBackoffSteps: 10,
      useExponentialBackoff: true,
    });
    expect(s.streamStallCooldown.enabled).toBe(false);
    expect(s.requestQueue).toEqual({ maxWaitMs: 30_000, executionMaxWaitMs: 600_000, maxQueueDepth: 0, autoEnableApiKeyProviders: true });
    expect(s.comboCooldownWait).toEqual({ enabled: true, maxWaitMs: 90_000, maxAttempts: 5, budgetMs: 300_000 });
    expect(s.streamRecovery).toMatchObject({ enabled: true, midstreamEnabled: false, contentStallTimeoutMs: 120_000, idleTimeoutMs: 300_000, attemptDeadlineMs: 600_000 });
    expect(s.streamRecovery.throughputWatchdog).toEqual({ enabled: false, warmupMs: 30_000, windowMs: 30_000, minBytesPerSec: 4, minBytes: 1 });
    expect(s.p2cLatency.weight).toBe(0);
    expect(s.quotaShareConcurrencyLimit.enabled).toBe(true);
  });
});

describe("normaliser clamps and reports (R10.1)", () => {
  it("R10.1 every number of the document has a documented range", () => {
    const missing: string[] = [];
    const walk = (node: unknown, ranges: unknown, path: string) => {
      if (typeof node === "number" || node === null) {
        const r = ranges as { min?: number } | undefined;
        if (typeof r?.min !== "number") missing.push(path);
        return;
      }
      if (typeof node !== "object" || Array.isArray(node)) return;
      for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
        walk(value, (ranges as Record<string, unknown> | undefined)?.[key], `${path}${path ? "." : ""}${key}`);
      }
    };
    walk(DEFAULT_RESILIENCE_SETTINGS, RESILIENCE_RANGES, "");
    expect(missing).toEqual([]);
  });

  it.each([
    ["D5 model lockout base below 5 000", { modelLockout: { baseCooldownMs: 100 } }, "modelLockout.baseCooldownMs", 100, 5_000],
    ["D5 model lockout max above 3 600 000", { modelLockout: { maxCooldownMs: 9_000_000 } }, "modelLockout.maxCooldownMs", 9_000_000, 3_600_000],
    ["D5 model lockout steps above 20", { modelLockout: { maxBackoffSteps: 50 } }, "modelLockout.maxBackoffSteps", 50, 20],
    ["settings: requestQueue.maxQueueDepth above 100 000 is clamped to the D9 range", { requestQueue: { maxQueueDepth: 1e9 } }, "requestQueue.maxQueueDepth", 1e9, 100_000],
    ["settings: requestQueue.executionMaxWaitMs below 1 ms is clamped to the D9 range", { requestQueue: { executionMaxWaitMs: 0 } }, "requestQueue.executionMaxWaitMs", 0, 1],
    ["settings: requestQueue.maxWaitMs above 24 h is clamped to the D9 range", { requestQueue: { maxWaitMs: 90_000_000 } }, "requestQueue.maxWaitMs", 90_000_000, 86_400_000],
    [
      "settings: comboCooldownWait.maxWaitMs above 300 000 is clamped to the D11 range",
      { comboCooldownWait: { maxWaitMs: 400_000, budgetMs: 500_000 } },
      "comboCooldownWait.maxWaitMs",
      400_000,
      300_000,
    ],
    ["settings: p2cLatency.weight above 20 is clamped to the R4.10 range", { p2cLatency: { weight: 35 } }, "p2cLatency.weight", 35, 20],
    ["R13.7 content stall 500 ms raised to 1 000", { streamRecovery: { contentStallTimeoutMs: 500 } }, "streamRecovery.contentStallTimeoutMs", 500, 1_000],
    ["R4.2 apikey backoff steps negative", { connectionCooldown: { apikey: { maxBackoffSteps: -3 } } }, "connectionCooldown.apikey.maxBackoffSteps", -3, 0],
  ])("%s", (_name, raw, path, from, to) => {
    const { settings, changes } = normalizeResilienceSettings(raw, {});
    expect(changes).toContainEqual(expect.objectContaining({ path, from, to }));
    const value = path.split(".").reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], settings);
    expect(value).toBe(to);
  });

  it("R13.7 content stall 0 stays 0 (off) and is not reported", () => {
    const { settings, changes } = normalizeResilienceSettings({ streamRecovery: { contentStallTimeoutMs: 0 } }, {});
    expect(settings.streamRecovery.contentStallTimeoutMs).toBe(0);
    expect(changes).toEqual([]);
  });

  it("D5 maxCooldownMs is raised to baseCooldownMs when below it", () => {
    const { settings, changes } = normalizeResilienceSettings({ modelLockout: { baseCooldownMs: 300_000, maxCooldownMs: 60_000 } }, {});
    expect(settings.modelLockout.maxCooldownMs).toBe(300_000);
    expect(changes).toContainEqual(expect.objectContaining({ path: "modelLockout.maxCooldownMs", from: 60_000, to: 300_000 }));
  });

  it("D5 error codes outside 100-599 are dropped and an empty list restores the default", () => {
    const dropped = normalizeResilienceSettings({ modelLockout: { errorCodes: [429, 42, 700, 503] } }, {});
    expect(dropped.settings.modelLockout.errorCodes).toEqual([429, 503]);
    expect(dropped.changes[0]).toMatchObject({ path: "modelLockout.errorCodes" });
    const empty = normalizeResilienceSettings({ modelLockout: { errorCodes: [1, 2] } }, {});
    expect(empty.settings.modelLockout.errorCodes).toEqual([403, 404, 429, 502, 503, 504]);
  });

  it("D2 a configured degradationThreshold is clamped to failureThreshold - 1", () => {
    const { settings, changes } = normalizeResilienceSettings({ providerBreaker: { oauth: { degradationThreshold: 20, failureThreshold: 8 } } }, {});
    expect(settings.providerBreaker.oauth.degradationThreshold).toBe(7);
    expect(changes).toContainEqual(expect.objectContaining({ path: "providerBreaker.oauth.degradationThreshold", to: 7 }));
  });

  it("settings: comboCooldownWait.budgetMs is raised to maxWaitMs (the D11 rule for the stored values)", () => {
    const { settings } = normalizeResilienceSettings({ comboCooldownWait: { maxWaitMs: 100_000, budgetMs: 10_000 } }, {});
    expect(settings.comboCooldownWait.budgetMs).toBe(100_000);
  });

  it("R10.1 a stored value of the wrong type falls back to the default and is reported; unknown keys are dropped", () => {
    const { settings, changes } = normalizeResilienceSettings({ streamStallCooldown: { enabled: "yes" }, bogus: 1, p2cLatency: { weight: "x" } }, {});
    expect(settings.streamStallCooldown.enabled).toBe(false);
    expect(settings.p2cLatency.weight).toBe(0);
    expect(changes.map((c) => c.path).sort()).toEqual(["bogus", "p2cLatency.weight", "streamStallCooldown.enabled"]);
  });

  it("D4 connectionCooldown.local is optional and normalised when present", () => {
    expect(normalizeResilienceSettings({}, {}).settings.connectionCooldown.local).toBeUndefined();
    const s = normalizeResilienceSettings({ connectionCooldown: { local: { baseCooldownMs: 10 } } }, {}).settings;
    expect(s.connectionCooldown.local).toEqual({ baseCooldownMs: 100, maxBackoffSteps: 5, useUpstreamRetryHints: true });
  });
});

describe("env precedence (R10.2)", () => {
  it("R10.2 env vars seed defaults for the opt-in toggles", () => {
    const env = {
      QUOTA_PREFLIGHT_CUTOFF_ENABLED: "true",
      PROVIDER_COOLDOWN_ENABLED: "1",
      STREAM_RECOVERY_ENABLED: "false",
      STREAM_RECOVERY_MIDSTREAM_ENABLED: "on",
      STREAM_THROUGHPUT_WATCHDOG_ENABLED: "true",
      STREAM_CONTENT_STALL_TIMEOUT_MS: "45000",
    };
    const s = normalizeResilienceSettings({}, env).settings;
    expect(s.quotaPreflightCutoff.enabled).toBe(true);
    expect(s.providerCooldown.enabled).toBe(true);
    expect(s.streamRecovery.enabled).toBe(false);
    expect(s.streamRecovery.midstreamEnabled).toBe(true);
    expect(s.streamRecovery.throughputWatchdog.enabled).toBe(true);
    expect(s.streamRecovery.contentStallTimeoutMs).toBe(45_000);
  });

  it("R10.2 a persisted value wins over the env var", () => {
    const s = normalizeResilienceSettings(
      { providerCooldown: { enabled: false }, streamRecovery: { enabled: true, contentStallTimeoutMs: 90_000 } },
      { PROVIDER_COOLDOWN_ENABLED: "true", STREAM_RECOVERY_ENABLED: "false", STREAM_CONTENT_STALL_TIMEOUT_MS: "45000" },
    ).settings;
    expect(s.providerCooldown.enabled).toBe(false);
    expect(s.streamRecovery.enabled).toBe(true);
    expect(s.streamRecovery.contentStallTimeoutMs).toBe(90_000);
  });

  it("R10.2 RATE_LIMIT_AUTO_ENABLE beats the persisted requestQueue.autoEnableApiKeyProviders (the one exception)", () => {
    const off = normalizeResilienceSettings({ requestQueue: { autoEnableApiKeyProviders: true } }, { RATE_LIMIT_AUTO_ENABLE: "off" });
    expect(off.settings.requestQueue.autoEnableApiKeyProviders).toBe(false);
    expect(off.changes).toContainEqual(expect.objectContaining({ path: "requestQueue.autoEnableApiKeyProviders", to: false }));
    const on = normalizeResilienceSettings({ requestQueue: { autoEnableApiKeyProviders: false } }, { RATE_LIMIT_AUTO_ENABLE: "1" });
    expect(on.settings.requestQueue.autoEnableApiKeyProviders).toBe(true);
  });

  it("R10.2 the RATE_LIMIT_* queue env vars seed requestQueue defaults below the persisted setting", () => {
    const env = { RATE_LIMIT_MAX_WAIT_MS: "5000", RATE_LIMIT_EXECUTION_MAX_WAIT_MS: "70000", RATE_LIMIT_MAX_QUEUE_DEPTH: "12" };
    expect(normalizeResilienceSettings({}, env).settings.requestQueue).toMatchObject({ maxWaitMs: 5_000, executionMaxWaitMs: 70_000, maxQueueDepth: 12 });
    expect(normalizeResilienceSettings({ requestQueue: { maxQueueDepth: 3 } }, env).settings.requestQueue.maxQueueDepth).toBe(3);
  });

  it("R2.2 OMNIROUTE_ and SWITCHYARD_ circuit breaker env vars seed profiles; SWITCHYARD_ wins when both are set", () => {
    const s = normalizeResilienceSettings(
      {},
      {
        OMNIROUTE_CIRCUIT_BREAKER_OAUTH_THRESHOLD: "20",
        OMNIROUTE_CIRCUIT_BREAKER_API_KEY_RESET_MS: "45000",
        SWITCHYARD_CIRCUIT_BREAKER_API_KEY_RESET_MS: "50000",
        SWITCHYARD_CIRCUIT_BREAKER_LOCAL_THRESHOLD: "4",
      },
    ).settings;
    expect(s.providerBreaker.oauth.failureThreshold).toBe(20);
    expect(s.providerBreaker.apikey.resetTimeoutMs).toBe(50_000);
    expect(s.providerBreaker.local.failureThreshold).toBe(4);
    const persisted = normalizeResilienceSettings({ providerBreaker: { oauth: { failureThreshold: 9 } } }, { OMNIROUTE_CIRCUIT_BREAKER_OAUTH_THRESHOLD: "20" });
    expect(persisted.settings.providerBreaker.oauth.failureThreshold).toBe(9);
  });

  it("R3.3 OMNIROUTE_PROVIDER_BREAKER_* seed the window gate profiles", () => {
    const s = normalizeResilienceSettings(
      {},
      {
        OMNIROUTE_PROVIDER_BREAKER_OAUTH_FAILURE_THRESHOLD: "3",
        OMNIROUTE_PROVIDER_BREAKER_API_KEY_FAILURE_WINDOW_MS: "60000",
        OMNIROUTE_PROVIDER_BREAKER_API_KEY_COOLDOWN_MS: "120000",
      },
    ).settings;
    expect(s.providerCooldown.oauth.failureThreshold).toBe(3);
    expect(s.providerCooldown.apikey).toMatchObject({ failureWindowMs: 60_000, cooldownMs: 120_000 });
  });

  it("R4.3 OMNIROUTE_ROTATION_RATE_LIMIT_RESET_SECONDS seeds the global rate-limit reset", () => {
    expect(normalizeResilienceSettings({}, { OMNIROUTE_ROTATION_RATE_LIMIT_RESET_SECONDS: "30" }).settings.connectionCooldown.rateLimitResetSeconds).toBe(30);
  });

  it("R10.2 an unparseable or out-of-range env value is reported and does not break the document", () => {
    const { settings, changes } = normalizeResilienceSettings({}, { PROVIDER_COOLDOWN_ENABLED: "maybe", RATE_LIMIT_MAX_QUEUE_DEPTH: "999999999" });
    expect(settings.providerCooldown.enabled).toBe(false);
    expect(settings.requestQueue.maxQueueDepth).toBe(100_000);
    expect(changes.map((c) => c.path)).toEqual(["env:PROVIDER_COOLDOWN_ENABLED", "env:RATE_LIMIT_MAX_QUEUE_DEPTH"]);
  });
});

describe("partial deep patch (R10.3)", () => {
  it("R10.3 merges objects, replaces scalars and arrays, keeps untouched siblings", () => {
    const current = { modelLockout: { enabled: true, errorCodes: [429], baseCooldownMs: 10_000 }, p2cLatency: { weight: 3 } };
    const merged = applyResiliencePatch(current, { modelLockout: { errorCodes: [404, 503] }, p2cLatency: { weight: 10 } });
    expect(merged).toEqual({ modelLockout: { enabled: true, errorCodes: [404, 503], baseCooldownMs: 10_000 }, p2cLatency: { weight: 10 } });
    expect(current.modelLockout.errorCodes).toEqual([429]);
  });

  it("R10.2 a null in the patch removes the stored field so the env seed applies again", () => {
    const merged = applyResiliencePatch({ providerCooldown: { enabled: false, minRetryCooldownMs: 5_000 } }, { providerCooldown: { enabled: null } });
    expect(merged).toEqual({ providerCooldown: { minRetryCooldownMs: 5_000 } });
    expect(normalizeResilienceSettings(merged, { PROVIDER_COOLDOWN_ENABLED: "true" }).settings.providerCooldown.enabled).toBe(true);
  });
});

describe("input schemas", () => {
  it("R10.1 the patch schema accepts out-of-range numbers (the normaliser clamps them) and nulls", () => {
    expect(resiliencePatchSchema.safeParse({ p2cLatency: { weight: 99 }, modelLockout: { errorCodes: [1, 2], maxCooldownMs: null } }).success).toBe(true);
    expect(resiliencePatchSchema.safeParse({ connectionCooldown: { local: { baseCooldownMs: 1_000 }, rateLimitResetSeconds: 60 } }).success).toBe(true);
  });

  it.each([
    ["a string for a number", { p2cLatency: { weight: "10" } }, "p2cLatency.weight"],
    ["a number for a boolean", { streamStallCooldown: { enabled: 1 } }, "streamStallCooldown.enabled"],
    ["an unknown nested key", { modelLockout: { baseCooldwnMs: 5 } }, "modelLockout.baseCooldwnMs"],
    ["an unknown top-level key", { nope: {} }, "nope"],
    ["a scalar for a section", { requestQueue: 5 }, "requestQueue"],
  ])("R10.1 the patch schema rejects %s with the field path", (_name, body, path) => {
    expect(firstIssue(resiliencePatchSchema.safeParse(body))?.path).toBe(path);
  });

  it.each([
    ["an empty body", {}],
    ["an unknown field", { connectionIds: ["a"], extra: true }],
    ["more than 1 000 ids", { connectionIds: Array.from({ length: 1_001 }, (_, i) => `c${i}`) }],
    ["an id longer than 128 chars", { connectionIds: ["x".repeat(129)] }],
    ["a provider longer than 128 chars", { all: true, provider: "p".repeat(129) }],
    ["all: false", { all: false }],
  ])("D6 POST /api/resilience/cooldowns rejects %s", (_name, body) => {
    expect(clearCooldownsBodySchema.safeParse(body).success).toBe(false);
  });

  it("D6 POST /api/resilience/cooldowns accepts {connectionIds} and {all, provider?}", () => {
    expect(clearCooldownsBodySchema.safeParse({ connectionIds: Array.from({ length: 1_000 }, (_, i) => `c${i}`) }).success).toBe(true);
    expect(clearCooldownsBodySchema.safeParse({ all: true }).success).toBe(true);
    expect(clearCooldownsBodySchema.safeParse({ all: true, provider: "p" }).success).toBe(true);
    expect(firstIssue(clearCooldownsBodySchema.safeParse({ connectionIds: ["a"], extra: 1 }))?.path).toBe("extra");
  });

  it("D5 DELETE /api/resilience/model-cooldowns needs provider and model, or all: true", () => {
    expect(clearModelCooldownsBodySchema.parse({ provider: "p", model: "m", connection: "c1" })).toEqual({ provider: "p", model: "m", connectionId: "c1" });
    expect(clearModelCooldownsBodySchema.parse({ provider: "p", model: "m" })).toEqual({ provider: "p", model: "m", connectionId: null });
    expect(clearModelCooldownsBodySchema.parse({ all: true })).toEqual({ all: true });
    expect(firstIssue(clearModelCooldownsBodySchema.safeParse({ provider: "p" }))?.path).toBe("model");
    expect(firstIssue(clearModelCooldownsBodySchema.safeParse({ model: "m" }))?.path).toBe("provider");
    expect(clearModelCooldownsBodySchema.safeParse({}).success).toBe(false);
    expect(clearModelCooldownsBodySchema.safeParse({ provider: "p", model: "m", color: "red" }).success).toBe(false);
  });

  it("R2.6 POST /api/resilience/reset accepts {} and {provider}, rejects unknown fields", () => {
    expect(resetBreakersBodySchema.safeParse({}).success).toBe(true);
    expect(resetBreakersBodySchema.safeParse({ provider: "p" }).success).toBe(true);
    expect(resetBreakersBodySchema.safeParse({ provider: 3 }).success).toBe(false);
    expect(firstIssue(resetBreakersBodySchema.safeParse({ everything: true }))?.path).toBe("everything");
  });
});
