import { describe, expect, it } from "vitest";
import { bareModelOf, escalatedCooldownMs, familyOf, ModelLockouts, resolveLockScope } from "../../../main/engine/modelLockout.js";
import type { ResilienceSettings } from "../../../shared/resilienceSettings.js";
import { connection, fail, harness, provider, succeed, T0 } from "./fixtures.js";

const lockSettings = (over: Partial<ResilienceSettings["modelLockout"]> = {}): ResilienceSettings["modelLockout"] => ({
  enabled: true,
  errorCodes: [403, 404, 429, 502, 503, 504],
  baseCooldownMs: 500,
  maxCooldownMs: 1_500,
  maxBackoffSteps: 10,
  useExponentialBackoff: true,
  ...over,
});

const target = { provider: "p", connectionId: "c1", model: "m", family: null };

describe("escalation (R5.3, D5)", () => {
  it("D5 base 500, max 1 500: the 1st, 2nd, 3rd failure inside the window lock 500, 1 000, 1 500", () => {
    const locks = new ModelLockouts();
    const durations: number[] = [];
    let now = T0;
    for (let i = 0; i < 3; i++) {
      const entry = locks.lock({ target, reason: "rate_limit", escalationWindowMs: 30_000 }, lockSettings(), now);
      durations.push(entry.expiresAt - now);
      now = entry.expiresAt + 10;
    }
    expect(durations).toEqual([500, 1_000, 1_500]);
  });

  it("D5 a failure after the escalation window (last cooldown + reset timeout) starts again at base", () => {
    const locks = new ModelLockouts();
    locks.lock({ target, reason: "rate_limit", escalationWindowMs: 15_000 }, lockSettings(), T0);
    const again = locks.lock({ target, reason: "rate_limit", escalationWindowMs: 15_000 }, lockSettings(), T0 + 500 + 15_001);
    expect(again).toMatchObject({ failureCount: 1, expiresAt: T0 + 500 + 15_001 + 500 });
  });

  it("D5 without a provider reset timeout the window is 30 min", () => {
    const locks = new ModelLockouts();
    locks.lock({ target, reason: "x" }, lockSettings(), T0);
    expect(locks.lock({ target, reason: "x" }, lockSettings(), T0 + 500 + 1_800_000).failureCount).toBe(2);
  });

  it("R5.1 maxBackoffSteps bounds the exponent and useExponentialBackoff=false keeps the base", () => {
    const s = lockSettings({ baseCooldownMs: 1_000, maxCooldownMs: 1_000_000, maxBackoffSteps: 2 });
    expect([1, 2, 3, 4, 10].map((n) => escalatedCooldownMs(s, n))).toEqual([1_000, 2_000, 4_000, 4_000, 4_000]);
    expect(escalatedCooldownMs({ ...s, useExponentialBackoff: false }, 5)).toBe(1_000);
  });

  it("D5 a new lock never shortens a longer active one", () => {
    const locks = new ModelLockouts();
    locks.lock({ target, reason: "quota", fixedMs: 3_600_000 }, lockSettings(), T0);
    const shorter = locks.lock({ target, reason: "rate_limit", escalationWindowMs: 1_000 }, lockSettings(), T0 + 1_000);
    expect(shorter.expiresAt).toBe(T0 + 3_600_000);
  });

  it("R5.3 success-decay halves the failure count (floor(n/2)); at 0 the entry is deleted", () => {
    const locks = new ModelLockouts();
    for (let i = 0; i < 5; i++) locks.lock({ target, reason: "r", escalationWindowMs: 60_000 }, lockSettings(), T0 + i);
    expect(locks.list(T0 + 10)[0]?.failureCount).toBe(5);
    const counts: number[] = [];
    for (let i = 0; i < 3; i++) {
      locks.decay("p", "c1", "m", T0 + 10);
      counts.push(locks.list(T0 + 10)[0]?.failureCount ?? 0);
    }
    expect(counts).toEqual([2, 1, 0]);
    expect(locks.remainingMs("p", "c1", "m", T0 + 10)).toBe(0);
  });
});

