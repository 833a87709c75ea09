// The SQLite side of R7: pins and leases round-trip through real SQLite, survive a reopen, follow
// deleted connections, and migration 2 upgrades a version-1 database that already holds pins.
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { MIGRATIONS, runMigrations } from "../../../main/store/migrations.js";
import { connectionInput, openHarness, providerInput, type StoreHarness } from "./storeFixture.js";

describe("session pin and lease repositories (R7)", () => {
  let h: StoreHarness;
  afterEach(() => h?.cleanup());

  function seed() {
    h = openHarness();
    h.store.providers.create(providerInput("p"));
    h.store.connections.create(connectionInput("c1", "p"));
    h.store.connections.create(connectionInput("c2", "p"));
    return h.store.apiKeys.create({ name: "agent", scopes: ["lease:exclusive"], allowedConnections: ["c1"] }).info.id;
  }

  it("R7.1 pins persist across a reopen and go with their connection", () => {
    seed();
    h.store.sessionPins.save({ sessionKey: "s1", provider: "p", connectionId: "c1", expiresAt: 5, lastUsedAt: 4 });
    h.store.sessionPins.save({ sessionKey: "s1", provider: "p", connectionId: "c2", expiresAt: 9, lastUsedAt: 8 });
    h.store.sessionPins.save({ sessionKey: "s2", provider: "p", connectionId: "c1", expiresAt: 9, lastUsedAt: 8 });
    h.store.sessionPins.save({ sessionKey: "s3", provider: "p", connectionId: "gone", expiresAt: 9, lastUsedAt: 8 });
    expect(h.reopen().sessionPins.loadAll()).toEqual(
      expect.arrayContaining([
        { sessionKey: "s1", provider: "p", connectionId: "c2", expiresAt: 9, lastUsedAt: 8 },
        { sessionKey: "s2", provider: "p", connectionId: "c1", expiresAt: 9, lastUsedAt: 8 },
      ]),
    );
    h.store.connections.delete("c1");
    expect(h.store.sessionPins.loadAll().map((p) => p.sessionKey)).toEqual(["s1"]);
    h.store.sessionPins.delete("s1");
    expect(h.store.sessionPins.loadAll()).toEqual([]);
  });

  it("R7.2 leases persist with their state; one ACTIVE lease per connection; generations only grow", () => {
    const keyId = seed();
    const lease = { ownerHash: "h-a", keyId, connectionId: "c1", generation: 4, acquiredAt: 1, expiresAt: 2 };
    h.store.leases.save(lease);
    expect(() => h.store.leases.save({ ...lease, ownerHash: "h-b", generation: 5 })).toThrow(/UNIQUE/);
    expect(h.reopen().leases.loadActive()).toEqual([lease]);
    h.store.leases.end("h-a", "RELEASED", 3);
    expect(h.store.leases.loadActive()).toEqual([]);
    expect(h.store.leases.maxGeneration()).toBe(4);
    h.store.leases.save({ ...lease, ownerHash: "h-b", generation: 5 });
    expect(h.store.leases.loadActive().map((l) => l.ownerHash)).toEqual(["h-b"]);
    const row = h.raw().prepare("SELECT state, ended_at FROM session_leases WHERE owner_hash = 'h-a'").get();
    expect(row).toEqual({ state: "RELEASED", ended_at: 3 });
  });

  it("R0.3 migration 2 upgrades a version-1 database holding pins, and running it again changes nothing", () => {
    const db = new Database(":memory:");
    db.pragma("foreign_keys = OFF");
    runMigrations(
      db,
      MIGRATIONS.filter((m) => m.version === 1),
    );
    db.prepare("INSERT INTO session_account_affinity (session_key, provider, connection_id, expires_at) VALUES ('s', 'p', 'c', 9)").run();
    expect(
      runMigrations(
        db,
        MIGRATIONS.filter((m) => m.version <= 2),
      ),
    ).toBe(2);
    expect(db.prepare("SELECT last_used_at FROM session_account_affinity").get()).toEqual({ last_used_at: 0 });
    MIGRATIONS.find((m) => m.version === 2)!.up(db);
    expect(
      db
        .prepare<[], { name: string }>("PRAGMA table_info(session_account_affinity)")
        .all()
        .filter((c) => c.name === "last_used_at"),
    ).toHaveLength(1);
    db.close();
  });
});
