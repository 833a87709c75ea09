// The final errors of local admission (API.md): they end the request in the client's format and
// never count against the provider (no breaker, no cooldown, no lockout: the pipeline records them
// as neutral).
import { ERROR_CODES } from "../../../../shared/errorCodes.js";
import type { FinalError } from "../../context/outcome.js";

export type LocalLimitCode = "RATE_LIMIT_QUEUE_FULL" | "RATE_LIMIT_QUEUE_TIMEOUT" | "RATE_LIMIT_EXECUTION_TIMEOUT" | "SEMAPHORE_TIMEOUT" | "SEMAPHORE_QUEUE_FULL";

export function localLimitError(code: LocalLimitCode, message: string, retryAfterMs: number | null): FinalError {
  return { status: ERROR_CODES[code].status, code, message, retryAfterMs, noRetry: false };
}
