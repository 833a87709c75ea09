import { describe, expect, it } from "vitest";
import { closedBreaker } from "../../../main/engine/breaker.js";
import { connection, fail, failureInput, harness, provider, succeed, T0, type Harness } from "./fixtures.js";

const local = provider({ id: "ollama", category: "local" });

/** Trips the provider's breaker with failures from distinct connections (no 5 s dedupe). */
function trip(h: Harness, p = local, n = 2): void {
  for (let i = 0; i < n; i++) fail(h, { status: 503, provider: p }, { provider: p, connectionId: `c${i + 1}` });
}

const twoConnections = () => [connection({ id: "c1", provider: "ollama" }), connection({ id: "c2", provider: "ollama" })];

describe("provider admission through the facade (R2)", () => {
  it("R2.1 OPEN admits nothing and says how long; combo routing can skip it", () => {
    const h = harness({ connections: twoConnections() });
    trip(h);
    expect(h.engine.admitProvider(local)).toEqual({ allowed: false, reason: "circuit_open", retryAfterMs: 15_000 });
  });

  it("R2.4/D2 after the reset timeout exactly one probe is admitted; its success closes the breaker", () => {
    const h = harness({ connections: twoConnections() });
    trip(h);
    h.clock.advance(15_000);
    expect(h.engine.admitProvider(local)).toEqual({ allowed: true, probe: true });
    expect(h.engine.admitProvider(local)).toMatchObject({ allowed: false, reason: "circuit_open" });
    succeed(h, { provider: local, probe: true });
    expect(h.engine.admitProvider(local)).toEqual({ allowed: true, probe: false });
  });

  it("D2 a failed probe reopens the breaker", () => {
    const h = harness({ connections: twoConnections() });
    trip(h);
    h.clock.advance(15_000);
    h.engine.admitProvider(local);
    fail(h, { status: 502, provider: local }, { provider: local, probe: true });
    expect(h.engine.breakerSnapshot(local)).toMatchObject({ state: "OPEN", openCycles: 2 });
  });

  it("R2.3 a probe answered with an account-level error (429) proves the provider is up", () => {
    const h = harness({ connections: twoConnections() });
    trip(h);
    h.clock.advance(15_000);
    h.engine.admitProvider(local);
    fail(h, { status: 429, bodyText: "slow", provider: local }, { provider: local, probe: true });
    expect(h.engine.breakerSnapshot(local).state).toBe("CLOSED");
  });

  it("R25.4 a probe met by a client's, context's or gateway's fault frees the slot: the breaker neither closes nor reopens", () => {
    for (const fault of ["client", "context", "gateway"] as const) {
      const h = harness({ connections: twoConnections() });
      trip(h);
      h.clock.advance(15_000);
      h.engine.admitProvider(local);
      const before = h.engine.breakerSnapshot(local);
      const verdict = h.engine.classify(failureInput({ status: 400, bodyText: "bad", provider: local }));
      h.engine.recordFailure({ provider: local, connection: h.store.row("c1"), model: "m", probe: true }, verdict, fault);
      expect(h.engine.breakerSnapshot(local)).toMatchObject({ state: before.state, openCycles: before.openCycles, failureCount: before.failureCount });
      expect(h.engine.admitProvider(local)).toEqual({ allowed: true, probe: true });
    }
  });

  it("R25.4 a 5xx that was the gateway's own fault cools nothing and counts nothing; the same 5xx blamed on the provider does", () => {
    const h = harness({ connections: twoConnections() });
    const verdict = h.engine.classify(failureInput({ status: 503, provider: local }));
    h.engine.recordFailure({ provider: local, connection: h.store.row("c1"), model: "m", probe: false }, verdict, "gateway");
    expect(h.engine.breakerSnapshot(local).failureCount).toBe(0);
    expect(h.store.row("c1").rateLimitedUntil).toBeNull();
    h.engine.recordFailure({ provider: local, connection: h.store.row("c1"), model: "m", probe: false }, verdict, "provider");
    expect(h.engine.breakerSnapshot(local).failureCount).toBe(1);
  });

  it("D2 a neutral end of the probe (client abort) frees the slot without counting", () => {
    const h = harness({ connections: twoConnections() });
    trip(h);
    h.clock.advance(15_000);
    h.engine.admitProvider(local);
    h.engine.recordNeutral({ provider: local, connection: h.store.row("c1"), model: "m", probe: true });
    expect(h.engine.admitProvider(local)).toEqual({ allowed: true, probe: true });
  });

  it("R2.3 401/403/429 never count towards the breaker", () => {
    const h = harness({ connections: twoConnections() });
    for (const status of [401, 403, 429, 429, 403]) fail(h, { status, provider: local }, { provider: local, connectionId: "c1" });
    expect(h.engine.breakerSnapshot(local)).toMatchObject({ state: "CLOSED", failureCount: 0 });
  });

  it("R2.4 a passing connection test clears DEGRADED", () => {
    const h = harness({ connections: [connection()] });
    const oauth = provider({ category: "oauth" });
    for (let i = 0; i < 6; i++) {
      fail(h, { status: 500, provider: oauth }, { provider: oauth });
      h.clock.advance(5_000);
    }
    expect(h.engine.breakerSnapshot(oauth).state).toBe("DEGRADED");
    h.engine.connectionTestPassed(oauth);
    expect(h.engine.breakerSnapshot(oauth)).toMatchObject({ state: "CLOSED", failureCount: 0 });
  });

  it("R2.5 breaker state is saved on every change and restored by a new engine", () => {
    const h = harness({ connections: twoConnections() });
    trip(h);
    expect(h.breakers.saved.get("ollama")).toMatchObject({ state: "OPEN", openUntil: T0 + 15_000 });
    const restarted = harness({ breakers: h.breakers.loadAll() });
    expect(restarted.engine.admitProvider(local)).toMatchObject({ allowed: false, reason: "circuit_open", retryAfterMs: 15_000 });
    restarted.clock.advance(15_000);
    expect(restarted.engine.breakerSnapshot(local).state).toBe("HALF_OPEN");
    expect(restarted.breakers.saved.get("ollama")?.state).toBe("HALF_OPEN");
  });

  it("R15.2 every breaker transition is emitted once as a breaker event", () => {
    const h = harness({ connections: twoConnections() });
    trip(h);
    h.clock.advance(15_000);
    h.engine.admitProvider(local);
    succeed(h, { provider: local, probe: true });
    expect(h.events.filter((e) => e.type === "breaker").map((e) => e.type === "breaker" && `${e.from}>${e.to}`)).toEqual([
      "CLOSED>DEGRADED",
      "DEGRADED>OPEN",
      "OPEN>HALF_OPEN",
      "HALF_OPEN>CLOSED",
    ]);
  });
});

