// Opens the one SQLite file (R0.3): refuses a newer schema before touching the
// file, then sets the connection pragmas and brings the schema up to date.
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { StoreSchemaTooNewError } from "./errors.js";
import { CURRENT_SCHEMA_VERSION, readSchemaVersion, runMigrations } from "./migrations.js";

const BUSY_TIMEOUT_MS = 5_000;
const IN_MEMORY = ":memory:";

export function openDatabase(dbPath: string): Database.Database {
  if (dbPath !== IN_MEMORY) fs.mkdirSync(path.dirname(dbPath), { recursive: true, mode: 0o700 });
  const db = new Database(dbPath);
  try {
    // A second process (e.g. `switchyard export` next to a running gateway) waits instead of failing.
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    const found = readSchemaVersion(db);
    if (found > CURRENT_SCHEMA_VERSION) throw new StoreSchemaTooNewError(found, CURRENT_SCHEMA_VERSION, dbPath);
    db.pragma("journal_mode = WAL");
    // With WAL, NORMAL cannot corrupt the file; a power cut may only lose the last commits.
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    runMigrations(db);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
