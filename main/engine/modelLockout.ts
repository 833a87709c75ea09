// Model lockout (R5, D5): provider + connection + model (or quota family) leaves rotation for an
// escalating time. In memory only (R5.4). Expiry is lazy; an entry is forgotten once its
// escalation window has passed, so memory stays bounded by what failed recently.
import type { ModelLockoutItem } from "../../shared/apiTypes.js";
import { MODEL_LOCKOUT_DEFAULT_WINDOW_MS, type ResilienceSettings } from "../../shared/resilienceSettings.js";
import type { Clock, EngineSharedChange, SharedLockout } from "./ports.js";

/** R19: where the engine's in-memory changes go to be shared with a group, and the clock they are dated on. */
export interface EngineSharing {
  share(change: EngineSharedChange): void;
  clock: Clock;
}

/**
 * R5.2's three keys: the quota family, the bare model (every variant of it on the connection), or
 * the exact provider/connection/model string.
 */
export type LockScope = "family" | "model" | "exact";

export interface LockTarget {
  provider: string;
  connectionId: string;
  model: string;
  /** Set when the lock covers a quota family (R5.2): the family's name and its model prefixes. */
  family: { name: string; prefixes: string[] } | null;
  /** Without a family: "model" covers every variant of the bare model, "exact" only this string. */
  exact?: boolean;
}

export interface LockoutEntry extends LockTarget {
  reason: string;
  failureCount: number;
  lockedAt: number;
  expiresAt: number;
  lastCooldownMs: number;
  /** After this instant a new failure starts a fresh escalation (D5 window). */
  forgetAt: number;
}

/**
 * R5.2: 429/403/402 (quota or entitlement) lock the quota family, 404 the bare model, anything else
 * (5xx, a synthesized 502, a broken stream) only the exact model; an explicit caller scope wins.
 */
export function resolveLockScope(status: number | null, explicit?: LockScope): LockScope {
  if (explicit) return explicit;
  if (status === 429 || status === 403 || status === 402) return "family";
  return status === 404 ? "model" : "exact";
}

/**
 * The model without its variant suffix: `claude-x[1m]`, `gpt-5:high`, `m1 (thinking)` and
 * `m1@2025-01-01` are all `claude-x` / `gpt-5` / `m1` for a 404, which says the model is missing.
 */
export function bareModelOf(model: string): string {
  const bare = model.replace(/\s*(\[[^\]]*\]|\([^)]*\))\s*$/, "").replace(/[:@][^:@/]*$/, "");
  return bare === "" ? model : bare;
}

/** The lock target of a scope: a family lock without a declared family falls back to the bare model. */
export function lockTargetFor(scope: LockScope, base: Omit<LockTarget, "family" | "exact">, quotaFamilies: Record<string, string[]>): LockTarget {
  const family = scope === "family" ? familyOf(base.model, quotaFamilies) : null;
  return { ...base, family, exact: scope === "exact" };
}

export function familyOf(model: string, quotaFamilies: Record<string, string[]>): { name: string; prefixes: string[] } | null {
  for (const [name, prefixes] of Object.entries(quotaFamilies)) {
    if (prefixes.some((prefix) => model.startsWith(prefix))) return { name, prefixes };
  }
  return null;
}

/** D5: min(base × 2^(n−1), max) for the n-th failure, the exponent bounded by maxBackoffSteps. */
export function escalatedCooldownMs(settings: ResilienceSettings["modelLockout"], failureCount: number): number {
  if (!settings.useExponentialBackoff) return settings.baseCooldownMs;
  const exponent = Math.min(Math.max(0, failureCount - 1), settings.maxBackoffSteps);
  return Math.min(settings.baseCooldownMs * 2 ** exponent, settings.maxCooldownMs);
}

/** The scope part of a lock's key: one lock per provider, connection and scope (shared as is, R19). */
export function lockoutScope(t: LockTarget): string {
  if (t.family) return `family:${t.family.name}`;
  return t.exact ? `exact:${t.model}` : `model:${bareModelOf(t.model)}`;
}

const keyOf = (t: Pick<LockTarget, "provider" | "connectionId">, scope: string): string => [t.provider, t.connectionId, scope].join("\u0000");

function covers(entry: LockTarget, model: string): boolean {
  if (entry.family) return entry.family.prefixes.some((prefix) => model.startsWith(prefix));
  return entry.exact ? entry.model === model : bareModelOf(entry.model) === bareModelOf(model);
}

export interface LockRequest {
  target: LockTarget;
  reason: string;
  /** Added to the last cooldown to form the escalation window (D5: the provider's reset timeout, else 30 min). */
  escalationWindowMs?: number;
  /** A floor for this lock (an upstream hint or a rule's cooldown); escalation may go higher. */
  minimumMs?: number;
  /** A fixed duration with no escalation (request_rejected streaks, long typed retry delays). */
  fixedMs?: number;
}

export class ModelLockouts {
  private readonly entries = new Map<string, LockoutEntry>();

  /** `sharing`: every lock set or removed is handed to the group (R19.1). */
  constructor(private readonly sharing?: EngineSharing) {}

