// Stored Responses API turns (R16.4) on a real SQLite file: what is saved reads back as it was,
// an expired turn is never returned and its row goes lazily, and the table survives a reopen.
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CURRENT_SCHEMA_VERSION } from "../../../main/store/index.js";
import { MIGRATIONS, readSchemaVersion } from "../../../main/store/migrations.js";
import type { StoredResponseRecord } from "../../../shared/types.js";
import { openHarness, type StoreHarness } from "./storeFixture.js";

const HOUR = 3_600_000;

function turn(id: string, createdAt: number, hours = 24, overrides: Partial<StoredResponseRecord> = {}): StoredResponseRecord {
  return {
    id,
    createdAt,
    expiresAt: createdAt + hours * HOUR,
    model: "sim/m1",
    connectionId: "c1",
    inputItems: [{ type: "message", role: "user", content: [{ type: "input_text", text: `question ${id}` }] }],
    response: { id, object: "response", status: "completed", output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text: "answer" }] }] },
    ...overrides,
  };
}

function rowCount(h: StoreHarness): number {
  const db = h.raw();
  try {
    return (db.prepare("SELECT COUNT(*) AS n FROM responses").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe("responses repository", () => {
  let h: StoreHarness;
  beforeEach(() => {
    h = openHarness();
  });
  afterEach(() => h.cleanup());

  it("R16.4 a saved turn reads back exactly as saved, connection and JSON items included", () => {
    const saved = turn("resp_a", h.clock.now(), 24, { connectionId: null, inputItems: [{ type: "function_call_output", call_id: "x", output: "ü ✓" }] });
    h.store.responses.save(saved);
    expect(h.store.responses.get("resp_a", h.clock.now())).toEqual(saved);
    expect(h.store.responses.get("resp_missing", h.clock.now())).toBeNull();
  });

  it("R16.4 saving the same id again replaces the turn", () => {
    h.store.responses.save(turn("resp_a", h.clock.now()));
    h.store.responses.save(turn("resp_a", h.clock.now(), 24, { model: "other/m2" }));
    expect(h.store.responses.get("resp_a", h.clock.now())?.model).toBe("other/m2");
    expect(rowCount(h)).toBe(1);
  });

  it("R16.4 a turn is not returned from its expiry on, even before its row is purged", () => {
    const t0 = h.clock.now();
    h.store.responses.save(turn("resp_a", t0, 1));
    expect(h.store.responses.get("resp_a", t0 + HOUR - 1)).not.toBeNull();
    expect(h.store.responses.get("resp_a", t0 + HOUR)).toBeNull();
    expect(rowCount(h)).toBe(1);
  });

  it("R16.4 delete removes the turn and says whether there was one", () => {
    h.store.responses.save(turn("resp_a", h.clock.now()));
    expect(h.store.responses.delete("resp_a")).toBe(true);
    expect(h.store.responses.get("resp_a", h.clock.now())).toBeNull();
    expect(h.store.responses.delete("resp_a")).toBe(false);
  });

  it("R16.4 purgeExpired deletes only the expired turns and counts them", () => {
    const t0 = h.clock.now();
    h.store.responses.save(turn("resp_short", t0, 1));
    h.store.responses.save(turn("resp_shorter", t0 - HOUR, 1));
    h.store.responses.save(turn("resp_long", t0, 48));
    expect(h.store.responses.purgeExpired(t0 + 2 * HOUR)).toBe(2);
    expect(rowCount(h)).toBe(1);
    expect(h.store.responses.get("resp_long", t0 + 2 * HOUR)).not.toBeNull();
    expect(h.store.responses.purgeExpired(t0 + 2 * HOUR)).toBe(0);
  });

  it("R16.4 save purges expired turns on the way, at most once a minute", () => {
    const t0 = h.clock.now();
    // The first save since start-up purges; resp_old is still live then.
    h.store.responses.save(turn("resp_old", t0, 1, { expiresAt: t0 + 10_000 }));
    h.clock.advance(30_000);
    h.store.responses.save(turn("resp_1", h.clock.now()));
    expect(rowCount(h)).toBe(2);
    h.clock.advance(30_000);
    h.store.responses.save(turn("resp_2", h.clock.now()));
    expect(rowCount(h)).toBe(2);
    expect(h.store.responses.get("resp_1", h.clock.now())).not.toBeNull();
  });

  it("R16.4 capRetention shortens the turns already stored, and 0 erases them all", () => {
    const t0 = h.clock.now();
    h.store.responses.save(turn("resp_new", t0, 24));
    h.store.responses.save(turn("resp_older", t0 - 2 * HOUR, 24));
    h.store.responses.capRetention(HOUR);
    expect(h.store.responses.get("resp_new", t0)?.expiresAt).toBe(t0 + HOUR);
    expect(h.store.responses.get("resp_older", t0)).toBeNull();
    expect(rowCount(h)).toBe(1);
    h.store.responses.capRetention(0);
    expect(rowCount(h)).toBe(0);
    expect(() => h.store.responses.capRetention(-1)).toThrow(RangeError);
  });

  it("R0.3 R16.4 the responses table and its rows survive a reopen; the migration re-runs as a no-op", () => {
    const saved = turn("resp_a", h.clock.now());
    h.store.responses.save(saved);
    const schemaBefore = (() => {
      const db = h.raw();
      try {
        return db.prepare("SELECT type, name, sql FROM sqlite_master WHERE tbl_name = 'responses' ORDER BY name").all();
      } finally {
        db.close();
      }
    })();
    expect(schemaBefore.map((r) => (r as { name: string }).name)).toEqual(["responses", "responses_by_expiry", "sqlite_autoindex_responses_1"]);

    h.reopen();
    expect(h.store.responses.get("resp_a", h.clock.now())).toEqual(saved);
    h.store.close();
    const db = new Database(h.dbPath);
    try {
      expect(readSchemaVersion(db)).toBe(CURRENT_SCHEMA_VERSION);
      MIGRATIONS.find((m) => m.version === 5)!.up(db);
      expect(db.prepare("SELECT type, name, sql FROM sqlite_master WHERE tbl_name = 'responses' ORDER BY name").all()).toEqual(schemaBefore);
      expect((db.prepare("SELECT COUNT(*) AS n FROM responses").get() as { n: number }).n).toBe(1);
    } finally {
      db.close();
    }
    h.reopen();
  });
});
