// Connections (one account / key of a provider): operator config, the encrypted
// secret, and the engine-owned runtime fields of R4.1, each with its own writer.
import type Database from "better-sqlite3";
import type { Connection, ConnectionRuntime } from "../../shared/types.js";
import type { Clock } from "../engine/ports.js";
import { cachedRead, type WriteEpoch } from "./readCache.js";
import { StoreConflictError, StoreReferenceError, isForeignKeyViolation, isUniqueViolation } from "./errors.js";
import { definedOnly, fromFlag, fromJson, fromNullableFlag, toFlag, toJson, toNullableFlag } from "./rows.js";
import type { SecretCipher } from "./secrets.js";
import type { ConnectionInput, ConnectionRepo } from "./types.js";

interface ConnectionRow {
  id: string;
  provider: string;
  name: string;
  priority: number;
  weight: number;
  active: number;
  has_secret: number;
  max_concurrent: number | null;
  rate_limit_overrides: string;
  rate_limit_protection: number | null;
  provider_specific_data: string;
  disable_cooling: number;
  subscription: number;
  budget: string | null;
  credential: Connection["credential"];
  account_of: string | null;
  test_status: Connection["testStatus"];
  rate_limited_until: number | null;
  backoff_level: number;
  last_error: string | null;
  last_error_type: string | null;
  error_code: string | null;
  last_error_at: number | null;
  auth_failure_count: number;
  created_at: number;
  updated_at: number;
}

// The secret column is deliberately absent: a listed connection only learns whether one exists.
const COLUMNS = `id, provider, name, priority, weight, active, secret IS NOT NULL AS has_secret, max_concurrent,
  rate_limit_overrides, rate_limit_protection, provider_specific_data, disable_cooling, subscription, budget, credential, account_of, test_status,
  rate_limited_until, backoff_level, last_error, last_error_type, error_code, last_error_at,
  auth_failure_count, created_at, updated_at`;
const ORDER = "ORDER BY priority ASC, created_at ASC, id ASC";

const RUNTIME_COLUMNS: ReadonlyArray<[keyof ConnectionRuntime, string]> = [
  ["testStatus", "test_status"],
  ["rateLimitedUntil", "rate_limited_until"],
  ["backoffLevel", "backoff_level"],
  ["lastError", "last_error"],
  ["lastErrorType", "last_error_type"],
  ["errorCode", "error_code"],
  ["lastErrorAt", "last_error_at"],
  ["authFailureCount", "auth_failure_count"],
];

