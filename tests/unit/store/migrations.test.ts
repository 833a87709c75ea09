import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../../main/store/database.js";
import { CURRENT_SCHEMA_VERSION, StoreSchemaTooNewError, createFileKeyCipher, createStore } from "../../../main/store/index.js";
import { MIGRATIONS, readSchemaVersion, runMigrations, type Migration } from "../../../main/store/migrations.js";
import { makeTempHome, providerInput } from "./storeFixture.js";

const EXPECTED_TABLES = [
  "api_keys",
  "combos",
  "connections",
  "domain_circuit_breakers",
  "model_windows",
  "providers",
  "reasoning_provenance",
  "request_log",
  "responses",
  "session_account_affinity",
  "session_leases",
  "settings",
  "usage_quota_sessions",
  "usage_quotas",
  "usage_rollup",
];

function schemaOf(db: Database.Database): unknown[] {
  return db.prepare("SELECT type, name, sql FROM sqlite_master ORDER BY type, name").all();
}

describe("store schema migrations", () => {
  const homes: string[] = [];
  const tempHome = () => {
    const home = makeTempHome();
    homes.push(home);
    return home;
  };
  afterEach(() => {
    for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
  });

  it("R0.3 numbers migrations from 1 in strictly increasing order", () => {
    expect(MIGRATIONS[0].version).toBe(1);
    MIGRATIONS.forEach((m, i) => {
      if (i > 0) expect(m.version).toBeGreaterThan(MIGRATIONS[i - 1].version);
    });
    expect(CURRENT_SCHEMA_VERSION).toBe(MIGRATIONS[MIGRATIONS.length - 1].version);
  });

  it("R0.3 creates every table in one SQLite file and records the schema version", () => {
    const home = tempHome();
    const dbPath = path.join(home, "nested", "switchyard.db");
    createStore({ dbPath, cipher: createFileKeyCipher(home) }).close();
    const db = new Database(dbPath, { readonly: true });
    const tables = db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all()
      .map((r) => r.name);
    expect(tables).toEqual(EXPECTED_TABLES);
    expect(readSchemaVersion(db)).toBe(CURRENT_SCHEMA_VERSION);
    db.close();
  });

  it("R0.3 re-running migrations on an up-to-date database changes nothing", () => {
    const home = tempHome();
    const dbPath = path.join(home, "switchyard.db");
    const store = createStore({ dbPath, cipher: createFileKeyCipher(home) });
    store.providers.create(providerInput("p1"));
    store.close();

    const db = new Database(dbPath);
    const before = schemaOf(db);
    expect(runMigrations(db)).toBe(CURRENT_SCHEMA_VERSION);
    expect(runMigrations(db)).toBe(CURRENT_SCHEMA_VERSION);
    expect(schemaOf(db)).toEqual(before);
    expect(readSchemaVersion(db)).toBe(CURRENT_SCHEMA_VERSION);
    db.close();

    const reopened = createStore({ dbPath, cipher: createFileKeyCipher(home) });
    expect(reopened.providers.list().map((p) => p.id)).toEqual(["p1"]);
    reopened.close();
  });

  it("R0.3 applies only pending migrations, each in its own transaction", () => {
    const db = new Database(":memory:");
    const applied: number[] = [];
    const steps: Migration[] = [
      {
        version: 1,
        up: (d) => {
          applied.push(1);
          d.exec("CREATE TABLE a (x INTEGER)");
        },
      },
      {
        version: 2,
        up: (d) => {
          applied.push(2);
          d.exec("ALTER TABLE a ADD COLUMN y TEXT");
        },
      },
    ];
    expect(runMigrations(db, steps.slice(0, 1))).toBe(1);
    expect(runMigrations(db, steps)).toBe(2);
    expect(runMigrations(db, steps)).toBe(2);
    expect(applied).toEqual([1, 2]);

    const failing: Migration = {
      version: 3,
      up: (d) => {
        d.exec("CREATE TABLE b (x INTEGER)");
        throw new Error("boom");
      },
    };
    expect(() => runMigrations(db, [...steps, failing])).toThrow("boom");
    expect(readSchemaVersion(db)).toBe(2);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'b'").get()).toBeUndefined();
    db.close();
  });

  it("R0.3 refuses a database with a newer schema and leaves the file untouched", () => {
    const home = tempHome();
    const dbPath = path.join(home, "switchyard.db");
    const future = CURRENT_SCHEMA_VERSION + 5;
    const seed = new Database(dbPath);
    seed.pragma(`user_version = ${future}`);
    seed.close();

    let caught: unknown;
    try {
      createStore({ dbPath, cipher: createFileKeyCipher(home) });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(StoreSchemaTooNewError);
    const err = caught as StoreSchemaTooNewError;
    expect(err.code).toBe("schema_too_new");
    expect(err.found).toBe(future);
    expect(err.supported).toBe(CURRENT_SCHEMA_VERSION);
    expect(err.message).toContain(
      `database schema version ${future} is newer than this Switchyard supports (${CURRENT_SCHEMA_VERSION}); ` + "upgrade Switchyard or use another --home",
    );

    const check = new Database(dbPath, { readonly: true });
    expect(readSchemaVersion(check)).toBe(future);
    expect(check.pragma("journal_mode", { simple: true })).toBe("delete");
    expect(check.prepare("SELECT count(*) AS n FROM sqlite_master").get()).toEqual({ n: 0 });
    check.close();
  });

  it("R0.3 opens the file in WAL mode with foreign keys enforced and a busy timeout", () => {
    const home = tempHome();
    const dbPath = path.join(home, "switchyard.db");
    const db = openDatabase(dbPath);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(db.pragma("busy_timeout", { simple: true })).toBeGreaterThan(0);
    db.close();

    const again = new Database(dbPath, { readonly: true });
    expect(again.pragma("journal_mode", { simple: true })).toBe("wal");
    again.close();
  });
});