describe("scope by status (R5.2)", () => {
  it.each([
    [429, "family"],
    [403, "family"],
    [402, "family"],
    [404, "model"],
    [503, "exact"],
    [502, "exact"],
    [500, "exact"],
    [null, "exact"],
  ] as const)("R5.2 status %s locks the %s", (status, scope) => {
    expect(resolveLockScope(status)).toBe(scope);
  });

  it("R5.2 an explicit caller scope always wins", () => {
    expect(resolveLockScope(429, "model")).toBe("model");
    expect(resolveLockScope(404, "exact")).toBe("exact");
  });

  it("R5.2 the bare model drops a variant suffix", () => {
    expect(["claude-x[1m]", "gpt-5:high", "m1 (thinking)", "m1@2025-01-01", "m1"].map(bareModelOf)).toEqual(["claude-x", "gpt-5", "m1", "m1", "m1"]);
  });

  it("R5.2 a 404 locks the bare model with every variant; a 503 only the exact provider/connection/model", () => {
    const p = provider();
    const h = harness({ settings: { modelLockout: { enabled: true } } });
    fail(h, { status: 404, bodyText: "no such model", model: "m1:high", provider: p });
    const pick = (g: typeof h, model: string) => g.engine.selectConnections(p, model, [g.store.row("c1")]);
    expect(pick(h, "m1").excluded[0]?.reason).toBe("model_lockout");
    expect(pick(h, "m1:low").excluded[0]?.reason).toBe("model_lockout");
    expect(pick(h, "m2").eligible).toHaveLength(1);

    const g = harness({ settings: { modelLockout: { enabled: true } } });
    fail(g, { status: 503, model: "m1:high", provider: p });
    expect(pick(g, "m1:high").excluded[0]?.reason).toBe("model_lockout");
    expect(pick(g, "m1").eligible).toHaveLength(1);
    expect(pick(g, "m1:low").eligible).toHaveLength(1);
  });

  it("R5.2 a 429 locks the whole quota family of the connection; a 503 only the exact model", () => {
    const families = { codex: ["gpt-5"] };
    const h = harness({ settings: { modelLockout: { enabled: true } } });
    const p = provider({ quotaFamilies: families });
    fail(h, { status: 429, bodyText: "slow", model: "gpt-5.1-codex", provider: p });
    const pick = (model: string) => h.engine.selectConnections(p, model, [h.store.row("c1")]);
    expect(pick("gpt-5-mini").excluded[0]).toMatchObject({ reason: "model_lockout", remainingMs: 120_000 });
    expect(pick("o3").eligible).toHaveLength(1);
    expect(familyOf("gpt-5.2", families)?.name).toBe("codex");

    const g = harness({ settings: { modelLockout: { enabled: true } } });
    fail(g, { status: 503, model: "gpt-5.1-codex", provider: p });
    expect(g.engine.selectConnections(p, "gpt-5.1-codex", [g.store.row("c1")]).excluded[0]?.reason).toBe("model_lockout");
    expect(g.engine.selectConnections(p, "gpt-5-mini", [g.store.row("c1")]).eligible).toHaveLength(1);
  });

  it("R5.1 model lockout replaces the connection cooldown only when enabled and the status is listed", () => {
    const off = harness();
    fail(off, { status: 503 });
    expect(off.engine.listModelCooldowns().items).toEqual([]);
    expect(off.store.row("c1").rateLimitedUntil).not.toBeNull();

    const on = harness({ settings: { modelLockout: { enabled: true, errorCodes: [404] } } });
    fail(on, { status: 503 });
    expect(on.engine.listModelCooldowns().items).toEqual([]);
    fail(on, { status: 404, model: "missing" });
    expect(on.engine.listModelCooldowns().items).toEqual([expect.objectContaining({ model: "missing", reason: "not_found" })]);
  });

  it("R5.1 a quota 429 lockout lasts at least the upstream wait", () => {
    const h = harness({ settings: { modelLockout: { enabled: true } } });
    fail(h, { status: 429, bodyText: "slow", headers: { "retry-after": "600" } });
    expect(h.engine.listModelCooldowns().items[0]?.remainingMs).toBe(600_000);
  });
});

describe("listing and re-enabling (R5.5, D5)", () => {
  it("D5 GET lists {provider, connectionId, model, reason, remainingMs, expiresAt, failureCount}, longest remaining first", () => {
    const h = harness({ connections: [connection(), connection({ id: "c2" })], settings: { modelLockout: { enabled: true } } });
    fail(h, { status: 404, model: "a" });
    fail(h, { status: 429, bodyText: "slow", headers: { "retry-after": "900" }, model: "b" }, { connectionId: "c2" });
    h.clock.advance(1_000);
    expect(h.engine.listModelCooldowns()).toEqual({
      items: [
        { provider: "p", connectionId: "c2", model: "b", reason: "rate_limit", remainingMs: 899_000, expiresAt: T0 + 900_000, failureCount: 1 },
        { provider: "p", connectionId: "c1", model: "a", reason: "not_found", remainingMs: 119_000, expiresAt: T0 + 120_000, failureCount: 1 },
      ],
    });
  });

  it("D5 DELETE {provider, model, connection?} -> {ok, removed}; {all:true} -> {ok, clearedAll:true}", () => {
    const h = harness({ connections: [connection(), connection({ id: "c2" })], settings: { modelLockout: { enabled: true } } });
    fail(h, { status: 404, model: "a" });
    fail(h, { status: 404, model: "a" }, { connectionId: "c2" });
    fail(h, { status: 404, model: "b" });
    expect(h.engine.clearModelCooldowns({ provider: "p", model: "a", connectionId: "c1" })).toEqual({ ok: true, removed: 1 });
    expect(h.engine.clearModelCooldowns({ provider: "p", model: "a" })).toEqual({ ok: true, removed: 1 });
    expect(h.engine.listModelCooldowns().items.map((i) => i.model)).toEqual(["b"]);
    expect(h.engine.clearModelCooldowns({ all: true })).toEqual({ ok: true, clearedAll: true });
    expect(h.engine.listModelCooldowns().items).toEqual([]);
    expect(h.events.filter((e) => e.type === "lockout.cleared")).toHaveLength(3);
  });

  it("R5.3 a success on the model decays its lockout through the facade", () => {
    const h = harness({ settings: { modelLockout: { enabled: true } } });
    fail(h, { status: 404, model: "a" });
    succeed(h, { model: "a" });
    expect(h.engine.listModelCooldowns().items).toEqual([]);
    expect(h.events.at(-1)).toMatchObject({ type: "lockout.cleared", model: "a" });
  });

  it("R5.4 lockouts live in memory only: a new engine starts with none", () => {
    const h = harness({ settings: { modelLockout: { enabled: true } } });
    fail(h, { status: 404, model: "a" });
    const restarted = harness({ breakers: h.breakers.loadAll() });
    expect(restarted.engine.listModelCooldowns().items).toEqual([]);
  });

  it("engine.lockModel locks the exact model for the given duration, up to 24 h", () => {
    const h = harness();
    h.engine.lockModel({ provider: provider(), connectionId: "c1", model: "gemini-x", durationMs: 86_399_000, reason: "rate_limit" });
    expect(h.engine.listModelCooldowns().items[0]).toMatchObject({ model: "gemini-x", remainingMs: 86_399_000 });
  });
});
