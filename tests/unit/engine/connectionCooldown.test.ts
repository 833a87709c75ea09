import { describe, expect, it } from "vitest";
import { scaledBackoffMs } from "../../../main/engine/connectionCooldown.js";
import { DEFAULT_RESILIENCE_SETTINGS } from "../../../shared/resilienceSettings.js";
import { connection, fail, failureInput, harness, provider, succeed, T0, type Harness } from "./fixtures.js";

const apikey = DEFAULT_RESILIENCE_SETTINGS.connectionCooldown.apikey;
const oauth = provider({ category: "oauth" });

/** Fails once, then lets the cooldown lapse so the next failure is a new incident. */
function failAndLapse(h: Harness, input: Parameters<typeof fail>[1]): number {
  fail(h, input);
  const row = h.store.row("c1");
  const cooldown = (row.rateLimitedUntil ?? h.clock.now()) - h.clock.now();
  h.clock.advance(cooldown + 1);
  return cooldown;
}

describe("scaled backoff (R4.2, D4)", () => {
  it("D4 apikey levels 0,1,2 -> 3 000, 6 000, 12 000; level >= 5 -> 96 000", () => {
    expect([0, 1, 2, 5, 6, 40].map((level) => scaledBackoffMs(apikey, level))).toEqual([3_000, 6_000, 12_000, 96_000, 96_000, 96_000]);
  });

  it("D4 the backoff is capped at 1 800 000", () => {
    expect(scaledBackoffMs({ baseCooldownMs: 600_000, maxBackoffSteps: 20, useUpstreamRetryHints: true }, 10)).toBe(1_800_000);
  });

  it("D4 repeated 5xx on one apikey connection: 3 s, 6 s, 12 s and backoffLevel climbs", () => {
    const h = harness();
    const cooldowns = [0, 1, 2].map(() => failAndLapse(h, { status: 503 }));
    expect(cooldowns).toEqual([3_000, 6_000, 12_000]);
    expect(h.store.row("c1")).toMatchObject({ backoffLevel: 3, testStatus: "unavailable", lastErrorType: "server_error", errorCode: "503" });
  });

  it("R4.2 oauth base is 5 000", () => {
    const h = harness();
    fail(h, { status: 500, provider: oauth });
    expect(h.store.row("c1").rateLimitedUntil).toBe(T0 + 5_000);
  });
});

describe("retry-hint precedence (R4.3, D4)", () => {
  it("D4 Retry-After: 120 -> 120 000 and a used hint resets backoffLevel to 0", () => {
    const h = harness({ connections: [connection({ backoffLevel: 4 })] });
    fail(h, { status: 429, bodyText: "rate limited", headers: { "Retry-After": "120" } });
    expect(h.store.row("c1")).toMatchObject({ rateLimitedUntil: T0 + 120_000, backoffLevel: 0, testStatus: "unavailable" });
  });

  it("D4 HTTP-date Retry-After and x-ratelimit-reset epoch seconds work", () => {
    const h = harness();
    fail(h, { status: 429, headers: { "retry-after": new Date(T0 + 42_000).toUTCString() } });
    expect(h.store.row("c1").rateLimitedUntil).toBe(T0 + 42_000);
    const g = harness();
    fail(g, { status: 429, headers: { "x-ratelimit-reset": String((T0 + 75_000) / 1_000) } });
    expect(g.store.row("c1").rateLimitedUntil).toBe(T0 + 75_000);
  });

  it("D4 a parsed reset longer than the 30-min cap is honoured (will reset after 2h30m14s)", () => {
    const h = harness();
    fail(h, { status: 429, bodyText: "limit hit; will reset after 2h30m14s" });
    expect(h.store.row("c1").rateLimitedUntil).toBe(T0 + 9_014_000);
  });

  it("D4 Resets in 2400h is held to the 30-day cap", () => {
    const h = harness();
    fail(h, { status: 429, bodyText: "Resets in 2400h" });
    expect(h.store.row("c1").rateLimitedUntil).toBe(T0 + 30 * 86_400_000);
  });

  it("D4 oauth does not use upstream hints by default (useUpstreamRetryHints false)", () => {
    const h = harness();
    fail(h, { status: 429, bodyText: "slow down", headers: { "retry-after": "120" }, provider: oauth });
    expect(h.store.row("c1")).toMatchObject({ rateLimitedUntil: T0 + 5_000, backoffLevel: 1 });
  });

  it("R4.3 per-connection rotationOverrides.rateLimitResetSeconds beats the provider delay", () => {
    const h = harness({ connections: [connection({ backoffLevel: 2, providerSpecificData: { rotationOverrides: { rateLimitResetSeconds: 45 } } })] });
    fail(h, { status: 429, bodyText: "slow", provider: provider({ rateLimitCooldownSeconds: 900 }) });
    expect(h.store.row("c1")).toMatchObject({ rateLimitedUntil: T0 + 45_000, backoffLevel: 0 });
  });

  it("R4.3 provider rateLimitCooldownSeconds applies without a hint and resets backoffLevel to 0", () => {
    const h = harness({ connections: [connection({ backoffLevel: 3 })] });
    fail(h, { status: 429, bodyText: "slow", provider: provider({ rateLimitCooldownSeconds: 900 }) });
    expect(h.store.row("c1")).toMatchObject({ rateLimitedUntil: T0 + 900_000, backoffLevel: 0 });
  });

  it("R4.3 the env default OMNIROUTE_ROTATION_RATE_LIMIT_RESET_SECONDS comes before scaled backoff", () => {
    const h = harness({ settings: { connectionCooldown: { rateLimitResetSeconds: 20 } } });
    fail(h, { status: 429, bodyText: "slow" });
    expect(h.store.row("c1").rateLimitedUntil).toBe(T0 + 20_000);
  });

  it("R4.3 the upstream hint beats every configured delay", () => {
    const h = harness({ connections: [connection({ providerSpecificData: { rotationOverrides: { rateLimitResetSeconds: 45 } } })] });
    fail(h, { status: 429, headers: { "retry-after": "7" }, provider: provider({ rateLimitCooldownSeconds: 900 }) });
    expect(h.store.row("c1").rateLimitedUntil).toBe(T0 + 7_000);
  });

  it("R4.3 configured delays apply to rate-limit reasons only, not to a 5xx", () => {
    const h = harness();
    fail(h, { status: 502, provider: provider({ rateLimitCooldownSeconds: 900 }) });
    expect(h.store.row("c1").rateLimitedUntil).toBe(T0 + 3_000);
  });
});

