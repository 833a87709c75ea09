// Which mechanism handles a classified failure (guide: "one key fails -> connection cooldown; only
// one model fails -> model lockout"): a terminal state, a connection cooldown, a model lockout, a
// provider cooldown, or only the error recorded. Pure: the facade carries the plan out.
import type { Connection, ConnectionRuntime, Provider } from "../../shared/types.js";
import { EXPIRED_RETRY_MAX, LOCKOUT_HINT_CAP_MS, type ResilienceSettings } from "../../shared/resilienceSettings.js";
import { activeCooldownUntil, chooseCooldown, isTerminal, type CooldownChoice } from "./connectionCooldown.js";
import { resolveLockScope, type LockScope } from "./modelLockout.js";
import type { Verdict } from "./ports.js";
import { windowFamilyOf } from "./subscriptionWindows.js";

export type ConnectionAction =
  | { kind: "none" }
  | { kind: "error_only"; authFailureCount?: number }
  | { kind: "cooldown"; choice: CooldownChoice; authFailureCount?: number }
  | { kind: "terminal"; status: "banned" | "expired" | "credits_exhausted"; authFailureCount?: number };

export interface LockAction {
  scope: LockScope;
  reason: string;
  /** R21.4: the family a per-model window names, used when the provider declares none for the model. */
  family?: { name: string; prefixes: string[] } | null;
  minimumMs?: number;
  fixedMs?: number;
}

export interface FailurePlan {
  connection: ConnectionAction;
  lockout: LockAction | null;
  /** R12.4 scope "provider": cool the whole provider this long. */
  providerCooldownMs: number | null;
}

export interface FailurePlanInput {
  verdict: Verdict;
  /** The stored runtime fields (fresh when the store can read them). */
  runtime: ConnectionRuntime;
  connection: Pick<Connection, "providerSpecificData" | "disableCooling">;
  provider: Pick<Provider, "category" | "rateLimitCooldownSeconds">;
  model: string;
  settings: ResilienceSettings;
  now: number;
  /** The request_rejected streak's duration for this connection+model (R4.7), when the reason is that. */
  requestRejectedMs?: number;
  /** R12.5: an egress-bucketed 429 cools the connection (the IP is spent), never a per-model lockout. */
  egressBucketed?: boolean;
}

const NOTHING: FailurePlan = { connection: { kind: "none" }, lockout: null, providerCooldownMs: null };

function lockoutEnabledFor(settings: ResilienceSettings["modelLockout"], status: number): boolean {
  return settings.enabled && settings.errorCodes.includes(status);
}

function upstreamWait(verdict: Verdict): number | undefined {
  const wait = verdict.cooldownMs ?? verdict.retryHintMs;
  return wait === null ? undefined : Math.min(wait, LOCKOUT_HINT_CAP_MS);
}

export function planFailure(input: FailurePlanInput): FailurePlan {
  const plan = decide(input);
  if (!input.connection.disableCooling || plan.connection.kind !== "cooldown") return plan;
  // R12.3: a connection that opted out of cooling keeps serving; a quota-like failure takes only the model out.
  const { verdict } = input;
  const quotaLike = verdict.reason === "rate_limit" || verdict.reason === "quota_exhausted";
  const lockout =
    plan.lockout ?? (quotaLike ? { scope: resolveLockScope(verdict.status), reason: verdict.rule?.lockoutReason ?? verdict.reason, minimumMs: upstreamWait(verdict) } : null);
  return { ...plan, connection: { kind: "error_only", authFailureCount: plan.connection.authFailureCount }, lockout };
}

/**
 * R21.4(b): a used-up window rests the account until the window's reset (the classifier's cooldown,
 * already capped by the window's length only), whatever the lockout settings; a model family's own
 * window (`7d_opus`) takes only that family out, for the same time.
 */
