// Opt-in global provider cooldown (R3): a window gate per provider, and an exponential backoff per
// provider:connection. In memory only; off unless providerCooldown.enabled. An operator error rule
// with scope "provider" (R12.4) cools a provider through the same gate even when the gate is off.
import type { ProviderCategory } from "../../shared/types.js";
import type { ResilienceSettings } from "../../shared/resilienceSettings.js";

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

  recordFailure(
    provider: { id: string; category: ProviderCategory },
    connectionId: string | null,
    settings: ResilienceSettings["providerCooldown"],
    now: number,
  ): void {
    if (!settings.enabled) return;
    const profile = settings[provider.category];
    const entry = this.windows.get(provider.id) ?? { failures: [], coolUntil: null };
    entry.failures = entry.failures.filter((at) => now - at < profile.failureWindowMs);
    entry.failures.push(now);
    if (entry.failures.length >= profile.failureThreshold) {
      entry.coolUntil = Math.max(entry.coolUntil ?? 0, now + profile.cooldownMs);
      entry.failures = [];
    }
    this.windows.set(provider.id, entry);
    if (connectionId === null) return;
    const key = connectionKey(provider.id, connectionId);
    const failures = (this.connections.get(key)?.failures ?? 0) + 1;
    const backoff = Math.min(settings.minRetryCooldownMs * 2 ** (failures - 1), settings.maxRetryCooldownMs);
    this.connections.set(key, { failures, until: now + backoff });
  }

  /** R3.1: a success clears the provider's window (and the connection's backoff). */
  recordSuccess(providerId: string, connectionId: string | null): void {
    const entry = this.windows.get(providerId);
    if (entry) entry.failures = [];
    if (connectionId !== null) this.connections.delete(connectionKey(providerId, connectionId));
  }

  coolProvider(providerId: string, until: number): void {
    this.forced.set(providerId, Math.max(this.forced.get(providerId) ?? 0, until));
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
    return this.connections.delete(connectionKey(providerId, connectionId));
  }

  reset(providerId?: string): void {
    if (providerId === undefined) {
      this.windows.clear();
      this.connections.clear();
      this.forced.clear();
      return;
    }
    this.windows.delete(providerId);
    this.forced.delete(providerId);
    for (const key of this.connections.keys()) if (key.startsWith(`${providerId}\u0000`)) this.connections.delete(key);
  }
}

const connectionKey = (providerId: string, connectionId: string): string => `${providerId}\u0000${connectionId}`;
