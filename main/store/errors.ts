// Typed store failures with stable codes, so the API can map them to HTTP answers
// (conflict -> 409, unknown_provider -> 400/404) without parsing SQLite messages.
import { errorCode } from "../../shared/records.js";

export abstract class StoreError extends Error {
  abstract readonly code: string;
}

export class StoreSchemaTooNewError extends StoreError {
  readonly code = "schema_too_new";

  constructor(
    readonly found: number,
    readonly supported: number,
    readonly dbPath: string,
  ) {
    super(`database schema version ${found} is newer than this Switchyard supports (${supported}); ` + `upgrade Switchyard or use another --home (database: ${dbPath})`);
    this.name = "StoreSchemaTooNewError";
  }
}

export type StoreEntity = "provider" | "connection" | "combo" | "api_key";

export class StoreConflictError extends StoreError {
  readonly code = "conflict";

  constructor(
    readonly entity: StoreEntity,
    readonly id: string,
  ) {
    super(`${entity} "${id}" already exists`);
    this.name = "StoreConflictError";
  }
}

export class StoreReferenceError extends StoreError {
  readonly code = "unknown_provider";

  constructor(readonly provider: string) {
    super(`unknown provider "${provider}"`);
    this.name = "StoreReferenceError";
  }
}

/** better-sqlite3 reports constraint failures as SqliteError with an extended result code. */
export function isUniqueViolation(err: unknown): boolean {
  const code = errorCode(err);
  return code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "SQLITE_CONSTRAINT_UNIQUE";
}

export function isForeignKeyViolation(err: unknown): boolean {
  return errorCode(err) === "SQLITE_CONSTRAINT_FOREIGNKEY";
}