function toConnection(row: ConnectionRow): Connection {
  return {
    id: row.id,
    provider: row.provider,
    name: row.name,
    priority: row.priority,
    weight: row.weight,
    active: fromFlag(row.active),
    hasSecret: fromFlag(row.has_secret),
    maxConcurrent: row.max_concurrent,
    rateLimitOverrides: fromJson(row.rate_limit_overrides),
    rateLimitProtection: fromNullableFlag(row.rate_limit_protection),
    providerSpecificData: fromJson(row.provider_specific_data),
    disableCooling: fromFlag(row.disable_cooling),
    subscription: fromFlag(row.subscription),
    budget: row.budget ? fromJson(row.budget) : null,
    credential: row.credential,
    accountOf: row.account_of,
    testStatus: row.test_status,
    rateLimitedUntil: row.rate_limited_until,
    backoffLevel: row.backoff_level,
    lastError: row.last_error,
    lastErrorType: row.last_error_type,
    errorCode: row.error_code,
    lastErrorAt: row.last_error_at,
    authFailureCount: row.auth_failure_count,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

type ConfigFields = Omit<ConnectionInput, "id" | "provider">;

function configParams(id: string, c: ConfigFields, updatedAt: number): Record<string, unknown> {
  return {
    id,
    name: c.name,
    priority: c.priority,
    weight: c.weight,
    active: toFlag(c.active),
    max_concurrent: c.maxConcurrent,
    rate_limit_overrides: toJson(c.rateLimitOverrides),
    provider_specific_data: toJson(c.providerSpecificData),
    disable_cooling: toFlag(c.disableCooling),
    subscription: toFlag(c.subscription ?? false),
    budget: c.budget ? toJson(c.budget) : null,
    updated_at: updatedAt,
  };
}

/** One statement serves every partial runtime patch: each column is only overwritten when its flag is set. */
function runtimeUpdateSql(): string {
  const sets = RUNTIME_COLUMNS.map(([, col]) => `${col} = CASE WHEN @set_${col} THEN @${col} ELSE ${col} END`);
  return `UPDATE connections SET ${sets.join(", ")} WHERE id = @id`;
}

function runtimeParams(id: string, patch: Partial<ConnectionRuntime>): Record<string, unknown> {
  const params: Record<string, unknown> = { id };
  for (const [field, col] of RUNTIME_COLUMNS) {
    const value = patch[field];
    params[`set_${col}`] = value === undefined ? 0 : 1;
    params[col] = value === undefined ? null : value;
  }
  return params;
}

export function createConnectionRepo(db: Database.Database, clock: Clock, cipher: SecretCipher, epoch: WriteEpoch): ConnectionRepo {
  const selectAll = db.prepare<[], ConnectionRow>(`SELECT ${COLUMNS} FROM connections ${ORDER}`);
  const selectSecret = db.prepare<[string], { secret: string | null }>("SELECT secret FROM connections WHERE id = ?");
  const providerExists = db.prepare<[string], { found: number }>("SELECT 1 AS found FROM providers WHERE id = ?");
  const insert = db.prepare(
    `INSERT INTO connections (id, provider, name, priority, weight, active, secret, max_concurrent,
       rate_limit_overrides, rate_limit_protection, provider_specific_data, disable_cooling, subscription, budget, credential, account_of, test_status,
       backoff_level, auth_failure_count, created_at, updated_at)
     VALUES (@id, @provider, @name, @priority, @weight, @active, @secret, @max_concurrent,
       @rate_limit_overrides, NULL, @provider_specific_data, @disable_cooling, @subscription, @budget, @credential, @account_of, 'active',
       0, 0, @updated_at, @updated_at)`,
  );
  const updateConfig = db.prepare(
    `UPDATE connections SET name = @name, priority = @priority, weight = @weight, active = @active,
       max_concurrent = @max_concurrent, rate_limit_overrides = @rate_limit_overrides,
       provider_specific_data = @provider_specific_data, disable_cooling = @disable_cooling,
       subscription = @subscription, budget = @budget, updated_at = @updated_at
     WHERE id = @id`,
  );
  const updateSecret = db.prepare<[string | null, string]>("UPDATE connections SET secret = ? WHERE id = ?");
  // New credentials void every verdict earned by the old ones, terminal states included (R4.6).
  const resetRuntime = db.prepare<[string]>(
    `UPDATE connections SET test_status = 'active', rate_limited_until = NULL, backoff_level = 0,
       last_error = NULL, last_error_type = NULL, error_code = NULL, last_error_at = NULL,
       auth_failure_count = 0
     WHERE id = ?`,
  );
  const updateProtection = db.prepare<[0 | 1 | null, number, string]>("UPDATE connections SET rate_limit_protection = ?, updated_at = ? WHERE id = ?");
  const updateRuntime = db.prepare(runtimeUpdateSql());
  const remove = db.prepare<[string]>("DELETE FROM connections WHERE id = ?");

  const all = cachedRead(epoch, () => {
    const list = selectAll.all().map(toConnection);
    return { list, byId: new Map(list.map((c) => [c.id, c])) };
  });
  const get = (id: string): Connection | null => all().byId.get(id) ?? null;
  const decrypted = cachedRead(epoch, () => new Map<string, string | null>());
  /** Runs a write and retires the cached rows it may have changed. */
  const write = <T>(fn: () => T): T => {
    try {
      return fn();
    } finally {
      epoch.bump();
    }
  };

  const create = (input: ConnectionInput, secret?: string): Connection => {
    if (!providerExists.get(input.provider)) throw new StoreReferenceError(input.provider);
    const config: ConfigFields = {
      name: input.name ?? input.id,
      priority: input.priority ?? 0,
      weight: input.weight ?? 1,
      active: input.active ?? true,
      maxConcurrent: input.maxConcurrent ?? null,
      rateLimitOverrides: input.rateLimitOverrides ?? {},
      providerSpecificData: input.providerSpecificData ?? {},
      disableCooling: input.disableCooling ?? false,
      subscription: input.subscription ?? false,
      budget: input.budget ?? null,
    };
    try {
      write(() =>
        insert.run({
          ...configParams(input.id, config, clock.now()),
          provider: input.provider,
          credential: input.credential ?? "key",
          account_of: input.accountOf ?? null,
          // A client-login connection and a login's account never hold a secret (R21.1).
          secret: secret === undefined || input.credential === "client" ? null : cipher.encrypt(secret),
        }),
      );
    } catch (err) {
      if (isUniqueViolation(err)) throw new StoreConflictError("connection", input.id);
      if (isForeignKeyViolation(err)) throw new StoreReferenceError(input.provider);
      throw err;
    }
    return get(input.id)!;
  };

  const update = db.transaction((id: string, patch: Partial<ConfigFields>, secret?: string | null): Connection | null => {
    const current = get(id);
    if (!current) return null;
    const changes = definedOnly(patch) as Partial<ConnectionInput>;
    delete changes.id;
    delete changes.provider;
    delete changes.credential;
    delete changes.accountOf;
    write(() => {
      updateConfig.run(configParams(id, { ...current, ...changes }, clock.now()));
      if (secret === null) updateSecret.run(null, id);
      if (typeof secret === "string") {
        updateSecret.run(cipher.encrypt(secret), id);
        resetRuntime.run(id);
      }
    });
    return get(id);
  });

  return {
    list: (filter) => (filter?.provider === undefined ? [...all().list] : all().list.filter((c) => c.provider === filter.provider)),
    get,
    create,
    update: (id, patch, secret) => update.immediate(id, patch, secret),
    delete: (id) => write(() => remove.run(id).changes > 0),
    getSecret(id) {
      // Decrypting on every upstream call showed in profiles; the plaintext is in this process for
      // each call anyway, and the memo is dropped on every write (a new key, a deleted connection).
      const memo = decrypted();
      if (memo.has(id)) return memo.get(id)!;
      const row = selectSecret.get(id);
      const secret = row?.secret == null ? null : cipher.decrypt(row.secret);
      memo.set(id, secret);
      return secret;
    },
    setRateLimitProtection(id, enabled) {
      if (write(() => updateProtection.run(toNullableFlag(enabled), clock.now(), id)).changes === 0) return null;
      return get(id);
    },
    // Runtime writes leave updatedAt alone: it records operator edits, not traffic outcomes.
    updateRuntime(id, patch) {
      write(() => updateRuntime.run(runtimeParams(id, patch)));
    },
  };
}
