// The engine's boundary: the ports it needs (implemented by main/store) and the facade the
// gateway and the API call. The engine performs no I/O itself; it is handed a Clock and ports.
import type { AttemptFault, Connection, ConnectionRuntime, Provider, SwitchyardEvent } from "../../shared/types.js";
import type { ConnectionChoice } from "./connectionOrder.js";
import type { LockoutEntry } from "./modelLockout.js";
import type { UpstreamFailure } from "./failure.js";

export interface Clock {
  now(): number;
}

/** What every breaker state carries (table domain_circuit_breakers, R2.5). */
interface BreakerCommon {
  provider: string;
  failureCount: number;
  successCount: number;
  openCycles: number;
  /**
   * R2.4: open cycles per failure kind ("timeout=2;server_error=1"), so that timeouts, 5xx and
   * transport errors each escalate on their own; absent or "" = none yet.
   */
  cyclesByKind?: string;
  lastFailureAt: number | null;
  lastFailureKind: string | null;
  updatedAt: number;
}

/**
 * Persisted breaker snapshot, one variant per state (as cockatiel's CircuitState and
 * Resilience4j's state classes): only OPEN and HALF_OPEN have an opening (HALF_OPEN keeps the one
 * it follows, which names its probe in a group, R19.2), only HALF_OPEN a probe. The fields a state
 * does not have are null, so a reader never meets a stale instant of an earlier state.
 */
export type BreakerSnapshot =
  | (BreakerCommon & { state: "CLOSED" | "DEGRADED"; openedAt: null; openUntil: null; probeStartedAt: null })
  | (BreakerCommon & { state: "OPEN"; openedAt: number; openUntil: number; probeStartedAt: null })
  | (BreakerCommon & { state: "HALF_OPEN"; openedAt: number; openUntil: number; probeStartedAt: number | null });

export interface BreakerStore {
  loadAll(): BreakerSnapshot[];
  save(snapshot: BreakerSnapshot): void;
  delete(provider: string): void;
}

/**
 * Why the engine writes a connection's runtime, for whoever shares it (R19.2): "operator" = an
 * operator's reset (clearCooldowns), which overrides what other instances hold; absent = traffic.
 */
export type RuntimeWriteCause = "operator";

export interface ConnectionRuntimeStore {
  /** Writes only the runtime fields given; returns nothing. */
  updateRuntime(connectionId: string, patch: Partial<ConnectionRuntime>, cause?: RuntimeWriteCause): void;
  /**
   * Optional fresh read. When present, the engine decides a failure on the stored runtime fields
   * rather than on the row the caller selected earlier, so that concurrent failures raise the
   * backoff once and never overwrite a terminal state set meanwhile (R4.4, R4.6).
   */
  get?(connectionId: string): ConnectionRuntime | null;
}

export type EventSink = (event: SwitchyardEvent) => void;

/**
 * R19: a change of the engine's in-memory state for the other instances of a group. The engine
 * only hands it over (no I/O); the composition root turns connection ids into group-stable keys.
 * `value` null = cleared; `force` = an operator's reset; `until` = when the state ends by itself.
 */
export interface EngineSharedEntry<T> {
  value: T | null;
  at: number;
  until: number | null;
  force?: boolean;
}

/** A model lockout as the group shares it: the LockoutEntry without this instance's connection id. */
export type SharedLockout = Omit<LockoutEntry, "connectionId">;

/** The opt-in provider cooldown (R3): the provider's gate ("window" or "rule"), or one connection's backoff. */
export type ProviderCooldownPart = { gate: "window" | "rule"; connectionId?: undefined } | { gate?: undefined; connectionId: string };

export type EngineSharedChange =
  | { kind: "lockout"; provider: string; connectionId: string; scope: string; entry: EngineSharedEntry<SharedLockout> }
  | { kind: "providerCooldown"; provider: string; part: ProviderCooldownPart; entry: EngineSharedEntry<{ until: number; failures?: number }> }
  | { kind: "breaker"; snapshot: BreakerSnapshot };

/** What the gateway learned from one failed upstream attempt, before classification. */
export interface FailureInput {
  provider: Provider;
  model: string;
  failure: UpstreamFailure;
}

/** Every reason a verdict can give (R12.1). */
export const VERDICT_REASONS = [
  "rate_limit",
  "concurrency_limited",
  "quota_exhausted",
  "credits_exhausted",
  "auth_error",
  "banned",
  "request_rejected",
  "not_found",
  "model_not_found",
  "context_overflow",
  "tool_limit",
  "bad_request",
  "server_error",
  "transport",
  "timeout",
  "stream_stall",
  "stream_early_eof",
  "stream_throughput",
] as const;

export type VerdictReason = (typeof VERDICT_REASONS)[number];

