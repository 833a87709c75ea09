// Provider circuit breaker (R2, D2): pure transitions over the persisted BreakerSnapshot.
// Every function takes the instant `now` and returns a new snapshot; OPEN -> HALF_OPEN, the probe
// timeout and stale DEGRADED are derived on read (refreshBreaker), never by a timer.
import { BREAKER_DERIVED_DEGRADATION_RATIO, BREAKER_SAME_CONNECTION_DEDUPE_MS, type BreakerProfileSettings } from "../../shared/resilienceSettings.js";
import type { BreakerSnapshot } from "./ports.js";

/** A profile with its degradation threshold resolved (D2). */
export interface BreakerProfile {
  degradationThreshold: number;
  failureThreshold: number;
  resetTimeoutMs: number;
  escalateAfter: number;
  maxBackoffMultiplier: number;
}

export function resolveBreakerProfile(settings: BreakerProfileSettings): BreakerProfile {
  const failureThreshold = Math.max(1, Math.floor(settings.failureThreshold));
  const ceiling = Math.max(1, failureThreshold - 1);
  const wanted = settings.degradationThreshold ?? Math.ceil(BREAKER_DERIVED_DEGRADATION_RATIO * failureThreshold);
  return {
    degradationThreshold: Math.min(ceiling, Math.max(1, wanted)),
    failureThreshold,
    resetTimeoutMs: Math.max(1, settings.resetTimeoutMs),
    escalateAfter: Math.max(0, settings.escalateAfter),
    maxBackoffMultiplier: Math.max(1, settings.maxBackoffMultiplier),
  };
}

export function closedBreaker(provider: string, now: number): BreakerSnapshot {
  return {
    provider,
    state: "CLOSED",
    failureCount: 0,
    successCount: 0,
    openedAt: null,
    openUntil: null,
    openCycles: 0,
    cyclesByKind: "",
    lastFailureAt: null,
    lastFailureKind: null,
    probeStartedAt: null,
    updatedAt: now,
  };
}

/** D2: reset × 2^(cycles − escalateAfter) once cycles > escalateAfter, capped at reset × multiplier. */
export function openDurationMs(profile: BreakerProfile, openCycles: number): number {
  const exponent = Math.max(0, openCycles - profile.escalateAfter);
  const multiplier = Math.min(2 ** exponent, profile.maxBackoffMultiplier);
  return profile.resetTimeoutMs * multiplier;
}

/** R2.4: the failure kinds that escalate separately. */
export type BreakerFailureKind = "timeout" | "server_error" | "transport";

/** A verdict reason (or "probe_timeout") as the failure kind whose escalation it feeds. */
export function breakerFailureKind(reason: string): BreakerFailureKind {
  if (reason === "timeout" || reason === "probe_timeout") return "timeout";
  return reason === "transport" ? "transport" : "server_error";
}

function readCycles(encoded: string | undefined): Map<string, number> {
  const cycles = new Map<string, number>();
  for (const part of (encoded ?? "").split(";")) {
    const [kind, count] = part.split("=");
    if (kind && Number.isFinite(Number(count))) cycles.set(kind, Number(count));
  }
  return cycles;
}

function writeCycles(cycles: Map<string, number>): string {
  return [...cycles]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, n]) => `${kind}=${n}`)
    .join(";");
}

/** How many times the breaker opened for this kind of failure since it last closed. */
export function openCyclesOf(s: BreakerSnapshot, kind: BreakerFailureKind): number {
  return readCycles(s.cyclesByKind).get(kind) ?? 0;
}

/**
 * R2.4: DEGRADED with no new failure for the longest OPEN duration of its last failure kind (at
 * least one reset) is stale. Every kind escalates from the profile's reset timeout up to the same
 * cap, so the longest duration of any kind is that cap.
 */
export function staleAfterMs(profile: BreakerProfile): number {
  return Math.max(profile.resetTimeoutMs, openDurationMs(profile, Number.MAX_SAFE_INTEGER));
}

type OpenSnapshot = Extract<BreakerSnapshot, { state: "OPEN" }>;
type HalfOpenSnapshot = Extract<BreakerSnapshot, { state: "HALF_OPEN" }>;
type CountingSnapshot = Extract<BreakerSnapshot, { state: "CLOSED" | "DEGRADED" }>;