describe("anti-thundering-herd (R4.4)", () => {
  it("R4.4 concurrent failures of one connection extend its cooldown once and raise backoffLevel once", () => {
    const h = harness();
    const stale = h.store.row("c1");
    for (let i = 0; i < 5; i++) {
      h.clock.advance(100);
      h.engine.recordFailure({ provider: provider(), connection: stale, model: "m", probe: false }, h.engine.classify(failureInput({ status: 503 })));
    }
    expect(h.store.row("c1")).toMatchObject({ backoffLevel: 1, rateLimitedUntil: T0 + 100 + 3_000 });
    expect(h.events.filter((e) => e.type === "cooldown.set")).toHaveLength(1);
  });

  it("R4.4 an active longer cooldown is never shortened", () => {
    const h = harness();
    fail(h, { status: 429, headers: { "retry-after": "600" } });
    h.clock.advance(1_000);
    fail(h, { status: 429, headers: { "retry-after": "5" } });
    expect(h.store.row("c1").rateLimitedUntil).toBe(T0 + 600_000);
  });

  it("R4.4 a longer upstream wait arriving during the cooldown extends it (level untouched)", () => {
    const h = harness();
    fail(h, { status: 503 });
    h.clock.advance(500);
    fail(h, { status: 429, headers: { "retry-after": "60" } });
    expect(h.store.row("c1")).toMatchObject({ rateLimitedUntil: T0 + 500 + 60_000, backoffLevel: 1 });
  });
});

