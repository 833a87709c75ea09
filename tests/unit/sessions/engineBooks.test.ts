// The pure pin and lease books (R7.1, R7.2) on a fake clock with in-memory stores.
import { describe, expect, it } from "vitest";
import { LeaseBook } from "../../../main/engine/leases.js";
import { SessionPins } from "../../../main/engine/sessionAffinity.js";
import { fakeClock } from "../engine/fixtures.js";
import { MemoryLeaseStore, MemoryPinStore } from "./memoryStores.js";

describe("SessionPins (R7.1)", () => {
  it("R7.1 a pin lives sessionAffinityTtlMs on the given clock; each use extends it", () => {
    const clock = fakeClock();
    const pins = new SessionPins(new MemoryPinStore(), clock, () => 1_000);
    pins.served("s", "p", "c1");
    clock.advance(900);
    expect(pins.pinned("s")?.connectionId).toBe("c1");
    pins.served("s", "p", "c1");
    clock.advance(900);
    expect(pins.pinned("s")?.connectionId).toBe("c1");
    clock.advance(100);
    expect(pins.pinned("s")).toBeNull();
  });

  it("R7.1 serving from another connection moves the pin; TTL 0 ignores and creates no pins", () => {
    const clock = fakeClock();
    let ttl = 1_000;
    const store = new MemoryPinStore();
    const pins = new SessionPins(store, clock, () => ttl);
    pins.served("s", "p", "c1");
    pins.served("s", "p", "c2");
    expect(pins.pinned("s")?.connectionId).toBe("c2");
    expect(store.rows.get("s")?.connectionId).toBe("c2");
    ttl = 0;
    expect(pins.pinned("s")).toBeNull();
    pins.served("t", "p", "c1");
    expect(store.rows.has("t")).toBe(false);
  });

  it("R7.1 pins are loaded from the store once; reads do not touch it; expired pins leave it", () => {
    const clock = fakeClock();
    const store = new MemoryPinStore();
    store.rows.set("old", { sessionKey: "old", provider: "p", connectionId: "c9", expiresAt: clock.now() + 10, lastUsedAt: clock.now() });
    const pins = new SessionPins(store, clock, () => 1_000);
    expect(pins.pinned("old")?.connectionId).toBe("c9");
    expect(store.writes).toBe(0);
    clock.advance(10);
    expect(pins.list()).toEqual([]);
    expect(store.rows.has("old")).toBe(false);
    pins.served("a", "p", "c1");
    expect(pins.unpin("a")).toBe(true);
    expect(pins.unpin("a")).toBe(false);
    expect(store.rows.size).toBe(0);
  });
});

describe("LeaseBook (R7.2)", () => {
  const book = (ttl = 1_000) => {
    const clock = fakeClock();
    const store = new MemoryLeaseStore();
    return { clock, store, leases: new LeaseBook(store, clock, ttl) };
  };

  it("R7.2 one active owner per connection and one connection per owner; a retried acquire returns the same lease", () => {
    const { leases } = book();
    const a = leases.acquire("A", "k1", ["c1", "c2"]);
    expect(a).toMatchObject({ kind: "active", lease: { connectionId: "c1", generation: 1 } });
    expect(leases.acquire("A", "k1", ["c1", "c2"])).toEqual(a);
    expect(leases.acquire("B", "k1", ["c1", "c2"])).toMatchObject({ kind: "active", lease: { connectionId: "c2", generation: 2 } });
    expect(leases.acquire("C", "k1", ["c1", "c2"])).toEqual({ kind: "capacity", retryAfterMs: 1_000 });
    expect(leases.acquire("A", "k2", ["c3"])).toEqual({ kind: "stale" });
  });

  it("R7.2 the fence needs the exact generation and the holding key; renew extends, release is idempotent", () => {
    const { leases, clock } = book();
    const { lease } = leases.acquire("A", "k1", ["c1"]) as { lease: { generation: number } };
    expect(leases.fence("A", "k1", lease.generation)).not.toBeNull();
    expect(leases.fence("A", "k1", lease.generation + 1)).toBeNull();
    expect(leases.fence("A", "k2", lease.generation)).toBeNull();
    clock.advance(900);
    expect(leases.renew("A", "k1", lease.generation)).toMatchObject({ kind: "active", lease: { expiresAt: clock.now() + 1_000 } });
    expect(leases.renew("A", "k1", lease.generation + 1)).toEqual({ kind: "stale" });
    expect(leases.release("A", "k2")).toBe("stale");
    expect(leases.release("A", "k1")).toBe("released");
    expect(leases.release("A", "k1")).toBe("released");
    expect(leases.fence("A", "k1", lease.generation)).toBeNull();
  });

  it("R7.2 a moved lease keeps its owner, key, generation and expiry; it frees its old connection and never takes another owner's", () => {
    const { leases, clock, store } = book();
    const { lease } = leases.acquire("A", "k1", ["c1"]) as { lease: { generation: number; expiresAt: number } };
    leases.acquire("B", "k1", ["c2"]);
    clock.advance(100);
    expect(leases.move("A", "c2")).toBeNull();
    expect(leases.move("A", "c3")).toEqual({ ...lease, connectionId: "c3" });
    expect(leases.fence("A", "k1", lease.generation)?.connectionId).toBe("c3");
    expect(leases.holderOf("c1")).toBeNull();
    expect(leases.holderOf("c3")?.ownerHash).toBe("A");
    expect(store.rows.get("A")).toMatchObject({ connectionId: "c3", generation: lease.generation, expiresAt: lease.expiresAt, state: "ACTIVE" });
    expect(new LeaseBook(store, clock, 1_000).holderOf("c3")?.generation).toBe(lease.generation);
    clock.advance(900);
    expect(leases.move("A", "c4")).toBeNull();
  });

  it("R7.2 an expired lease frees its connection on the clock, and generations never repeat across restarts", () => {
    const { leases, clock, store } = book();
    leases.acquire("A", "k1", ["c1"]);
    clock.advance(999);
    expect(leases.holderOf("c1")?.ownerHash).toBe("A");
    clock.advance(1);
    expect(leases.holderOf("c1")).toBeNull();
    expect(store.rows.get("A")?.state).toBe("EXPIRED");
    const b = leases.acquire("B", "k1", ["c1"]);
    expect(b).toMatchObject({ kind: "active", lease: { generation: 2 } });
    const reopened = new LeaseBook(store, clock, 1_000);
    expect(reopened.holderOf("c1")?.ownerHash).toBe("B");
    expect(reopened.acquire("C", "k1", ["c2"])).toMatchObject({ kind: "active", lease: { generation: 3 } });
    expect(reopened.revoke("c1")).toBe(true);
    expect(store.rows.get("B")?.state).toBe("REVOKED");
    expect(reopened.list().map((l) => l.ownerHash)).toEqual(["C"]);
  });
});