/** Opens for `kind`: its own cycle count grows, and the open duration follows that count alone. */
function open(s: BreakerSnapshot, profile: BreakerProfile, at: number, kind: BreakerFailureKind): OpenSnapshot {
  const cycles = readCycles(s.cyclesByKind);
  const openCycles = (cycles.get(kind) ?? 0) + 1;
  cycles.set(kind, openCycles);
  return {
    ...s,
    state: "OPEN",
    openCycles,
    cyclesByKind: writeCycles(cycles),
    openedAt: at,
    openUntil: at + openDurationMs(profile, openCycles),
    probeStartedAt: null,
    successCount: 0,
    updatedAt: at,
  };
}

/** OPEN past its deadline: HALF_OPEN on the same opening, with no probe out yet. */
function halfOpen(s: OpenSnapshot): HalfOpenSnapshot {
  return { ...s, state: "HALF_OPEN", probeStartedAt: null, updatedAt: s.openUntil };
}

function close(s: BreakerSnapshot, at: number): CountingSnapshot {
  return { ...s, state: "CLOSED", failureCount: 0, successCount: 0, openedAt: null, openUntil: null, openCycles: 0, cyclesByKind: "", probeStartedAt: null, updatedAt: at };
}

/** The step refreshBreaker takes from `s` at `now`, or null when `s` stands. */
function lazyStep(s: BreakerSnapshot, profile: BreakerProfile, now: number): BreakerSnapshot | null {
  switch (s.state) {
    case "OPEN":
      return now >= s.openUntil ? halfOpen(s) : null;
    case "HALF_OPEN": {
      if (s.probeStartedAt === null) return null;
      // D2: a probe unfinished after one reset timeout counts as failed.
      const deadline = s.probeStartedAt + profile.resetTimeoutMs;
      return now >= deadline ? open({ ...s, lastFailureAt: deadline, lastFailureKind: "probe_timeout" }, profile, deadline, "timeout") : null;
    }
    case "CLOSED":
    case "DEGRADED":
      return null;
  }
}

/**
 * The lazy read (R2.4). Applied before every other transition and by every reader, so no
 * caller ever sees OPEN past its deadline, a probe older than its timeout, or a stale DEGRADED.
 */
export function refreshBreaker(s: BreakerSnapshot, profile: BreakerProfile, now: number): BreakerSnapshot {
  let current = s;
  for (let next = lazyStep(current, profile, now); next !== null; next = lazyStep(current, profile, now)) current = next;
  const quiet = current.lastFailureAt === null || now - current.lastFailureAt >= staleAfterMs(profile);
  if ((current.state === "DEGRADED" || (current.state === "CLOSED" && current.failureCount > 0)) && quiet) {
    current = close(current, now);
  }
  return current;
}

export type BreakerAdmission = { allowed: true; probe: boolean } | { allowed: false; retryAfterMs: number };

/** canExecute: CLOSED/DEGRADED admit; HALF_OPEN admits exactly one probe at a time (D2). */
export function admitBreaker(s: BreakerSnapshot, profile: BreakerProfile, now: number): { snapshot: BreakerSnapshot; admission: BreakerAdmission } {
  const current = refreshBreaker(s, profile, now);
  switch (current.state) {
    case "CLOSED":
    case "DEGRADED":
      return { snapshot: current, admission: { allowed: true, probe: false } };
    case "HALF_OPEN":
      if (current.probeStartedAt === null) return { snapshot: { ...current, probeStartedAt: now, updatedAt: now }, admission: { allowed: true, probe: true } };
      break;
    case "OPEN":
      break;
  }
  return { snapshot: current, admission: { allowed: false, retryAfterMs: retryAfterMs(current, profile, now) } };
}

/** Time until the breaker can admit again: the open deadline, or the running probe's timeout. */
export function retryAfterMs(s: BreakerSnapshot, profile: BreakerProfile, now: number): number {
  switch (s.state) {
    case "OPEN":
      return Math.max(0, s.openUntil - now);
    case "HALF_OPEN":
      return s.probeStartedAt === null ? 0 : Math.max(0, s.probeStartedAt + profile.resetTimeoutMs - now);
    case "CLOSED":
    case "DEGRADED":
      return 0;
  }
}

export interface BreakerFailure {
  kind: string;
  connectionId: string | null;
  /** This attempt was admitted as the HALF_OPEN probe. */
  probe: boolean;
}

/**
 * D2 counting. `recentByConnection` remembers when each connection last counted, so that a burst
 * of failures from one connection within 5 000 ms counts once; it is in-memory only.
 */