function planWindowRest(verdict: Verdict, ms: number, model: string): FailurePlan {
  if (verdict.scope === "model" && model) {
    const family = verdict.window ? windowFamilyOf(verdict.window.name, model) : null;
    return { connection: { kind: "error_only" }, lockout: { scope: "family", reason: verdict.errorCode ?? verdict.reason, fixedMs: ms, family }, providerCooldownMs: null };
  }
  return { connection: { kind: "cooldown", choice: { ms, source: "window", level: "reset" } }, lockout: null, providerCooldownMs: null };
}

function decide(input: FailurePlanInput): FailurePlan {
  const { verdict, runtime, settings } = input;
  if (isTerminal(runtime.testStatus)) return NOTHING; // R4.6: nothing transient replaces a terminal state
  const cooldown = (): CooldownChoice =>
    chooseCooldown({ verdict, connection: input.connection, provider: input.provider, settings: settings.connectionCooldown, backoffLevel: runtime.backoffLevel });
  const only = (connection: ConnectionAction, lockout: LockAction | null = null): FailurePlan => ({ connection, lockout, providerCooldownMs: null });
  const lockReason = verdict.rule?.lockoutReason ?? verdict.reason;

  switch (verdict.reason) {
    case "bad_request":
    case "context_overflow":
    case "tool_limit":
    case "model_not_found":
      return NOTHING; // D4: the request is at fault, not the connection
    case "not_found":
      return lockoutEnabledFor(settings.modelLockout, verdict.status) ? only({ kind: "error_only" }, { scope: "model", reason: lockReason }) : NOTHING;
    case "stream_stall":
      return only(settings.streamStallCooldown.enabled ? { kind: "cooldown", choice: cooldown() } : { kind: "error_only" }); // R4.8
    case "banned":
    case "credits_exhausted":
      return only({ kind: "terminal", status: verdict.reason });
    case "request_rejected": {
      const ms = input.requestRejectedMs ?? cooldown().ms;
      if (input.model) return only({ kind: "error_only" }, { scope: "model", reason: "request_rejected", fixedMs: ms });
      return only({ kind: "cooldown", choice: { ms, source: "fixed", level: "keep" } });
    }
    case "concurrency_limited":
      return only({ kind: "cooldown", choice: cooldown() });
    default:
      break;
  }

  if (verdict.reason === "auth_error" && verdict.status === 401 && verdict.rule?.scope !== "model") {
    // R4.6: expired only on the 3rd consecutive 401; a 401 during the cooldown of the previous one is the same incident.
    if (activeCooldownUntil(runtime, input.now) !== null) return only({ kind: "cooldown", choice: cooldown() });
    const authFailureCount = runtime.authFailureCount + 1;
    if (authFailureCount >= EXPIRED_RETRY_MAX) return only({ kind: "terminal", status: "expired", authFailureCount });
    return only({ kind: "cooldown", choice: cooldown(), authFailureCount });
  }

  if (verdict.window && verdict.cooldownMs !== null) return planWindowRest(verdict, verdict.cooldownMs, input.model);

  const ruleScope = verdict.rule?.scope ?? null;
  if (ruleScope === "provider") {
    return { connection: { kind: "error_only" }, lockout: null, providerCooldownMs: verdict.cooldownMs ?? cooldown().ms };
  }
  if (ruleScope === "model") {
    const fixedMs = verdict.cooldownMs ?? undefined;
    return only({ kind: "error_only" }, { scope: "model", reason: lockReason, fixedMs });
  }
  const wantsLockout = ruleScope !== "connection" && !input.egressBucketed && lockoutEnabledFor(settings.modelLockout, verdict.status);
  if (wantsLockout) {
    const scope = resolveLockScope(verdict.status, verdict.scope === "model" ? "model" : undefined);
    return only({ kind: "error_only" }, { scope, reason: lockReason, minimumMs: upstreamWait(verdict) });
  }
  return only({ kind: "cooldown", choice: cooldown() });
}
