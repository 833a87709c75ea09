// One error type for every failed contract call, whichever transport carried it, so pages can
// show `code` and `message` and the session can react to 401 without knowing about HTTP or IPC.
import { isRecord } from "../../shared/records.js";

export class ContractCallError extends Error {
  readonly code: string;
  /** HTTP status when the call went over HTTP; null over IPC or before any response. */
  readonly status: number | null;
  /** Field path of a validation failure, when the server named one. */
  readonly path: string | null;

  constructor(code: string, message: string, status: number | null = null, path: string | null = null) {
    super(message);
    this.name = "ContractCallError";
    this.code = code;
    this.status = status;
    this.path = path;
  }
}

/** Reads a `ContractError` (`{error:{code,message,path?}}`) or anything else into a ContractCallError. */
export function toContractCallError(reason: unknown, status: number | null = null): ContractCallError {
  if (reason instanceof ContractCallError) return reason;
  const body = isRecord(reason) && isRecord(reason.error) ? reason.error : null;
  if (body) {
    const code = typeof body.code === "string" ? body.code : status === null ? "error" : `http_${status}`;
    const message = typeof body.message === "string" ? body.message : code;
    const path = typeof body.path === "string" ? body.path : null;
    return new ContractCallError(code, message, status, path);
  }
  if (reason instanceof Error) return new ContractCallError("transport_error", reason.message, status);
  return new ContractCallError(status === null ? "error" : `http_${status}`, String(reason), status);
}
