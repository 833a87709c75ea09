// The final errors of local admission (API.md): they end the request in the client's format and
// never count against the provider (no breaker, no cooldown, no lockout: the pipeline records them
// as neutral).
import type { FinalError } from "../outcome.js";

export type LocalLimitCode =
  | "RATE_LIMIT_QUEUE_FULL"
  | "RATE_LIMIT_QUEUE_TIMEOUT"
  | "RATE_LIMIT_EXECUTION_TIMEOUT"
  | "SEMAPHORE_TIMEOUT"
  | "SEMAPHORE_QUEUE_FULL";

const STATUS: Record<LocalLimitCode, number> = {
  RATE_LIMIT_QUEUE_FULL: 429,
  RATE_LIMIT_QUEUE_TIMEOUT: 503,
  RATE_LIMIT_EXECUTION_TIMEOUT: 504,
  SEMAPHORE_TIMEOUT: 503,
  SEMAPHORE_QUEUE_FULL: 503,
};

export function localLimitError(code: LocalLimitCode, message: string, retryAfterMs: number | null): FinalError {
  return { status: STATUS[code], code, message, retryAfterMs, noRetry: false };
}
