// The resilience engine facade: the gateway asks "whom next?" (admitProvider, selectConnections)
// and reports "what happened" (recordFailure/Success/Neutral); the API reads and resets state.
// Breakers persist through the BreakerStore; lockouts, streaks and window gates live in memory.
import type { ProviderBreakerRow } from "../../shared/apiTypes.js";
import type { AppSettings, Connection, ConnectionRuntime, Provider } from "../../shared/types.js";
import type { ResilienceSettings } from "../../shared/resilienceSettings.js";
import {
  admitBreaker,
  clearDegraded,
  closedBreaker,
  recordBreakerFailure,
  recordBreakerSuccess,
  refreshBreaker,
  releaseProbe,
  resolveBreakerProfile,
  retryAfterMs,
  sameSnapshot,
  type BreakerAdmission,
  type BreakerProfile,
} from "./breaker.js";
import { classifyUpstreamFailure } from "./classifier.js";
import { activeCooldownUntil, cooldownPatch, errorFields, isTerminal, successPatch, terminalPatch } from "./connectionCooldown.js";
import { connectionTryOrder, inPriorityOrder } from "./connectionOrder.js";
import { clearCooldownRows, listCooldownRows } from "./cooldownManager.js";
import { EgressSiblingCooldowns, locksEgressBucket, planSiblingCooldowns } from "./egressBucket.js";
import { planFailure, type FailurePlan } from "./failurePolicy.js";
import { blamesUpstream } from "./faults.js";
import { lockTargetFor, ModelLockouts, type LockoutEntry } from "./modelLockout.js";
import type {
  AttemptContext,
  BreakerSnapshot,
  BreakerStore,
  Clock,
  ConnectionExclusion,
  ConnectionRuntimeStore,
  EngineSharedChange,
  EventSink,
  ResilienceEngine,
  Verdict,
} from "./ports.js";
import { ProviderCooldowns } from "./providerCooldown.js";
import type { ResilienceAdmin } from "./admin.js";
import { RequestRejectedStreaks } from "./requestRejected.js";
import { applySharedChange } from "./sharedApply.js";
import { UsageWallBook } from "./usageWall.js";
import type { AnswerReader } from "./retryHints.js";

export interface ResilienceEngineDeps {
  clock: Clock;
  breakers: BreakerStore;
  connections: ConnectionRuntimeStore;
  getSettings: () => ResilienceSettings;
  getAppSettings: () => Pick<AppSettings, "providerErrorRules" | "providerErrorDefaults">;
  emit: EventSink;
  /** What an answer says in its vendor's own headers and body, read by the format halves (R4.3, R21.4). */
  answers: AnswerReader;
  /** R19: hears every change of the lockouts and the provider cooldown, to share it with a group. */
  share?: (change: EngineSharedChange) => void;
}

export type { ClearModelCooldownsRequest, ResilienceAdmin } from "./admin.js";

export type ResilienceAdminEngine = ResilienceEngine & ResilienceAdmin;

interface BreakerCell {
  snapshot: BreakerSnapshot;
  /** connectionId -> instant of its last counted failure (D2 5 000 ms dedupe). */
  recent: Map<string, number>;
  /** This instance admitted the HALF_OPEN probe now out: the group's word on the same opening waits for its outcome (R19.2). */
  ownProbe?: boolean;
}

