// Client API keys (R1.7): the plain key leaves the store exactly once, at creation;
// only its SHA-256 is kept, and presented keys are looked up by that hash.
import type Database from "better-sqlite3";
import { createHash, randomBytes } from "node:crypto";
import { CLIENT_KEY_PREFIX } from "../../shared/catalog.js";
import type { ApiKeyInfo } from "../../shared/types.js";
import type { Clock } from "../engine/ports.js";
import { StoreConflictError, isUniqueViolation } from "./errors.js";
import { fromJson, toJson } from "./rows.js";
import type { ApiKeyRepo } from "./types.js";

/** 24 random bytes encode to exactly 32 base64url characters. */
const KEY_RANDOM_BYTES = 24;
/** 9 random bytes encode to exactly 12 base64url characters. */
const ID_RANDOM_BYTES = 9;
const VISIBLE_PREFIX_LENGTH = 10;

interface ApiKeyRow {
  id: string;
  name: string;
  prefix: string;
  scopes: string;
  allowed_connections: string;
  created_at: number;
  last_used_at: number | null;
  budget: string | null;
}

function toInfo(row: ApiKeyRow): ApiKeyInfo {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: fromJson(row.scopes),
    allowedConnections: fromJson(row.allowed_connections),
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    budget: row.budget ? fromJson(row.budget) : null,
  };
}

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

const COLUMNS = "id, name, prefix, scopes, allowed_connections, created_at, last_used_at, budget";

export function createApiKeyRepo(db: Database.Database, clock: Clock): ApiKeyRepo {
  const selectAll = db.prepare<[], ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys ORDER BY created_at, id`);
  const selectByHash = db.prepare<[string], ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE key_hash = ?`);
  const insert = db.prepare(
    `INSERT INTO api_keys (id, name, prefix, key_hash, scopes, allowed_connections, created_at, last_used_at, budget)
     VALUES (@id, @name, @prefix, @key_hash, @scopes, @allowed_connections, @created_at, NULL, @budget)`,
  );
  const selectById = db.prepare<[string], ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = ?`);
  const updateRow = db.prepare<[string, string | null, string]>("UPDATE api_keys SET name = ?, budget = ? WHERE id = ?");
  const touch = db.prepare<[number, string]>("UPDATE api_keys SET last_used_at = ? WHERE id = ?");
  const remove = db.prepare<[string]>("DELETE FROM api_keys WHERE id = ?");

  return {
    list: () => selectAll.all().map(toInfo),
    create(input) {
      const key = input.key ?? CLIENT_KEY_PREFIX + randomBytes(KEY_RANDOM_BYTES).toString("base64url");
      const info: ApiKeyInfo = {
        id: "key_" + randomBytes(ID_RANDOM_BYTES).toString("base64url"),
        name: input.name,
        prefix: key.slice(0, VISIBLE_PREFIX_LENGTH),
        scopes: [...input.scopes],
        allowedConnections: [...input.allowedConnections],
        createdAt: clock.now(),
        lastUsedAt: null,
        budget: input.budget ?? null,
      };
      try {
        insert.run({
          id: info.id,
          name: info.name,
          prefix: info.prefix,
          key_hash: hashApiKey(key),
          scopes: toJson(info.scopes),
          allowed_connections: toJson(info.allowedConnections),
          created_at: info.createdAt,
          budget: info.budget ? toJson(info.budget) : null,
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw new StoreConflictError("api_key", info.id);
        throw err;
      }
      return { info, key };
    },
    delete: (id) => remove.run(id).changes > 0,
    get(id) {
      const row = selectById.get(id);
      return row ? toInfo(row) : null;
    },
    update(id, patch) {
      const row = selectById.get(id);
      if (!row) return null;
      const current = toInfo(row);
      const budget = patch.budget === undefined ? current.budget : patch.budget;
      updateRow.run(patch.name ?? current.name, budget ? toJson(budget) : null, id);
      return toInfo(selectById.get(id)!);
    },
    verify(key) {
      const row = selectByHash.get(hashApiKey(key));
      if (!row) return null;
      const now = clock.now();
      touch.run(now, row.id);
      return { ...toInfo(row), lastUsedAt: now };
    },
  };
}
