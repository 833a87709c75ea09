import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connectionInput, openHarness, providerInput, type StoreHarness } from "./storeFixture.js";

describe("store", () => {
  let h: StoreHarness;
  beforeEach(() => {
    h = openHarness();
  });
  afterEach(() => h.cleanup());

  it("R0.4 transaction commits all writes together", () => {
    const result = h.store.transaction(() => {
      h.store.providers.create(providerInput("p1"));
      h.store.connections.create(connectionInput("c1", "p1"), "k");
      return "done";
    });
    expect(result).toBe("done");
    expect(h.reopen().connections.getSecret("c1")).toBe("k");
  });

  it("R0.4 a read-then-write transaction holds the write lock from its start: another writer on the file waits for it", () => {
    // The request log's writer thread commits to the same file. A deferred transaction that read
    // before that commit could no longer write (SQLITE_BUSY_SNAPSHOT): the import would fail.
    const other = new Database(h.dbPath);
    other.pragma("busy_timeout = 0");
    let otherWrite: unknown = null;
    try {
      h.store.transaction(() => {
        expect(h.store.providers.list()).toEqual([]);
        try {
          other.prepare("INSERT INTO settings (key, value, updated_at) VALUES ('x', '1', 0)").run();
        } catch (err) {
          otherWrite = (err as { code?: string }).code;
        }
        h.store.providers.create(providerInput("p1"));
      });
    } finally {
      other.close();
    }
    expect(otherWrite).toBe("SQLITE_BUSY");
    expect(h.store.providers.list().map((p) => p.id)).toEqual(["p1"]);
  });

  it("R0.4 transaction rolls every write back when the function throws", () => {
    expect(() =>
      h.store.transaction(() => {
        h.store.providers.create(providerInput("p1"));
        h.store.combos.create({ name: "c", strategy: "priority", targets: [], config: {} });
        throw new Error("import failed halfway");
      }),
    ).toThrow("import failed halfway");
    expect(h.store.providers.list()).toEqual([]);
    expect(h.store.combos.list()).toEqual([]);
  });

  it("R0.4 a write read back inside a transaction that then rolls back is never served from memory", () => {
    h.store.providers.create(providerInput("p0"));
    expect(() =>
      h.store.transaction(() => {
        h.store.providers.update("p0", { baseUrl: "http://127.0.0.1:9/changed" });
        h.store.connections.create(connectionInput("c1", "p0"), "k");
        expect(h.store.providers.get("p0")?.baseUrl).toBe("http://127.0.0.1:9/changed");
        expect(h.store.connections.list().map((c) => c.id)).toEqual(["c1"]);
        throw new Error("rolled back");
      }),
    ).toThrow("rolled back");
    expect(h.store.providers.get("p0")?.baseUrl).toBe(providerInput("p0").baseUrl);
    expect(h.store.connections.list()).toEqual([]);
    expect(h.store.connections.getSecret("c1")).toBeNull();
  });

  it("R4.1 runtime updates are visible to the next read (the in-memory rows follow every write)", () => {
    h.store.providers.create(providerInput("p1"));
    h.store.connections.create(connectionInput("c1", "p1"), "k");
    expect(h.store.connections.get("c1")?.rateLimitedUntil).toBeNull();
    h.store.connections.updateRuntime("c1", { rateLimitedUntil: 123, backoffLevel: 2 });
    expect(h.store.connections.list({ provider: "p1" })[0]).toMatchObject({ rateLimitedUntil: 123, backoffLevel: 2 });
    h.store.providers.delete("p1");
    expect(h.store.connections.get("c1")).toBeNull();
  });

  it("R0.3 close is idempotent", () => {
    h.store.close();
    expect(() => h.store.close()).not.toThrow();
  });
});