export function createResilienceEngine(deps: ResilienceEngineDeps): ResilienceAdminEngine {
  const { clock, emit } = deps;
  const breakers = new Map<string, BreakerCell>();
  for (const snapshot of deps.breakers.loadAll()) breakers.set(snapshot.provider, { snapshot, recent: new Map() });
  const sharing = deps.share ? { share: deps.share, clock } : undefined;
  const lockouts = new ModelLockouts(sharing);
  const providerCooldowns = new ProviderCooldowns(sharing);
  const streaks = new RequestRejectedStreaks();
  const egressCooled = new EgressSiblingCooldowns();
  const usageWall = new UsageWallBook();

  function exclusionCheck(provider: Provider, model: string): (c: Connection) => ConnectionExclusion | null {
    const now = clock.now();
    const cooldownSettings = deps.getSettings().providerCooldown;
    return (c) => {
      if (!c.active) return { connectionId: c.id, reason: "inactive", remainingMs: null };
      if (isTerminal(c.testStatus)) return { connectionId: c.id, reason: "terminal", remainingMs: null };
      const until = activeCooldownUntil(c, now);
      const cooling = Math.max(
        until === null ? 0 : until - now,
        providerCooldowns.connectionRemainingMs(provider.id, c.id, cooldownSettings, now),
        egressCooled.remainingMs(c.id, now),
      );
      if (cooling > 0) return { connectionId: c.id, reason: "cooling_down", remainingMs: cooling };
      const locked = lockouts.remainingMs(provider.id, c.id, model, now);
      if (locked > 0) return { connectionId: c.id, reason: "model_lockout", remainingMs: locked };
      return null;
    };
  }

  const profileOf = (provider: Pick<Provider, "category">): BreakerProfile => resolveBreakerProfile(deps.getSettings().providerBreaker[provider.category]);

  /** Every breaker change goes through here: persisted when it changed, announced when its state did. */
  function updateBreaker(provider: Provider, change: (s: BreakerSnapshot, profile: BreakerProfile, cell: BreakerCell) => BreakerSnapshot): BreakerSnapshot {
    const now = clock.now();
    const cell = breakers.get(provider.id) ?? { snapshot: closedBreaker(provider.id, now), recent: new Map<string, number>() };
    const before = cell.snapshot;
    const after = change(before, profileOf(provider), cell);
    if (sameSnapshot(before, after)) return before;
    // A provider gets a breaker row only once something happened to it; reads alone create none.
    breakers.set(provider.id, cell);
    cell.snapshot = after;
    deps.breakers.save(after);
    if (before.state !== after.state) emit({ type: "breaker", provider: provider.id, from: before.state, to: after.state, at: now });
    return after;
  }

  const readBreaker = (provider: Provider): BreakerSnapshot => updateBreaker(provider, (s, p) => refreshBreaker(s, p, clock.now()));

  /** R19: another instance's breaker snapshot replaces this one's, announced when the state moved. */
  function applySharedBreaker(snapshot: BreakerSnapshot): void {
    const now = clock.now();
    const cell = breakers.get(snapshot.provider) ?? { snapshot: closedBreaker(snapshot.provider, now), recent: new Map<string, number>() };
    const before = cell.snapshot;
    const probing = cell.ownProbe && before.state === "HALF_OPEN" && before.probeStartedAt !== null;
    if (sameSnapshot(before, snapshot) || (probing && snapshot.state === "HALF_OPEN" && snapshot.openedAt === before.openedAt)) return;
    cell.ownProbe = false;
    breakers.set(snapshot.provider, cell);
    cell.snapshot = snapshot;
    deps.breakers.save(snapshot);
    if (before.state !== snapshot.state) emit({ type: "breaker", provider: snapshot.provider, from: before.state, to: snapshot.state, at: now });
  }

  const freshRuntime = (connection: Connection): ConnectionRuntime => deps.connections.get?.(connection.id) ?? connection;

  function writeRuntime(connection: Connection, patch: Partial<ConnectionRuntime>, cause?: "operator"): void {
    deps.connections.updateRuntime(connection.id, patch, cause);
  }

  function emitLockoutsCleared(entries: LockoutEntry[], now: number): void {
    for (const e of entries) emit({ type: "lockout.cleared", provider: e.provider, connectionId: e.connectionId, model: e.model, at: now });
  }

  function applyPlan(ctx: AttemptContext, verdict: Verdict, plan: FailurePlan, runtime: ConnectionRuntime, now: number): void {
    const { provider, connection } = ctx;
    const settings = deps.getSettings();
    const action = plan.connection;
    const auth = "authFailureCount" in action && action.authFailureCount !== undefined ? { authFailureCount: action.authFailureCount } : {};
    if (action.kind === "error_only") writeRuntime(connection, { ...errorFields(verdict, now), ...auth });
    if (action.kind === "cooldown") {
      const { patch, until } = cooldownPatch(runtime, action.choice, verdict, now);
      writeRuntime(connection, { ...patch, ...auth });
      if (until !== runtime.rateLimitedUntil) {
        emit({ type: "cooldown.set", connectionId: connection.id, provider: provider.id, until, reason: patch.lastErrorType ?? verdict.reason, at: now });
      }
    }
    if (action.kind === "terminal") {
      writeRuntime(connection, { ...terminalPatch(action.status, verdict, now), ...auth });
      emit({ type: "cooldown.set", connectionId: connection.id, provider: provider.id, until: null, reason: action.status, at: now });
    }
    if (plan.lockout && ctx.model) {
      const base = { provider: provider.id, connectionId: connection.id, model: ctx.model };
      const declared = lockTargetFor(plan.lockout.scope, base, provider.quotaFamilies);
      // R21.4: a per-model window locks the family it names when the provider declares none for the model.
      const target = declared.family === null && plan.lockout.family ? { ...base, family: plan.lockout.family, exact: false } : declared;
      const entry = lockouts.lock(
        {
          target,
          reason: plan.lockout.reason,
          escalationWindowMs: profileOf(provider).resetTimeoutMs,
          minimumMs: plan.lockout.minimumMs,
          fixedMs: plan.lockout.fixedMs,
        },
        settings.modelLockout,
        now,
      );
      emit({ type: "lockout.set", provider: provider.id, connectionId: connection.id, model: ctx.model, reason: entry.reason, expiresAt: entry.expiresAt, at: now });
    }
    if (plan.providerCooldownMs !== null) providerCooldowns.coolProvider(provider.id, now + plan.providerCooldownMs);
  }

  const engine: ResilienceAdminEngine = {
    usageWall,

    admitProvider(provider) {
      const now = clock.now();
      const cooling = providerCooldowns.providerRemainingMs(provider.id, deps.getSettings().providerCooldown, now);
      if (cooling > 0) return { allowed: false, reason: "provider_cooldown", retryAfterMs: cooling };
      const decided: { admission?: BreakerAdmission } = {};
      updateBreaker(provider, (s, p, cell) => {
        const result = admitBreaker(s, p, now);
        decided.admission = result.admission;
        if (result.admission.allowed && result.admission.probe) cell.ownProbe = true;
        return result.snapshot;
      });
      const admission = decided.admission!;
      return admission.allowed ? admission : { allowed: false, reason: "circuit_open", retryAfterMs: admission.retryAfterMs };
    },

    selectConnections(provider, model, connections) {
      const check = exclusionCheck(provider, model);
      const eligible: Connection[] = [];
      const excluded: ConnectionExclusion[] = [];
      for (const c of inPriorityOrder(connections)) {
        const exclusion = check(c);
        if (exclusion) excluded.push(exclusion);
        else eligible.push(c);
      }
      return { eligible, excluded };
    },

    connectionOrder: (connections, model, choice) => connectionTryOrder(connections, model, choice, clock.now()),

    exclusionCheck,

    classify(input) {
      return classifyUpstreamFailure(input, { settings: deps.getSettings(), appSettings: deps.getAppSettings(), now: clock.now(), answers: deps.answers });
    },

    recordFailure(ctx, verdict, fault) {
      if (fault !== undefined && !blamesUpstream(fault)) return engine.recordNeutral(ctx);
      const now = clock.now();
      const settings = deps.getSettings();
      const { provider, connection } = ctx;
      if (verdict.breakerEligible) {
        updateBreaker(provider, (s, p, cell) => recordBreakerFailure(s, p, now, { kind: verdict.reason, connectionId: connection.id, probe: ctx.probe }, cell.recent));
      } else if (ctx.probe) {
        // The probe reached the provider and got an account- or request-level answer: the provider is up.
        updateBreaker(provider, (s, p) => recordBreakerSuccess(s, p, now));
      }
      if (verdict.breakerEligible || verdict.reason === "rate_limit" || verdict.reason === "quota_exhausted") {
        providerCooldowns.recordFailure(provider, connection.id, settings.providerCooldown, now);
      }
      const runtime = freshRuntime(connection);
      const requestRejectedMs = verdict.reason === "request_rejected" ? streaks.record(connection.id, ctx.model || null, now) : undefined;
      const egressBucketed = locksEgressBucket(provider, verdict);
      const plan = planFailure({ verdict, runtime, connection, provider, model: ctx.model, settings, now, requestRejectedMs, egressBucketed });
      applyPlan(ctx, verdict, plan, runtime, now);
    },

    recordSuccess(ctx) {
      const now = clock.now();
      const { provider, connection } = ctx;
      updateBreaker(provider, (s, p) => recordBreakerSuccess(s, p, now));
      providerCooldowns.recordSuccess(provider.id, connection.id);
      egressCooled.delete(connection.id);
      const runtime = freshRuntime(connection);
      // R4.6: only new credentials or an operator end a terminal state, not a request that was in flight.
      const patch = isTerminal(runtime.testStatus) ? null : successPatch(runtime);
      if (patch) {
        writeRuntime(connection, patch);
        if (runtime.testStatus !== "active" || runtime.rateLimitedUntil !== null) {
          emit({ type: "cooldown.cleared", connectionId: connection.id, provider: provider.id, at: now });
        }
      }
      if (ctx.model) emitLockoutsCleared(lockouts.decay(provider.id, connection.id, ctx.model, now), now);
    },

    recordNeutral(ctx) {
      if (ctx.probe) updateBreaker(ctx.provider, (s, p) => releaseProbe(s, p, clock.now()));
    },

    monitoringHealth(providers) {
      const now = clock.now();
      const counts = { open: 0, halfOpen: 0, degraded: 0, closed: 0, total: 0 };
      const providerBreakers = providers.map((provider): ProviderBreakerRow => {
        const s = readBreaker(provider);
        counts.total++;
        if (s.state === "OPEN") counts.open++;
        else if (s.state === "HALF_OPEN") counts.halfOpen++;
        else if (s.state === "DEGRADED") counts.degraded++;
        else counts.closed++;
        return { provider: provider.id, state: s.state, failureCount: s.failureCount, retryAfterMs: retryAfterMs(s, profileOf(provider), now), lastFailureKind: s.lastFailureKind };
      });
      return { providerBreakers, circuitBreakers: counts, lockouts: lockouts.activeCount(now) };
    },

    resetBreakers(providerId) {
      const now = clock.now();
      let resetCount = 0;
      for (const [id, cell] of breakers) {
        if (providerId !== undefined && id !== providerId) continue;
        const before = cell.snapshot;
        cell.snapshot = closedBreaker(id, now);
        cell.recent.clear();
        deps.breakers.save(cell.snapshot);
        if (before.state !== "CLOSED") emit({ type: "breaker", provider: id, from: before.state, to: "CLOSED", at: now });
        resetCount++;
      }
      // D2: a reset also clears model lockouts (and the opt-in provider cooldown gate).
      emitLockoutsCleared(lockouts.clear(providerId === undefined ? {} : { provider: providerId }, now), now);
      providerCooldowns.reset(providerId);
      return { ok: true, resetCount };
    },

    listCooldowns(providers, connections, filter) {
      const now = clock.now();
      const settings = deps.getSettings();
      return listCooldownRows(
        providers,
        connections,
        {
          extraCoolingMs: (c) => providerCooldowns.connectionRemainingMs(c.provider, c.id, settings.providerCooldown, now),
          activeLockouts: (c) => lockouts.activeFor(c.provider, c.id, now),
          slowLaneUntil: (c) => usageWall.laneUntil(c.id, now),
        },
        now,
        filter,
      );
    },

    clearCooldowns(body, connections) {
      const now = clock.now();
      const settings = deps.getSettings();
      return clearCooldownRows(
        body,
        connections,
        {
          freshRuntime,
          clearTimers(c) {
            const cleared = lockouts.clear({ provider: c.provider, connectionId: c.id }, now);
            emitLockoutsCleared(cleared, now);
            streaks.clearConnection(c.id);
            egressCooled.delete(c.id);
            const extra = providerCooldowns.connectionRemainingMs(c.provider, c.id, settings.providerCooldown, now) > 0;
            providerCooldowns.clearConnection(c.provider, c.id);
            return { lockouts: cleared, otherTimers: extra };
          },
          writeRuntime(c, patch, wasCooling) {
            writeRuntime(c, patch, "operator");
            if (wasCooling) emit({ type: "cooldown.cleared", connectionId: c.id, provider: c.provider, at: now });
          },
        },
        now,
      );
    },

    listModelCooldowns() {
      return { items: lockouts.list(clock.now()) };
    },

    clearModelCooldowns(body) {
      const now = clock.now();
      if ("all" in body) {
        emitLockoutsCleared(lockouts.clear({}, now), now);
        return { ok: true, clearedAll: true };
      }
      const cleared = lockouts.clear({ provider: body.provider, connectionId: body.connectionId ?? null, model: body.model }, now);
      emitLockoutsCleared(cleared, now);
      return { ok: true, removed: cleared.length };
    },

    connectionTestPassed(provider) {
      updateBreaker(provider, (s, p) => clearDegraded(s, p, clock.now()));
    },

    lockModel({ provider, connectionId, model, durationMs, reason }) {
      const now = clock.now();
      const settings = deps.getSettings();
      const entry = lockouts.lock(
        { target: { provider: provider.id, connectionId, model, family: null, exact: true }, reason, fixedMs: durationMs, escalationWindowMs: profileOf(provider).resetTimeoutMs },
        settings.modelLockout,
        now,
      );
      emit({ type: "lockout.set", provider: provider.id, connectionId, model, reason, expiresAt: entry.expiresAt, at: now });
    },

    breakerSnapshot(provider) {
      return readBreaker(provider);
    },

    coolEgressSiblings(ctx, verdict, siblings) {
      const now = clock.now();
      const until = activeCooldownUntil(freshRuntime(ctx.connection), now);
      if (until === null || !locksEgressBucket(ctx.provider, verdict)) return [];
      const others = siblings.filter((c) => c.id !== ctx.connection.id).map((c) => ({ connection: c, runtime: freshRuntime(c) }));
      const planned = planSiblingCooldowns(others, verdict, until, now);
      for (const { connectionId, provider, patch } of planned) {
        deps.connections.updateRuntime(connectionId, patch);
        egressCooled.set(connectionId, until);
        emit({ type: "cooldown.set", connectionId, provider, until, reason: "egress_bucket", at: now });
      }
      return planned.map((p) => p.connectionId);
    },

    applyShared(change) {
      if (change.kind === "breaker") applySharedBreaker(change.snapshot);
      else applySharedChange(change, { lockouts, providerCooldowns, emit }, clock.now());
    },
  };
  return engine;
}

export type { ClearCooldownsRequest } from "./cooldownManager.js";
export { classifyUpstreamFailure } from "./classifier.js";
