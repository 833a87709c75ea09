// Stored Responses API turns (R16.4, table responses): what previous_response_id and
// GET/DELETE /v1/responses/{id} read. An expired turn is never returned; its row is deleted
// lazily, by the next save once a minute has passed since the last purge, so keeping turns costs
// no timer and a burst of turns costs one DELETE, not one each.
import type Database from "better-sqlite3";
import type { Clock } from "../engine/ports.js";
import { fromJson, toJson } from "./rows.js";
import type { StoredResponseRecord } from "../../shared/types.js";
import type { ResponsesRepo } from "./types.js";

/** Expired turns are looked for at most this often by `save`. */
const PURGE_INTERVAL_MS = 60_000;

interface ResponseRow {
  id: string;
  created_at: number;
  expires_at: number;
  model: string;
  connection_id: string | null;
  input_items: string;
  response: string;
}

function toRecord(row: ResponseRow): StoredResponseRecord {
  return {
    id: row.id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    model: row.model,
    connectionId: row.connection_id,
    inputItems: fromJson<unknown[]>(row.input_items),
    response: fromJson<Record<string, unknown>>(row.response),
  };
}

export function createResponsesRepo(db: Database.Database, clock: Clock): ResponsesRepo {
  const upsert = db.prepare<[ResponseRow]>(
    `INSERT OR REPLACE INTO responses (id, created_at, expires_at, model, connection_id, input_items, response)
     VALUES (@id, @created_at, @expires_at, @model, @connection_id, @input_items, @response)`,
  );
  const selectLive = db.prepare<[string, number], ResponseRow>(
    "SELECT id, created_at, expires_at, model, connection_id, input_items, response FROM responses WHERE id = ? AND expires_at > ?",
  );
  const remove = db.prepare<[string]>("DELETE FROM responses WHERE id = ?");
  // Served by the responses_by_expiry index: only the expired rows are visited.
  const removeExpired = db.prepare<[number]>("DELETE FROM responses WHERE expires_at <= ?");
  const cap = db.prepare<[number, number]>("UPDATE responses SET expires_at = created_at + ? WHERE expires_at > created_at + ?");
  // The first save after start-up purges: the process may have been down past many expiries.
  let lastPurgeAt = Number.NEGATIVE_INFINITY;

  const purgeExpired = (now: number): number => {
    lastPurgeAt = now;
    return removeExpired.run(now).changes;
  };

  return {
    save(entry) {
      const now = clock.now();
      if (now - lastPurgeAt >= PURGE_INTERVAL_MS) purgeExpired(now);
      upsert.run({
        id: entry.id,
        created_at: entry.createdAt,
        expires_at: entry.expiresAt,
        model: entry.model,
        connection_id: entry.connectionId,
        input_items: toJson(entry.inputItems),
        response: toJson(entry.response),
      });
    },
    get(id, now) {
      const row = selectLive.get(id, now);
      return row ? toRecord(row) : null;
    },
    delete: (id) => remove.run(id).changes > 0,
    purgeExpired,
    capRetention(ms) {
      if (!Number.isInteger(ms) || ms < 0) throw new RangeError(`responses retention must be a non-negative integer of ms (got ${ms})`);
      cap.run(ms, ms);
      purgeExpired(clock.now());
    },
  };
}
