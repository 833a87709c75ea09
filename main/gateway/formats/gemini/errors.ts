// Gemini error bodies (R1.5) follow Google's status shape; Switchyard's verdict is the ErrorInfo reason.
import type { LateAnswer } from "../adapter.js";
import { statusForCode } from "../errors.js";
import { sseJson } from "../sse.js";

function geminiStatus(status: number): string {
  switch (status) {
    case 401:
      return "UNAUTHENTICATED";
    case 403:
      return "PERMISSION_DENIED";
    case 404:
      return "NOT_FOUND";
    case 409:
      return "ABORTED";
    case 429:
      return "RESOURCE_EXHAUSTED";
    case 503:
      return "UNAVAILABLE";
    case 504:
      return "DEADLINE_EXCEEDED";
    default:
      return status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT";
  }
}

/**
 * R17.3: Google's error status shape, our verdict as the ErrorInfo reason, and on 429/503 with a
 * known wait a RetryInfo, which the Gemini CLI's retry loop reads as Google's own. The retry_after
 * and reset_at API.md adds to every final 429 stay beside them.
 */
export function geminiErrorBody(status: number, code: string, message: string, extra?: Record<string, unknown>, retryAfterSeconds?: number | null): Record<string, unknown> {
  const details: Record<string, unknown>[] = [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: code, domain: "switchyard" }];
  if ((status === 429 || status === 503) && typeof retryAfterSeconds === "number") {
    details.push({ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${retryAfterSeconds}s` });
  }
  return { error: { code: status, message, status: geminiStatus(status), details, ...extra } };
}

/** R25.2: Google's INVALID_ARGUMENT for a prompt over the model's input token limit, naming the counts. */
export function geminiContextOverflow(tokens: number | null, window: number | null): string {
  if (tokens !== null && window !== null) return `The input token count (${tokens}) exceeds the maximum number of tokens allowed (${window}).`;
  if (window !== null) return `The input token count exceeds the maximum number of tokens allowed (${window}).`;
  return tokens !== null
    ? `The input token count (${tokens}) exceeds the maximum number of tokens allowed.`
    : "The input token count exceeds the maximum number of tokens allowed.";
}

/**
 * A mid-stream error chunk: the error body as a data line (the element of a JSON-array stream). A
 * late answer (R24.4) keeps its status, states its wait as RetryInfo and carries `retry_after` and
 * `reset_at` in the error object.
 */
export function geminiErrorFrame(code: string, message: string, _lastWritten?: string, late?: LateAnswer): string {
  return sseJson(geminiErrorBody(late?.status ?? statusForCode(code), code, message, late?.extra, late?.retryAfterSeconds));
}
