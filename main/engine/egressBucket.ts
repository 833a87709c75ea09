// Egress-bucketed lock (R12.5): some upstreams (the opencode family) bucket their free tier by the
// caller's IP, not by account, so a 429 on one connection says every connection leaving from the
// same IP is spent too. Pure: the gateway finds the siblings' last known egress IPs in the request
// log; this decides which of them cool and until when.
import type { Connection, ConnectionRuntime, Provider } from "../../shared/types.js";
import { activeCooldownUntil, errorFields, isTerminal } from "./connectionCooldown.js";
import type { Verdict } from "./ports.js";

/** R12.5 allowlist: widening it is an explicit owner decision, one line here. */
export const EGRESS_BUCKETED_LOCK_PROVIDERS: readonly string[] = ["opencode"];

/** R12.5: how far back a connection's last known egress IP counts. */
export const EGRESS_LOOKUP_WINDOW_MS = 24 * 3_600_000;

/** The egress-bucketed family a provider belongs to (by id, or the vendor's host in its base URL), or null. */
export function egressFamilyOf(provider: Pick<Provider, "id" | "baseUrl">): string | null {
  if (EGRESS_BUCKETED_LOCK_PROVIDERS.includes(provider.id)) return provider.id;
  return /(^|[/.])opencode\.ai([/:]|$)/i.test(provider.baseUrl) ? "opencode" : null;
}

/** R12.5: only a 429 classified quota_exhausted or rate_limit locks the IP's siblings. */
export function locksEgressBucket(provider: Pick<Provider, "id" | "baseUrl">, verdict: Verdict): boolean {
  if (egressFamilyOf(provider) === null || verdict.status !== 429) return false;
  // R21.4: a used-up subscription window is the account's own, not its egress IP's.
  if (verdict.window) return false;
  return verdict.reason === "quota_exhausted" || verdict.reason === "rate_limit";
}

export interface EgressSibling {
  connection: Pick<Connection, "id" | "provider" | "disableCooling">;
  runtime: ConnectionRuntime;
}

export interface SiblingCooldown {
  connectionId: string;
  provider: string;
  patch: Partial<ConnectionRuntime>;
}

/**
 * The siblings to cool until `until`: never a terminal one (banned, credits_exhausted, expired),
 * never one already cooling as long or longer, never one that opted out of cooling; the patch is a
 * renewable cooldown, never a terminal state.
 */
export function planSiblingCooldowns(siblings: EgressSibling[], verdict: Verdict, until: number, now: number): SiblingCooldown[] {
  const out: SiblingCooldown[] = [];
  for (const { connection, runtime } of siblings) {
    if (connection.disableCooling || isTerminal(runtime.testStatus)) continue;
    const active = activeCooldownUntil(runtime, now);
    if (active !== null && active >= until) continue;
    out.push({
      connectionId: connection.id,
      provider: connection.provider,
      patch: { ...errorFields(verdict, now), testStatus: "unavailable", rateLimitedUntil: until },
    });
  }
  return out;
}

/**
 * Sibling cooldowns written after a request listed its connections: selection of that same request
 * reads the rows it listed, so it learns of them here (and skips a call bound to fail). Lazy expiry.
 */
export class EgressSiblingCooldowns {
  private readonly until = new Map<string, number>();

  set(connectionId: string, until: number): void {
    this.until.set(connectionId, until);
  }

  delete(connectionId: string): void {
    this.until.delete(connectionId);
  }

  remainingMs(connectionId: string, now: number): number {
    if (this.until.size === 0) return 0;
    const until = this.until.get(connectionId);
    if (until === undefined) return 0;
    if (until > now) return until - now;
    this.until.delete(connectionId);
    return 0;
  }
}
