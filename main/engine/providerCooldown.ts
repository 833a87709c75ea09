// Opt-in global provider cooldown (R3): a window gate per provider, and an exponential backoff per
// provider:connection. In memory only; off unless providerCooldown.enabled. An operator error rule
// with scope "provider" (R12.4) cools a provider through the same gate even when the gate is off.
import type { ProviderCategory } from "../../shared/types.js";
import type { ResilienceSettings } from "../../shared/resilienceSettings.js";
import type { EngineSharing } from "./modelLockout.js";
import type { ProviderCooldownPart } from "./ports.js";

interface WindowEntry {
  failures: number[];
  coolUntil: number | null;
}

interface BackoffEntry {
  failures: number;
  until: number;
}

export class ProviderCooldowns {
  private readonly windows = new Map<string, WindowEntry>();
  private readonly connections = new Map<string, BackoffEntry>();
  /** Cooldowns imposed by an operator rule; they apply whether or not the gate is enabled. */
  private readonly forced = new Map<string, number>();

  /** `sharing`: every gate and backoff set or cleared is handed to the group (R19.1); the failure windows stay local. */
  constructor(private readonly sharing?: EngineSharing) {}

  recordFailure(provider: { id: string; category: ProviderCategory }, connectionId: string | null, settings: ResilienceSettings["providerCooldown"], now: number): void {
    if (!settings.enabled) return;
    const profile = settings[provider.category];
    const entry = this.windows.get(provider.id) ?? { failures: [], coolUntil: null };
    entry.failures = entry.failures.filter((at) => now - at < profile.failureWindowMs);
    entry.failures.push(now);
    if (entry.failures.length >= profile.failureThreshold) {
      entry.coolUntil = Math.max(entry.coolUntil ?? 0, now + profile.cooldownMs);
      entry.failures = [];
      this.shareUntil(provider.id, { gate: "window" }, entry.coolUntil);
    }
    this.windows.set(provider.id, entry);
    if (connectionId === null) return;
    const key = connectionKey(provider.id, connectionId);
    const failures = (this.connections.get(key)?.failures ?? 0) + 1;
    const backoff = Math.min(settings.minRetryCooldownMs * 2 ** (failures - 1), settings.maxRetryCooldownMs);
    this.connections.set(key, { failures, until: now + backoff });
    this.shareUntil(provider.id, { connectionId }, now + backoff, failures);
  }

  /** R3.1: a success clears the provider's window (and the connection's backoff). */
  recordSuccess(providerId: string, connectionId: string | null): void {
    const entry = this.windows.get(providerId);
    if (entry) entry.failures = [];
    if (connectionId !== null && this.connections.delete(connectionKey(providerId, connectionId))) this.shareUntil(providerId, { connectionId }, null);
  }

  coolProvider(providerId: string, until: number): void {
    this.forced.set(providerId, Math.max(this.forced.get(providerId) ?? 0, until));
    this.shareUntil(providerId, { gate: "rule" }, this.forced.get(providerId)!);
  }

  /** Remaining provider-level cooldown in ms (0 = not cooling). */
  providerRemainingMs(providerId: string, settings: ResilienceSettings["providerCooldown"], now: number): number {
    const forced = this.forced.get(providerId) ?? 0;
    const gated = settings.enabled ? (this.windows.get(providerId)?.coolUntil ?? 0) : 0;
    return Math.max(0, forced - now, gated - now);
  }

  connectionRemainingMs(providerId: string, connectionId: string, settings: ResilienceSettings["providerCooldown"], now: number): number {
    if (!settings.enabled) return 0;
    const entry = this.connections.get(connectionKey(providerId, connectionId));
    return entry ? Math.max(0, entry.until - now) : 0;
  }

  clearConnection(providerId: string, connectionId: string): boolean {
    const cleared = this.connections.delete(connectionKey(providerId, connectionId));
    if (cleared) this.shareUntil(providerId, { connectionId }, null, undefined, true);
    return cleared;
  }

  /** An operator's reset: it wins over what the group holds (R19.2). */
  reset(providerId?: string): void {
    const providers = providerId === undefined ? new Set([...this.windows.keys(), ...this.forced.keys()]) : new Set([providerId]);
    for (const id of providers) {
      if (this.windows.get(id)?.coolUntil != null) this.shareUntil(id, { gate: "window" }, null, undefined, true);
      if (this.forced.has(id)) this.shareUntil(id, { gate: "rule" }, null, undefined, true);
      this.windows.delete(id);
      this.forced.delete(id);
    }
    for (const key of [...this.connections.keys()]) {
      const cut = key.indexOf("\u0000");
      const provider = key.slice(0, cut);
      const connectionId = key.slice(cut + 1);
      if (providerId !== undefined && provider !== providerId) continue;
      this.connections.delete(key);
      this.shareUntil(provider, { connectionId }, null, undefined, true);
    }
  }

  /** R19: a gate or backoff as the group holds it (never shared back); null `until` = cleared there. */
  applyShared(providerId: string, part: ProviderCooldownPart, until: number | null, failures = 1): void {
    if (part.connectionId !== undefined) {
      const key = connectionKey(providerId, part.connectionId);
      if (until === null) this.connections.delete(key);
      else this.connections.set(key, { failures, until });
      return;
    }
    if (part.gate === "rule") {
      if (until === null) this.forced.delete(providerId);
      else this.forced.set(providerId, until);
      return;
    }
    const entry = this.windows.get(providerId) ?? { failures: [], coolUntil: null };
    entry.coolUntil = until;
    this.windows.set(providerId, entry);
  }

  private shareUntil(providerId: string, part: ProviderCooldownPart, until: number | null, failures?: number, force = false): void {
    if (!this.sharing) return;
    const value = until === null ? null : { until, ...(failures === undefined ? {} : { failures }) };
    this.sharing.share({ kind: "providerCooldown", provider: providerId, part, entry: { value, at: this.sharing.clock.now(), until, ...(force ? { force } : {}) } });
  }
}

const connectionKey = (providerId: string, connectionId: string): string => `${providerId}\u0000${connectionId}`;
