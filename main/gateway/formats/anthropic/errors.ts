// Anthropic error bodies (R1.5): the standard Anthropic type for the status, Switchyard's verdict in `code`.
import type { LateAnswer } from "../adapter.js";
import { statusForCode } from "../errors.js";
import { sseJson } from "../sse.js";

export function anthropicErrorType(status: number): string {
  switch (status) {
    case 401:
      return "authentication_error";
    case 402:
      return "billing_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 503:
    case 529:
      return "overloaded_error";
    default:
      return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

export function anthropicErrorBody(status: number, code: string, message: string, extra?: Record<string, unknown>): Record<string, unknown> {
  return { type: "error", error: { type: anthropicErrorType(status), message, code, ...extra } };
}

/** R25.2: Claude Code compacts on a 400 invalid_request_error whose message starts "prompt is too long". */
export function anthropicContextOverflow(tokens: number | null, window: number | null): string {
  if (tokens === null) return window === null ? "prompt is too long" : `prompt is too long: more than ${window} maximum`;
  return window === null ? `prompt is too long: ${tokens} tokens` : `prompt is too long: ${tokens} tokens > ${window} maximum`;
}

/**
 * A mid-stream `error` event, whose data is the error body. A late answer (R24.4) keeps the type of
 * the status it would have had and carries `retry_after` and `reset_at` in the error object.
 */
export function anthropicErrorFrame(code: string, message: string, _lastWritten?: string, late?: LateAnswer): string {
  return sseJson(anthropicErrorBody(late?.status ?? statusForCode(code), code, message, late?.extra), "error");
}
