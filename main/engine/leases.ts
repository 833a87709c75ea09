// Exclusive connection leases (R7.2, D7): durable ownership of one connection by one client
// session, fenced by a generation. One active owner per connection and one active connection per
// owner; a lease ends by release, by expiry (lazily, on the engine clock) or by an operator, and
// moves (keeping its generation) when its connection can no longer serve.
// Every new lease gets a generation greater than any before it, so a request that still carries
// the generation of an ended lease is refused before it reaches a provider.
import type { Clock } from "./ports.js";

export interface Lease {
  /** SHA-256 of the owner token; the token itself is never kept. */
  ownerHash: string;
  /** The client key that acquired the lease; only that key may renew, release or use it. */
  keyId: string;
  connectionId: string;
  generation: number;
  acquiredAt: number;
  expiresAt: number;
}

export type LeaseEnd = "RELEASED" | "EXPIRED" | "REVOKED";

export interface LeaseStore {
  loadActive(): Lease[];
  maxGeneration(): number;
  save(lease: Lease): void;
  end(ownerHash: string, state: LeaseEnd, at: number): void;
}

export type LeaseResult =
  | { kind: "active"; lease: Lease }
  | { kind: "capacity"; retryAfterMs: number | null }
  | { kind: "stale" };

export class LeaseBook {
  private readonly byOwner = new Map<string, Lease>();
  private readonly byConnection = new Map<string, Lease>();
  private lastGeneration: number;

  constructor(
    private readonly store: LeaseStore,
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {
    for (const lease of store.loadActive()) this.remember(lease);
    this.lastGeneration = store.maxGeneration();
  }

  /**
   * Acquires the first free connection of `candidates` (eligible ones, in preference order). An
   * owner that already holds a live lease with this key gets it back unchanged (a retried acquire).
   */
  acquire(ownerHash: string, keyId: string, candidates: readonly string[]): LeaseResult {
    const held = this.live(this.byOwner.get(ownerHash));
    if (held) return held.keyId === keyId ? { kind: "active", lease: held } : { kind: "stale" };
    const now = this.clock.now();
    let earliestExpiry: number | null = null;
    for (const connectionId of candidates) {
      const holder = this.holderOf(connectionId);
      if (holder) {
        earliestExpiry = Math.min(earliestExpiry ?? holder.expiresAt, holder.expiresAt);
        continue;
      }
      const lease: Lease = { ownerHash, keyId, connectionId, generation: ++this.lastGeneration, acquiredAt: now, expiresAt: now + this.ttlMs };
      this.store.save(lease);
      this.remember(lease);
      return { kind: "active", lease };
    }
    return { kind: "capacity", retryAfterMs: earliestExpiry === null ? null : earliestExpiry - now };
  }

  /** Extends a live lease presented with its exact generation by the key that holds it. */
  renew(ownerHash: string, keyId: string, generation: number): LeaseResult {
    const lease = this.fence(ownerHash, keyId, generation);
    if (!lease) return { kind: "stale" };
    const renewed = { ...lease, expiresAt: this.clock.now() + this.ttlMs };
    this.store.save(renewed);
    this.remember(renewed);
    return { kind: "active", lease: renewed };
  }

  /** Idempotent: releasing an ended or unknown lease succeeds; only another key's lease is refused. */
  release(ownerHash: string, keyId: string): "released" | "stale" {
    const lease = this.live(this.byOwner.get(ownerHash));
    if (!lease) return "released";
    if (lease.keyId !== keyId) return "stale";
    this.end(lease, "RELEASED");
    return "released";
  }

  /** The live lease this request may use, or null when its owner, key or generation is stale. */
  fence(ownerHash: string, keyId: string, generation: number): Lease | null {
    const lease = this.live(this.byOwner.get(ownerHash));
    return lease && lease.keyId === keyId && lease.generation === generation ? lease : null;
  }

  /**
   * Moves a live lease to another connection, its own having become ineligible (R7.2): the same
   * owner, key, generation and expiry, so the fence the client holds stays valid. Null when the
   * lease is not live or another owner holds that connection.
   */
  move(ownerHash: string, connectionId: string): Lease | null {
    const lease = this.live(this.byOwner.get(ownerHash));
    if (!lease || lease.connectionId === connectionId) return lease;
    if (this.holderOf(connectionId)) return null;
    const moved: Lease = { ...lease, connectionId };
    this.store.save(moved);
    if (this.byConnection.get(lease.connectionId) === lease) this.byConnection.delete(lease.connectionId);
    this.remember(moved);
    return moved;
  }

  holderOf(connectionId: string): Lease | null {
    return this.live(this.byConnection.get(connectionId));
  }

  list(): Lease[] {
    return [...this.byOwner.values()].filter((l) => this.live(l)).sort((a, b) => a.expiresAt - b.expiresAt);
  }

  /** Operator action: ends the lease on a connection whoever holds it. */
  revoke(connectionId: string): boolean {
    const lease = this.holderOf(connectionId);
    if (lease) this.end(lease, "REVOKED");
    return lease !== null;
  }

  private live(lease: Lease | undefined): Lease | null {
    if (!lease) return null;
    if (lease.expiresAt > this.clock.now()) return lease;
    this.end(lease, "EXPIRED");
    return null;
  }

  private remember(lease: Lease): void {
    this.byOwner.set(lease.ownerHash, lease);
    this.byConnection.set(lease.connectionId, lease);
  }

  private end(lease: Lease, state: LeaseEnd): void {
    this.byOwner.delete(lease.ownerHash);
    if (this.byConnection.get(lease.connectionId) === lease) this.byConnection.delete(lease.connectionId);
    this.store.end(lease.ownerHash, state, this.clock.now());
  }
}