describe("monitoring and reset (R2.6, D2)", () => {
  it("R2.6 monitoringHealth lists every provider's breaker and the totals", () => {
    const h = harness({ connections: twoConnections() });
    trip(h);
    h.clock.advance(1_000);
    const health = h.engine.monitoringHealth([local, provider()]);
    expect(health).toEqual({
      providerBreakers: [
        { provider: "ollama", state: "OPEN", failureCount: 2, retryAfterMs: 14_000, lastFailureKind: "server_error" },
        { provider: "p", state: "CLOSED", failureCount: 0, retryAfterMs: 0, lastFailureKind: null },
      ],
      circuitBreakers: { open: 1, halfOpen: 0, degraded: 0, closed: 1, total: 2 },
      lockouts: 0,
    });
  });

  it("D2 POST /api/resilience/reset resets every breaker (or one) and clears model lockouts -> {ok, resetCount}", () => {
    const other = provider({ id: "other", category: "local" });
    const h = harness({ connections: [...twoConnections(), connection({ id: "c3", provider: "other" })], settings: { modelLockout: { enabled: true, errorCodes: [404] } } });
    trip(h);
    trip(h, other, 1);
    fail(h, { status: 404, provider: other, model: "x" }, { provider: other, connectionId: "c3" });
    expect(h.engine.resetBreakers("ollama")).toEqual({ ok: true, resetCount: 1 });
    expect(h.engine.breakerSnapshot(local).state).toBe("CLOSED");
    expect(h.engine.monitoringHealth([other]).lockouts).toBe(1);
    expect(h.engine.resetBreakers()).toEqual({ ok: true, resetCount: 2 });
    expect(h.engine.monitoringHealth([local, other])).toMatchObject({ circuitBreakers: { open: 0, closed: 2 }, lockouts: 0 });
    expect(h.breakers.saved.get("ollama")?.state).toBe("CLOSED");
  });

  it("D2 a reset of an unknown or merely read provider resets nothing", () => {
    const h = harness();
    h.engine.monitoringHealth([provider()]);
    h.engine.admitProvider(provider());
    expect(h.engine.resetBreakers("nope")).toEqual({ ok: true, resetCount: 0 });
    expect(h.engine.resetBreakers()).toEqual({ ok: true, resetCount: 0 });
  });
});