describe("special reasons (R4.5–R4.9)", () => {
  it("R4.5 concurrency-limited 429 cools a fixed 1 000, keeps backoffLevel, skips the breaker", () => {
    const h = harness({ connections: [connection({ backoffLevel: 3 })] });
    fail(h, { status: 429, bodyText: "too many concurrent requests" });
    expect(h.store.row("c1")).toMatchObject({ rateLimitedUntil: T0 + 1_000, backoffLevel: 3, lastErrorType: "concurrency_limited" });
    expect(h.engine.monitoringHealth([provider()]).providerBreakers[0].failureCount).toBe(0);
  });

  it("R4.6 401 -> expired only on the 3rd consecutive failure, with cooldowns in between", () => {
    const h = harness();
    failAndLapse(h, { status: 401 });
    expect(h.store.row("c1")).toMatchObject({ testStatus: "unavailable", authFailureCount: 1 });
    failAndLapse(h, { status: 401 });
    expect(h.store.row("c1")).toMatchObject({ testStatus: "unavailable", authFailureCount: 2 });
    fail(h, { status: 401 });
    expect(h.store.row("c1")).toMatchObject({ testStatus: "expired", authFailureCount: 3, rateLimitedUntil: null });
  });

  it("R4.6 a 401 during the previous 401's cooldown does not count towards expired", () => {
    const h = harness();
    fail(h, { status: 401 });
    fail(h, { status: 401 });
    fail(h, { status: 401 });
    expect(h.store.row("c1")).toMatchObject({ testStatus: "unavailable", authFailureCount: 1 });
  });

  it("R4.6 a success resets the consecutive 401 count", () => {
    const h = harness();
    failAndLapse(h, { status: 401 });
    failAndLapse(h, { status: 401 });
    succeed(h);
    failAndLapse(h, { status: 401 });
    expect(h.store.row("c1")).toMatchObject({ testStatus: "unavailable", authFailureCount: 1 });
  });

  it("D4 402 -> credits_exhausted; deactivated account -> banned", () => {
    const h = harness({ connections: [connection(), connection({ id: "c2" })] });
    fail(h, { status: 402 });
    fail(h, { status: 403, bodyText: "Your account has been deactivated" }, { connectionId: "c2" });
    expect(h.store.row("c1").testStatus).toBe("credits_exhausted");
    expect(h.store.row("c2").testStatus).toBe("banned");
    expect(h.events).toContainEqual(expect.objectContaining({ type: "cooldown.set", connectionId: "c1", until: null, reason: "credits_exhausted" }));
  });

  it("R4.6 no transient cooldown ever overwrites a terminal state, even from a stale row", () => {
    const h = harness();
    const stale = h.store.row("c1");
    fail(h, { status: 402 });
    h.engine.recordFailure(
      { provider: provider(), connection: stale, model: "m", probe: false },
      h.engine.classify(failureInput({ status: 429, headers: { "retry-after": "60" } })),
    );
    expect(h.store.row("c1")).toMatchObject({ testStatus: "credits_exhausted", rateLimitedUntil: null });
  });

  it("R4.6 a success from a request that was in flight never ends a terminal state", () => {
    const h = harness();
    const stale = h.store.row("c1");
    fail(h, { status: 402 });
    h.engine.recordSuccess({ provider: provider(), connection: stale, model: "m", probe: false });
    expect(h.store.row("c1").testStatus).toBe("credits_exhausted");
  });

  it("D4 a generic 400 and a context overflow leave the connection untouched; model-not-found too", () => {
    const h = harness();
    fail(h, { status: 400, bodyText: "bad field" });
    fail(h, { status: 400, bodyText: "maximum context length exceeded" });
    fail(h, { status: 400, bodyText: '{"error":{"code":"model_not_found"}}' });
    expect(h.store.writes).toBe(0);
    expect(h.store.row("c1").rateLimitedUntil).toBeNull();
  });

  it("R4.8 a content stall records the error without cooling, unless streamStallCooldown.enabled", () => {
    const h = harness();
    fail(h, { failure: { kind: "stream", cause: "idle_stall", detail: "" } });
    expect(h.store.row("c1")).toMatchObject({ rateLimitedUntil: null, testStatus: "active", lastErrorType: "stream_stall" });
    const g = harness({ settings: { streamStallCooldown: { enabled: true } } });
    fail(g, { failure: { kind: "stream", cause: "idle_stall", detail: "" } });
    expect(g.store.row("c1")).toMatchObject({ rateLimitedUntil: T0 + 3_000, testStatus: "unavailable" });
  });

  it("R4.9 a connection whose cooldown lapsed is eligible again; success clears every error field", () => {
    const h = harness();
    fail(h, { status: 503 });
    expect(h.engine.selectConnections(provider(), "m", [h.store.row("c1")]).excluded).toEqual([{ connectionId: "c1", reason: "cooling_down", remainingMs: 3_000 }]);
    h.clock.advance(3_000);
    expect(h.engine.selectConnections(provider(), "m", [h.store.row("c1")]).eligible.map((c) => c.id)).toEqual(["c1"]);
    succeed(h);
    expect(h.store.row("c1")).toMatchObject({
      testStatus: "active",
      rateLimitedUntil: null,
      backoffLevel: 0,
      lastError: null,
      lastErrorType: null,
      errorCode: null,
      lastErrorAt: null,
    });
    expect(h.events.at(-1)).toMatchObject({ type: "cooldown.cleared", connectionId: "c1" });
  });

  it("R4.9 a success on a clean connection writes nothing (no store write per request)", () => {
    const h = harness();
    succeed(h);
    expect(h.store.writes).toBe(0);
    expect(h.breakers.saves).toBe(0);
  });
});

