// Typed management failures with stable codes. Both transports (HTTP, IPC) render an ApiError
// as the ContractError shape `{error:{code, message, path?}}`; anything else is an internal error.
import type { ZodError } from "zod";
import type { ContractError } from "../../shared/contract.js";
import type { ErrorCode, StatusOf } from "../../shared/errorCodes.js";
import { errorCode } from "../../shared/records.js";

/** A code of the catalogue (shared/errorCodes.ts), sent with the status the catalogue gives it. */
export class ApiError<C extends ErrorCode = ErrorCode> extends Error {
  readonly status: number;

  constructor(
    status: StatusOf<C>,
    readonly code: C,
    message: string,
    /** Dotted field path of the offending input ("targets.0.model"), when there is one. */
    readonly path?: string,
  ) {
    super(message);
    this.status = status;
    this.name = "ApiError";
  }

  toJSON(): ContractError {
    return { error: { code: this.code, message: this.message, ...(this.path !== undefined ? { path: this.path } : {}) } };
  }
}

export function invalidRequest(message: string, path?: string): ApiError {
  return new ApiError(400, "invalid_request", message, path);
}

export function notFound(entity: string, id: string): ApiError {
  return new ApiError(404, "not_found", `${entity} "${id}" not found`);
}

export function conflict(message: string, path?: string): ApiError {
  return new ApiError(409, "conflict", message, path);
}

export function unknownProvider(provider: string, path: string): ApiError {
  return new ApiError(400, "unknown_provider", `unknown provider "${provider}"`, path);
}

/** Joins a zod issue path the way every error of this API names a field. */
export function joinPath(path: ReadonlyArray<PropertyKey>): string {
  return path.map((segment) => String(segment)).join(".");
}

/** The first issue decides the answer; `prefix` re-roots paths of a nested document. */
export function fromZodError(err: ZodError, prefix = ""): ApiError {
  const issue = err.issues[0];
  // An unknown key is reported on its parent; naming the key itself is what a caller needs.
  const keys = issue?.code === "unrecognized_keys" ? issue.keys.slice(0, 1) : [];
  const path = [prefix, joinPath([...(issue?.path ?? []), ...keys])].filter((part) => part !== "").join(".");
  const message = issue ? (path ? `${path}: ${issue.message}` : issue.message) : "invalid input";
  return invalidRequest(message, path);
}

/**
 * Store failures carry stable codes (main/store/errors.ts); matching on the code rather than
 * the class keeps the API independent of which store implementation raised them.
 */
export function fromStoreError(err: unknown, path?: string): unknown {
  const code = errorCode(err);
  const message = err instanceof Error ? err.message : String(err);
  if (code === "conflict") return new ApiError(409, "conflict", message, path);
  if (code === "unknown_provider") return new ApiError(400, "unknown_provider", message, path);
  return err;
}