export function recordBreakerFailure(s: BreakerSnapshot, profile: BreakerProfile, now: number, failure: BreakerFailure, recentByConnection: Map<string, number>): BreakerSnapshot {
  const current = refreshBreaker(s, profile, now);
  switch (current.state) {
    case "OPEN":
      return current; // D2: the open deadline does not move
    case "HALF_OPEN":
      // Only the probe's outcome decides; a late failure of a request admitted before the trip is stale news.
      if (!failure.probe || current.probeStartedAt === null) return current;
      return open({ ...current, lastFailureAt: now, lastFailureKind: failure.kind }, profile, now, breakerFailureKind(failure.kind));
    case "CLOSED":
    case "DEGRADED":
      return countFailure(current, profile, now, failure, recentByConnection);
  }
}

/** D2 counting while closed: rising to the degradation threshold degrades, to the failure threshold opens. */
function countFailure(current: CountingSnapshot, profile: BreakerProfile, now: number, failure: BreakerFailure, recentByConnection: Map<string, number>): BreakerSnapshot {
  if (failure.connectionId !== null) {
    const last = recentByConnection.get(failure.connectionId);
    if (last !== undefined && now - last < BREAKER_SAME_CONNECTION_DEDUPE_MS) return current;
    recentByConnection.set(failure.connectionId, now);
  }
  const failureCount = current.failureCount + 1;
  const counted: CountingSnapshot = { ...current, failureCount, successCount: 0, lastFailureAt: now, lastFailureKind: failure.kind, updatedAt: now };
  if (failureCount >= profile.failureThreshold) return open(counted, profile, now, breakerFailureKind(failure.kind));
  if (failureCount >= profile.degradationThreshold) return { ...counted, state: "DEGRADED" };
  return counted;
}

/** D2: a success subtracts one (not below 0); falling to the degradation threshold closes; a probe success closes. */
export function recordBreakerSuccess(s: BreakerSnapshot, profile: BreakerProfile, now: number): BreakerSnapshot {
  const current = refreshBreaker(s, profile, now);
  switch (current.state) {
    case "OPEN":
      return current;
    case "HALF_OPEN":
      // Any success while HALF_OPEN proves the provider answers again, whether or not it was the probe.
      return close(current, now);
    case "CLOSED":
    case "DEGRADED":
      return countSuccess(current, profile, now);
  }
}

/** D2: a success while closed subtracts one; DEGRADED falling to its threshold closes. */
function countSuccess(current: CountingSnapshot, profile: BreakerProfile, now: number): BreakerSnapshot {
  // The common case changes nothing, so a healthy provider costs no store write per request.
  if (current.state === "CLOSED" && current.failureCount === 0) return current;
  const failureCount = Math.max(0, current.failureCount - 1);
  const next: CountingSnapshot = { ...current, failureCount, successCount: current.successCount + 1, updatedAt: now };
  if (current.state === "DEGRADED" && failureCount <= profile.degradationThreshold) return { ...next, state: "CLOSED" };
  return next;
}

/** A probe that ended without a verdict (client abort, local limiter) frees the probe slot. */
export function releaseProbe(s: BreakerSnapshot, profile: BreakerProfile, now: number): BreakerSnapshot {
  const current = refreshBreaker(s, profile, now);
  if (current.state !== "HALF_OPEN" || current.probeStartedAt === null) return current;
  return { ...current, probeStartedAt: null, updatedAt: now };
}

/** R2.4: a passing connection test clears DEGRADED (and any counted failures while closed). */
export function clearDegraded(s: BreakerSnapshot, profile: BreakerProfile, now: number): BreakerSnapshot {
  const current = refreshBreaker(s, profile, now);
  if (current.state !== "CLOSED" && current.state !== "DEGRADED") return current;
  if (current.state === "CLOSED" && current.failureCount === 0) return current;
  return close(current, now);
}

export function sameSnapshot(a: BreakerSnapshot, b: BreakerSnapshot): boolean {
  // The common case (a healthy provider's success) hands back the very snapshot it was given.
  if (a === b) return true;
  const fieldsOfA = new Map<string, unknown>(Object.entries(a));
  const fieldsOfB = new Map<string, unknown>(Object.entries(b));
  const keys = new Set([...fieldsOfA.keys(), ...fieldsOfB.keys()]);
  return [...keys].every((key) => (fieldsOfA.get(key) ?? "") === (fieldsOfB.get(key) ?? ""));
}
