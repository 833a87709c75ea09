// OpenAI error bodies (R1.5): the SDK's standard type for the status, Switchyard's verdict in `code`.
import type { LateAnswer } from "../adapter.js";
import { statusForCode } from "../errors.js";
import { sseJson } from "../sse.js";

export function openaiErrorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

export function openaiErrorBody(status: number, code: string, message: string, extra?: Record<string, unknown>): Record<string, unknown> {
  return { error: { message, type: openaiErrorType(status), code, ...extra } };
}

/** R25.2: OpenAI's own wording of `context_length_exceeded`. */
export function openaiContextOverflow(tokens: number | null, window: number | null): string {
  const limit = window === null ? "This model's maximum context length was exceeded." : `This model's maximum context length is ${window} tokens.`;
  const used = tokens === null ? "" : ` However, your messages resulted in ${tokens} tokens.`;
  return `${limit}${used} Please reduce the length of the messages.`;
}

/**
 * A mid-stream error chunk: the error body as a data line. A late answer (R24.4) keeps the status
 * it would have had and carries its `retry_after` and `reset_at` in the error object.
 */
export function openaiErrorFrame(code: string, message: string, _lastWritten?: string, late?: LateAnswer): string {
  return sseJson(openaiErrorBody(late?.status ?? statusForCode(code), code, message, late?.extra));
}