/** A provider error rule that decided (part of) a verdict (R12.2–R12.4). */
export interface RuleMatch {
  id: string;
  source: "builtin" | "operator" | "default";
  /** The rule's reason when it names a verdict reason; the verdict's own reason otherwise. */
  reason: VerdictReason | null;
  /** The operator's reason text, kept as the connection's lastErrorType when it is not a verdict reason. */
  label: string | null;
  /** Acted on only when honoured (R12.3); null = informational. */
  scope: "model" | "connection" | "provider" | null;
  /** Exact cooldown of the rule; null = the engine's usual computation. */
  cooldownMs: number | null;
  /** Reason recorded on a model lockout this rule causes. */
  lockoutReason: string | null;
}

/** R12.1: one verdict per failed attempt. */
export interface Verdict {
  reason: VerdictReason;
  scope: "model" | "connection" | "provider" | "request";
  /** Status the client should see if this is the final verdict. */
  status: number;
  /** Upstream retry hint in ms, if one was parsed. */
  retryHintMs: number | null;
  /** Counts towards the provider circuit breaker (R2.3). */
  breakerEligible: boolean;
  /** Try the next connection / target (false = return to the client at once). */
  failover: boolean;
  /** Terminal connection state this verdict may lead to. */
  terminal: "banned" | "expired" | "credits_exhausted" | null;
  /** Fixed cooldown decided by the classifier (e.g. concurrency 1 000 ms), else null. */
  cooldownMs: number | null;
  message: string;
  /** The upstream's error code or type when its body carried one. */
  errorCode?: string | null;
  /** Where retryHintMs came from: an HTTP header, the body's words, or the name a format half gives its vendor's hint. */
  retryHintSource?: string | null;
  /** The vendor said retryHintMs is the model's own quota's wait (a typed per-model delay, R9.4). */
  retryHintPerModel?: boolean;
  /** What the client should be told to wait when this is the final verdict (R12.2: restated 429 → 60 s). */
  clientRetryAfterMs?: number | null;
  /** The provider rule that matched, if any. */
  rule?: RuleMatch | null;
  /** R25.2: the prompt's tokens and the window a `context_overflow` refusal stated (each null when unstated). */
  context?: { tokens: number | null; window: number | null } | null;
  /** R11.7: the tool limit a `tool_limit` error stated, if it named one. */
  statedToolLimit?: number | null;
  /**
   * R21.4: a subscription window was used up (verdict code `window_exhausted`): its name ("5h",
   * "7d", "7d_opus"…), when it resets (epoch ms, null when unstated) and its length (ms, null when
   * unknown). The account cools until `resetAt`, capped by `windowMs`, not by maxCooldownMs.
   */
  window?: { name: string; resetAt: number | null; windowMs: number | null } | null;
}

export interface AttemptContext {
  provider: Provider;
  connection: Connection;
  model: string;
  /** true when this attempt was admitted as the HALF_OPEN probe. */
  probe: boolean;
}

export type ProviderAdmission = { allowed: true; probe: boolean } | { allowed: false; reason: "circuit_open" | "provider_cooldown"; retryAfterMs: number };

export type ExclusionReason = "inactive" | "terminal" | "cooling_down" | "model_lockout" | "no_secret";

export interface ConnectionExclusion {
  connectionId: string;
  reason: ExclusionReason;
  remainingMs: number | null;
}

/** The facade the gateway uses on every attempt (DESIGN.md: select / record). */
export interface ResilienceEngine {
  admitProvider(provider: Provider): ProviderAdmission;
  selectConnections(
    provider: Provider,
    model: string,
    connections: Connection[],
  ): {
    eligible: Connection[];
    excluded: ConnectionExclusion[];
  };
  /**
   * The connections in the order to try them for `model` (R11.2): positive weights before standbys
   * (weight 0), priority, then the same priority by weight or by p2c (connectionOrder.ts).
   */
  connectionOrder(connections: Connection[], model: string, choice: ConnectionChoice): Iterable<Connection>;
  /**
   * Why a connection may not take this provider and model now, or null when it may (R11.2): the
   * checks of selectConnections one connection at a time, so a caller can stop at the first fit.
   */
  exclusionCheck(provider: Provider, model: string): (connection: Connection) => ConnectionExclusion | null;
  classify(input: FailureInput): Verdict;
  /**
   * R25.4: `fault` is whose fault the failure was (faults.ts); a client's, a context window's or the
   * gateway's own cools nothing and moves no breaker (a probe it was is freed, as by recordNeutral).
   */
  recordFailure(ctx: AttemptContext, verdict: Verdict, fault?: AttemptFault): void;
  recordSuccess(ctx: AttemptContext): void;
  /**
   * An attempt that ended for a reason that must not count (client abort, local limiter), or an
   * admitted HALF_OPEN probe that was never dispatched: it frees the probe slot and counts nothing.
   */
  recordNeutral(ctx: AttemptContext): void;
}
