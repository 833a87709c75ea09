// Session pins (issue 12): a session's first pin is written at once (it survives a crash); a pin
// that is extended or moved reaches SQLite a moment later, the latest state per session, and on close.
import Database from "better-sqlite3";
import { afterEach, describe, expect, it, vi } from "vitest";
import { connectionInput, openHarness, providerInput, type StoreHarness } from "./storeFixture.js";

describe("session pin write-behind", () => {
  let h: StoreHarness;
  afterEach(() => {
    vi.useRealTimers();
    h?.cleanup();
  });

  const rows = () => {
    const db = new Database(h.dbPath, { readonly: true });
    try {
      return db.prepare("SELECT session_key, connection_id, expires_at FROM session_account_affinity ORDER BY session_key").all();
    } finally {
      db.close();
    }
  };

  it("R7.1 a new pin is stored at once; an extension or a move a moment later, and at once on close", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    h = openHarness();
    h.store.providers.create(providerInput("p"));
    h.store.connections.create(connectionInput("c1", "p"));
    h.store.connections.create(connectionInput("c2", "p"));
    const pins = h.store.sessionPins;
    pins.save({ sessionKey: "s1", provider: "p", connectionId: "c1", expiresAt: 5, lastUsedAt: 4 });
    expect(rows()).toEqual([{ session_key: "s1", connection_id: "c1", expires_at: 5 }]);
    pins.save({ sessionKey: "s1", provider: "p", connectionId: "c1", expiresAt: 7, lastUsedAt: 6 });
    pins.save({ sessionKey: "s1", provider: "p", connectionId: "c1", expiresAt: 9, lastUsedAt: 8 });
    expect(rows()).toEqual([{ session_key: "s1", connection_id: "c1", expires_at: 5 }]);
    vi.advanceTimersByTime(1_000);
    expect(rows()).toEqual([{ session_key: "s1", connection_id: "c1", expires_at: 9 }]);
    pins.save({ sessionKey: "s1", provider: "p", connectionId: "c2", expiresAt: 11, lastUsedAt: 10 });
    expect(rows()).toEqual([{ session_key: "s1", connection_id: "c1", expires_at: 9 }]);
    vi.advanceTimersByTime(1_000);
    expect(rows()).toEqual([{ session_key: "s1", connection_id: "c2", expires_at: 11 }]);
    pins.save({ sessionKey: "s1", provider: "p", connectionId: "c1", expiresAt: 13, lastUsedAt: 12 });
    pins.save({ sessionKey: "s2", provider: "p", connectionId: "c2", expiresAt: 14, lastUsedAt: 13 });
    expect(rows()).toEqual([
      { session_key: "s1", connection_id: "c2", expires_at: 11 },
      { session_key: "s2", connection_id: "c2", expires_at: 14 },
    ]);
    h.store.close();
    expect(rows()).toEqual([
      { session_key: "s1", connection_id: "c1", expires_at: 13 },
      { session_key: "s2", connection_id: "c2", expires_at: 14 },
    ]);
  });
});
