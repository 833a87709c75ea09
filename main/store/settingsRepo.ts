// Key/value settings documents ("settings", "resilience"), stored as JSON text.
import type Database from "better-sqlite3";
import type { Clock } from "../engine/ports.js";
import { fromJson, toJson } from "./rows.js";
import type { SettingsRepo } from "./types.js";

export function createSettingsRepo(db: Database.Database, clock: Clock): SettingsRepo {
  const select = db.prepare<[string], { value: string }>("SELECT value FROM settings WHERE key = ?");
  const upsert = db.prepare<[string, string, number]>(
    `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  );

  return {
    getDocument<T = unknown>(key: string): T | null {
      const row = select.get(key);
      return row ? fromJson<T | null>(row.value) : null;
    },
    setDocument(key, value) {
      // undefined has no JSON form; storing null reads back exactly like an absent document.
      upsert.run(key, toJson(value ?? null), clock.now());
    },
  };
}