describe("request_rejected streaks (R4.7, D4)", () => {
  it("D4 per connection+model within 1 h: 5 min, 15 min, 45 min, capped at 60 min; never banned", () => {
    const h = harness();
    const durations: number[] = [];
    for (let i = 0; i < 5; i++) {
      fail(h, { status: 403, bodyText: "Request not allowed", model: "claude-x" });
      durations.push(h.engine.listModelCooldowns().items[0].remainingMs);
      h.clock.advance(1_000);
    }
    expect(durations).toEqual([300_000, 900_000, 2_700_000, 3_600_000, 3_600_000]);
    expect(h.store.row("c1")).toMatchObject({ testStatus: "active", rateLimitedUntil: null });
  });

  it("D4 the streak resets after 1 h without a refusal", () => {
    const h = harness();
    fail(h, { status: 403, bodyText: "Request not allowed" });
    h.clock.advance(3_600_000);
    fail(h, { status: 403, bodyText: "Request not allowed" });
    expect(h.engine.listModelCooldowns().items[0].remainingMs).toBe(300_000);
  });

  it("R4.7 the refused model leaves rotation; other models of the connection stay eligible", () => {
    const h = harness();
    fail(h, { status: 403, bodyText: "Request not allowed", model: "a" });
    expect(h.engine.selectConnections(provider(), "a", [h.store.row("c1")]).excluded[0]).toMatchObject({ reason: "model_lockout", remainingMs: 300_000 });
    expect(h.engine.selectConnections(provider(), "b", [h.store.row("c1")]).eligible).toHaveLength(1);
  });

  it("R4.7 without a model the connection cools for the streak duration", () => {
    const h = harness();
    fail(h, { status: 403, bodyText: "Request not allowed", model: "" });
    expect(h.store.row("c1")).toMatchObject({ rateLimitedUntil: T0 + 300_000, testStatus: "unavailable" });
  });
});

describe("disableCooling and connection-scoped rules (R12.3)", () => {
  it("R12.3 disableCooling: no connection cooldown; a quota 429 locks the model instead", () => {
    const h = harness({ connections: [connection({ disableCooling: true })] });
    fail(h, { status: 429, bodyText: "quota exceeded", headers: { "retry-after": "90" } });
    expect(h.store.row("c1")).toMatchObject({ rateLimitedUntil: null, testStatus: "active", lastErrorType: "quota_exhausted" });
    expect(h.engine.listModelCooldowns().items).toEqual([expect.objectContaining({ model: "m", reason: "quota_exhausted", remainingMs: 120_000 })]);
  });

  it("R12.3 disableCooling: a 5xx records the error only", () => {
    const h = harness({ connections: [connection({ disableCooling: true })] });
    fail(h, { status: 503 });
    expect(h.store.row("c1").rateLimitedUntil).toBeNull();
    expect(h.engine.listModelCooldowns().items).toEqual([]);
  });

  it("R12.3 an agentrouter connection-scoped quota verdict cools the connection, never terminal", () => {
    const h = harness();
    const agentrouter = provider({ id: "agentrouter", passthroughModels: true });
    fail(h, { status: 403, bodyText: "用户额度不足", provider: agentrouter });
    expect(h.store.row("c1")).toMatchObject({ testStatus: "unavailable", rateLimitedUntil: T0 + 3_000, lastErrorType: "quota_exhausted" });
  });

  it("R12.2 agentrouter 无权访问模型 locks the model for 6 h clamped to maxCooldownMs; the connection stays active", () => {
    const h = harness();
    const agentrouter = provider({ id: "agentrouter", passthroughModels: true });
    fail(h, { status: 403, bodyText: "无权访问模型", provider: agentrouter, model: "gpt-x" });
    expect(h.store.row("c1").testStatus).toBe("active");
    expect(h.engine.listModelCooldowns().items).toEqual([expect.objectContaining({ provider: "agentrouter", model: "gpt-x", reason: "forbidden", remainingMs: 1_800_000 })]);
  });

  it("R12.4 an operator rule's exact cooldownMs is used and never shortens a longer active cooldown", () => {
    const h = harness();
    h.app = { providerErrorRules: [{ provider: "p", status: 503, scope: "connection", cooldownMs: 10_000 }], providerErrorDefaults: {} };
    fail(h, { status: 429, headers: { "retry-after": "300" } });
    h.clock.advance(1);
    fail(h, { status: 503 });
    expect(h.store.row("c1").rateLimitedUntil).toBe(T0 + 300_000);
    h.clock.advance(300_000);
    fail(h, { status: 503 });
    expect(h.store.row("c1").rateLimitedUntil).toBe(h.clock.now() + 10_000);
  });

  it("R12.4 a provider-scoped operator rule cools the whole provider", () => {
    const h = harness();
    h.app = { providerErrorRules: [{ provider: "p", match: "maintenance", scope: "provider", cooldownMs: 120_000 }], providerErrorDefaults: {} };
    fail(h, { status: 503, bodyText: "scheduled maintenance" });
    expect(h.engine.admitProvider(provider())).toEqual({ allowed: false, reason: "provider_cooldown", retryAfterMs: 120_000 });
    expect(h.store.row("c1").rateLimitedUntil).toBeNull();
  });
});
