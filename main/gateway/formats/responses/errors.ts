// Responses errors: the JSON body is OpenAI's; a mid-stream error is a response.failed event,
// the one Codex reads (it ignores a bare `error` event and would then report only a closed stream).
// An answer decided after the headers (R24.4) carries its wait there as Codex reads a usage limit.

import type { LateAnswer } from "../adapter.js";
import { statusForCode } from "../errors.js";
import { sseJson } from "../sse.js";
import { openaiErrorType } from "../openai/errors.js";

/** API.md: the stored-turn refusals are invalid requests, whatever their status (R16.4). */
const INVALID_REQUEST_CODES = new Set(["response_not_found", "response_storage_off"]);

export function responsesErrorBody(status: number, code: string, message: string, extra?: Record<string, unknown>): Record<string, unknown> {
  const type = INVALID_REQUEST_CODES.has(code) ? "invalid_request_error" : openaiErrorType(status);
  return { error: { message, type, code, ...extra } };
}

/** R25.2: the Responses API's wording of `context_length_exceeded` (Codex reads the code), with the counts when known. */
export function responsesContextOverflow(tokens: number | null, window: number | null): string {
  const counts = tokens !== null && window !== null ? ` (${tokens} tokens > ${window} maximum)` : window !== null ? ` (${window} tokens)` : "";
  return `Your input exceeds the context window of this model${counts}. Please adjust your input and try again.`;
}

const SEQUENCE = /"sequence_number":(\d+)/g;

/** The number after the last one in `written` (the stream text the client got last), or 0. */
function nextSequenceNumber(written: string): number {
  let last = -1;
  for (const match of written.matchAll(SEQUENCE)) last = Number(match[1]);
  return last + 1;
}

/**
 * Written by the relay outside the stream's encoder: the last text the client got tells where the
 * stream's numbering stands, so response.failed continues it (0 when nothing was sent yet).
 */
export function responsesErrorFrame(code: string, message: string, lastWritten = "", late?: LateAnswer): string {
  const type = "response.failed";
  const error = { type: openaiErrorType(late?.status ?? statusForCode(code)), code, message, ...(late && lateErrorFields(late)) };
  return sseJson({ type, sequence_number: nextSequenceNumber(lastWritten), response: { object: "response", status: "failed", error, output: [], usage: null } }, type);
}

/**
 * R24.4: a late answer's wait, also as Codex reads a usage limit (`resets_at` epoch seconds,
 * `resets_in_seconds`), beside the body's fields (a used-up window's `usage_limit_reached` type).
 */
function lateErrorFields(late: LateAnswer): Record<string, unknown> {
  if (late.resetAt === null || late.retryAfterSeconds === null) return { ...late.extra };
  return { resets_at: Math.ceil(late.resetAt / 1000), resets_in_seconds: late.retryAfterSeconds, ...late.extra };
}