  /** Records one failure; returns the entry (its expiry never moves earlier, D5). */
  lock(request: LockRequest, settings: ResilienceSettings["modelLockout"], now: number): LockoutEntry {
    const key = keyOf(request.target, lockoutScope(request.target));
    const previous = this.entries.get(key);
    const continuing = previous !== undefined && now <= previous.forgetAt;
    const failureCount = continuing ? previous.failureCount + 1 : 1;
    const base = request.fixedMs ?? escalatedCooldownMs(settings, failureCount);
    const cooldownMs = Math.max(base, request.minimumMs ?? 0);
    const activeUntil = previous && previous.expiresAt > now ? previous.expiresAt : 0;
    const expiresAt = Math.max(activeUntil, now + cooldownMs);
    const entry: LockoutEntry = {
      ...request.target,
      reason: request.reason,
      failureCount,
      lockedAt: now,
      expiresAt,
      lastCooldownMs: cooldownMs,
      forgetAt: Math.max(expiresAt, now + cooldownMs + (request.escalationWindowMs ?? MODEL_LOCKOUT_DEFAULT_WINDOW_MS)),
    };
    this.entries.set(key, entry);
    this.shareEntry(entry, entry);
    return entry;
  }

  /** R19: a lock as the group holds it (never shared back); returns it when it is new here and active. */
  applyShared(connectionId: string, scope: string, shared: SharedLockout, now: number): LockoutEntry | null {
    const key = keyOf({ provider: shared.provider, connectionId }, scope);
    const previous = this.entries.get(key);
    const entry: LockoutEntry = { ...shared, connectionId };
    if (previous && previous.expiresAt === entry.expiresAt && previous.failureCount === entry.failureCount) return null;
    this.entries.set(key, entry);
    return entry.expiresAt > now ? entry : null;
  }

  /** R19: another instance removed a lock; returns it when it was still active here. */
  applySharedClear(provider: string, connectionId: string, scope: string, now: number): LockoutEntry | null {
    const key = keyOf({ provider, connectionId }, scope);
    const previous = this.entries.get(key);
    if (!previous) return null;
    this.entries.delete(key);
    return previous.expiresAt > now ? previous : null;
  }

  private shareEntry(target: LockTarget, entry: LockoutEntry | null, force = false): void {
    if (!this.sharing) return;
    const at = this.sharing.clock.now();
    const value = entry === null ? null : sharedLockout(entry);
    this.sharing.share({
      kind: "lockout",
      provider: target.provider,
      connectionId: target.connectionId,
      scope: lockoutScope(target),
      entry: { value, at, until: entry?.expiresAt ?? null, ...(force ? { force } : {}) },
    });
  }

  /** The longest remaining active lock covering this model on this connection, or 0. */
  remainingMs(provider: string, connectionId: string, model: string, now: number): number {
    // Selection asks this for every connection of a provider on every request; usually none is locked.
    if (this.entries.size === 0) return 0;
    let remaining = 0;
    for (const entry of this.entries.values()) {
      if (entry.provider !== provider || entry.connectionId !== connectionId || !covers(entry, model)) continue;
      remaining = Math.max(remaining, entry.expiresAt - now);
    }
    return remaining;
  }

  /** R5.3: a success halves the failure count of every entry covering the model; 0 deletes it. */
  decay(provider: string, connectionId: string, model: string, now: number): LockoutEntry[] {
    const removed: LockoutEntry[] = [];
    for (const [key, entry] of this.entries) {
      if (entry.provider !== provider || entry.connectionId !== connectionId || !covers(entry, model)) continue;
      const failureCount = Math.floor(entry.failureCount / 2);
      if (failureCount > 0) {
        this.entries.set(key, { ...entry, failureCount });
        continue;
      }
      this.entries.delete(key);
      this.shareEntry(entry, null);
      if (entry.expiresAt > now) removed.push(entry);
    }
    return removed;
  }

  /** Active locks, longest remaining first (D5). */
  list(now: number): ModelLockoutItem[] {
    this.prune(now);
    return [...this.entries.values()]
      .filter((entry) => entry.expiresAt > now)
      .sort((a, b) => b.expiresAt - a.expiresAt)
      .map((entry) => ({
        provider: entry.provider,
        connectionId: entry.connectionId,
        model: entry.model,
        reason: entry.reason,
        remainingMs: entry.expiresAt - now,
        expiresAt: entry.expiresAt,
        failureCount: entry.failureCount,
      }));
  }

  activeFor(provider: string, connectionId: string, now: number): LockoutEntry[] {
    return [...this.entries.values()].filter((e) => e.provider === provider && e.connectionId === connectionId && e.expiresAt > now);
  }

  activeCount(now: number): number {
    let count = 0;
    for (const entry of this.entries.values()) if (entry.expiresAt > now) count++;
    return count;
  }

  /**
   * Removes matching entries (active or remembered) and returns the active ones removed. `model`
   * matches the locked model, the family name, or any model the family covers.
   */
  clear(filter: { provider?: string; connectionId?: string | null; model?: string }, now: number): LockoutEntry[] {
    const removed: LockoutEntry[] = [];
    for (const [key, entry] of this.entries) {
      if (filter.provider !== undefined && entry.provider !== filter.provider) continue;
      if (filter.connectionId != null && entry.connectionId !== filter.connectionId) continue;
      if (filter.model !== undefined && !(entry.model === filter.model || entry.family?.name === filter.model || covers(entry, filter.model))) continue;
      this.entries.delete(key);
      // Every clear is an operator's or a breaker reset's: it wins over what the group holds.
      this.shareEntry(entry, null, true);
      if (entry.expiresAt > now) removed.push(entry);
    }
    return removed;
  }

  private prune(now: number): void {
    for (const [key, entry] of this.entries) if (now > entry.forgetAt) this.entries.delete(key);
  }
}

function sharedLockout(entry: LockoutEntry): SharedLockout {
  const { connectionId: _local, ...shared } = entry;
  return shared;
}