describe("connection selection (R11.2, R4.9)", () => {
  it("R11.2 input already in priority order (as the store lists it) keeps its order, ties included", () => {
    const listed = [connection({ id: "z", priority: 0 }), connection({ id: "y", priority: 0 }), connection({ id: "x", priority: 3 }), connection({ id: "w", priority: 3 })];
    const h = harness({ connections: listed });
    expect(h.engine.selectConnections(provider(), "m", listed).eligible.map((c) => c.id)).toEqual(["z", "y", "x", "w"]);
    const shuffled = [listed[2], listed[0], listed[3], listed[1]];
    expect(h.engine.selectConnections(provider(), "m", shuffled).eligible.map((c) => c.id)).toEqual(["z", "y", "x", "w"]);
  });

  it("R11.2 eligible in priority order (input order otherwise); exclusions carry their reason and remaining time", () => {
    const h = harness({
      connections: [
        connection({ id: "b", priority: 1 }),
        connection({ id: "a", priority: 1 }),
        connection({ id: "first", priority: 0 }),
        connection({ id: "off", active: false }),
        connection({ id: "gone", testStatus: "expired" }),
        connection({ id: "cool", testStatus: "unavailable", rateLimitedUntil: T0 + 4_000 }),
        connection({ id: "lapsed", testStatus: "unavailable", rateLimitedUntil: T0 - 1, priority: 2 }),
        connection({ id: "lock" }),
      ],
    });
    h.engine.lockModel({ provider: provider(), connectionId: "lock", model: "m", durationMs: 9_000, reason: "rate_limit" });
    const { eligible, excluded } = h.engine.selectConnections(provider(), "m", h.store.list());
    expect(eligible.map((c) => c.id)).toEqual(["first", "b", "a", "lapsed"]);
    expect(excluded).toEqual([
      { connectionId: "off", reason: "inactive", remainingMs: null },
      { connectionId: "gone", reason: "terminal", remainingMs: null },
      { connectionId: "cool", reason: "cooling_down", remainingMs: 4_000 },
      { connectionId: "lock", reason: "model_lockout", remainingMs: 9_000 },
    ]);
  });

  it("R15.2 cooldown set and lockout set are emitted", () => {
    const h = harness({ settings: { modelLockout: { enabled: true, errorCodes: [404] } } });
    fail(h, { status: 503 });
    fail(h, { status: 404, model: "x" });
    expect(h.events).toContainEqual({ type: "cooldown.set", connectionId: "c1", provider: "p", until: T0 + 3_000, reason: "server_error", at: T0 });
    expect(h.events).toContainEqual({ type: "lockout.set", provider: "p", connectionId: "c1", model: "x", reason: "not_found", expiresAt: T0 + 120_000, at: T0 });
  });
});

describe("opt-in provider cooldown window gate (R3)", () => {
  const apikey = provider();

  it("R3.1 off by default: failures never cool the provider", () => {
    const h = harness();
    for (let i = 0; i < 20; i++) fail(h, { status: 429, bodyText: "slow" });
    expect(h.engine.admitProvider(apikey)).toEqual({ allowed: true, probe: false });
  });

  it("R3.1 apikey: 15 failures in 30 min cool the provider for 10 min; below threshold it is not cooling", () => {
    const h = harness({ settings: { providerCooldown: { enabled: true } } });
    for (let i = 0; i < 14; i++) {
      fail(h, { status: 429, bodyText: "slow" });
      h.clock.advance(60_000);
    }
    expect(h.engine.admitProvider(apikey).allowed).toBe(true);
    fail(h, { status: 429, bodyText: "slow" });
    expect(h.engine.admitProvider(apikey)).toEqual({ allowed: false, reason: "provider_cooldown", retryAfterMs: 600_000 });
  });

  it("R3.1 failures outside the window do not count, and a success clears the window", () => {
    const h = harness({ settings: { providerCooldown: { enabled: true } } });
    const p = provider({ id: "ollama", category: "local" });
    fail(h, { status: 429, bodyText: "slow", provider: p }, { provider: p });
    h.clock.advance(300_000);
    fail(h, { status: 429, bodyText: "slow", provider: p }, { provider: p });
    expect(h.engine.admitProvider(p).allowed).toBe(true);
    succeed(h, { provider: p });
    fail(h, { status: 429, bodyText: "slow", provider: p }, { provider: p });
    expect(h.engine.admitProvider(p).allowed).toBe(true);
    fail(h, { status: 429, bodyText: "slow", provider: p }, { provider: p });
    expect(h.engine.admitProvider(p)).toEqual({ allowed: false, reason: "provider_cooldown", retryAfterMs: 60_000 });
  });

  it("R3.2 connection-level entries back off from minRetryCooldownMs to maxRetryCooldownMs", () => {
    const h = harness({
      settings: { providerCooldown: { enabled: true, minRetryCooldownMs: 1_000, maxRetryCooldownMs: 3_000 } },
      connections: [connection({ disableCooling: true })],
    });
    const remaining: number[] = [];
    for (let i = 0; i < 3; i++) {
      fail(h, { status: 503 });
      const ex = h.engine.selectConnections(provider(), "m", [h.store.row("c1")]).excluded[0];
      remaining.push(ex?.remainingMs ?? 0);
      h.clock.advance(remaining.at(-1)!);
    }
    expect(remaining).toEqual([1_000, 2_000, 3_000]);
  });
});

describe("breaker snapshot shape", () => {
  it("R2.5 a never-failed provider reads as a fresh CLOSED snapshot and is not persisted", () => {
    const h = harness();
    expect(h.engine.breakerSnapshot(provider())).toEqual(closedBreaker("p", T0));
    expect(h.breakers.saves).toBe(0);
  });
});
