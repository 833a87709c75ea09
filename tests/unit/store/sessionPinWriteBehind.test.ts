// Session pins are written behind the request path (issue 12): the latest pin per session reaches
// SQLite in one transaction a moment later, and a close never loses one.
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
      return db.prepare("SELECT session_key, connection_id FROM session_account_affinity ORDER BY session_key").all();
    } finally {
      db.close();
    }
  };

  it("R7.1 a served pin reaches SQLite a moment later, only its latest state, and on close at once", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    h = openHarness();
    h.store.providers.create(providerInput("p"));
    h.store.connections.create(connectionInput("c1", "p"));
    h.store.connections.create(connectionInput("c2", "p"));
    h.store.sessionPins.save({ sessionKey: "s1", provider: "p", connectionId: "c1", expiresAt: 5, lastUsedAt: 4 });
    h.store.sessionPins.save({ sessionKey: "s1", provider: "p", connectionId: "c2", expiresAt: 9, lastUsedAt: 8 });
    expect(rows()).toEqual([]);
    vi.advanceTimersByTime(1_000);
    expect(rows()).toEqual([{ session_key: "s1", connection_id: "c2" }]);
    h.store.sessionPins.save({ sessionKey: "s2", provider: "p", connectionId: "c1", expiresAt: 9, lastUsedAt: 8 });
    h.store.close();
    expect(rows()).toEqual([{ session_key: "s1", connection_id: "c2" }, { session_key: "s2", connection_id: "c1" }]);
  });
});
