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

/** Of two leases of one connection, the one taken first (then the lower owner hash, so every instance picks the same). */
function firstTaken(a: Lease, b: Lease): Lease {
  if (a.acquiredAt !== b.acquiredAt) return a.acquiredAt < b.acquiredAt ? a : b;
  return a.ownerHash < b.ownerHash ? a : b;
}

export type LeaseResult = { kind: "active"; lease: Lease } | { kind: "capacity"; retryAfterMs: number | null } | { kind: "stale" };

/** Hears a lease taken, renewed, moved (the lease) or ended (null, and how) on this instance (R19.1). */
export type LeaseListener = (ownerHash: string, lease: Lease | null, end: LeaseEnd | null) => void;

export class LeaseBook {
  private readonly byOwner = new Map<string, Lease>();
  private readonly byConnection = new Map<string, Lease>();
  private lastGeneration: number;
  private listener: LeaseListener | null = null;

  constructor(
    private readonly store: LeaseStore,
    private readonly clock: Clock,
    readonly ttlMs: number,
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
      this.keep(lease);
      return { kind: "active", lease };
    }
    return { kind: "capacity", retryAfterMs: earliestExpiry === null ? null : earliestExpiry - now };
  }

  /** Extends a live lease presented with its exact generation by the key that holds it. */
  renew(ownerHash: string, keyId: string, generation: number): LeaseResult {
    const lease = this.fence(ownerHash, keyId, generation);
    if (!lease) return { kind: "stale" };
    const renewed = { ...lease, expiresAt: this.clock.now() + this.ttlMs };
    this.keep(renewed);
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
    if (this.byConnection.get(lease.connectionId) === lease) this.byConnection.delete(lease.connectionId);
    this.keep(moved);
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

  /** R19.1: one listener of local changes. */
  onLocalChange(listener: LeaseListener): void {
    this.listener = listener;
  }

  /**
   * A lease another instance took, renewed or moved, or ended (null), known here so that its
   * connection is not another owner's and its fence is checked here too. Kept in memory only: its
   * key may not exist in this instance's store, and the group state is delivered again on rejoin.
   */
  applyShared(ownerHash: string, lease: Lease | null): void {
    const known = this.byOwner.get(ownerHash);
    if (known && this.byConnection.get(known.connectionId) === known) this.byConnection.delete(known.connectionId);
    if (lease) {
      // A fence stays unique in the group: a lease taken here later gets a higher generation.
      this.lastGeneration = Math.max(this.lastGeneration, lease.generation);
      const holder = this.holderOf(lease.connectionId);
      if (holder && holder.ownerHash !== ownerHash) {
        // A holder already over when the other was taken (clocks differ a little) ends here too.
        // Else two owners took one connection while the group was apart (R19.3): the first taken
        // keeps it, decided alike in every instance, and the other is revoked.
        const overlap = holder.expiresAt > lease.acquiredAt;
        if (overlap && firstTaken(holder, lease) === holder) return void this.byOwner.delete(ownerHash);
        this.end(holder, overlap ? "REVOKED" : "EXPIRED");
      }
      this.remember(lease);
    } else if (known) {
      this.byOwner.delete(ownerHash);
      this.store.end(ownerHash, "RELEASED", this.clock.now());
    }
  }

  private keep(lease: Lease): void {
    this.store.save(lease);
    this.remember(lease);
    this.listener?.(lease.ownerHash, lease, null);
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
    this.listener?.(lease.ownerHash, null, state);
  }
}
