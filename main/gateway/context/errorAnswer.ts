// What a final error says of its wait: the Retry-After seconds, a used-up window in its vendor's
// words (R21.5), the body fields of a 429 (R11.5), and the same facts for an answer decided after
// the stream's headers went out (R24.4). The client's response writes them; this only reckons them.
import type { WireFormat } from "../../../shared/types.js";
import { clientHalf } from "../formats/index.js";
import type { ClientHalf, LateAnswer } from "../formats/adapter.js";
import type { FinalError } from "./outcome.js";

/** A used-up window in its vendor's words: the headers and body fields of its answer. */
export type WindowAnswer = ReturnType<NonNullable<ClientHalf["windowExhausted"]>>;

/** The wait an error names, the instant it was reckoned at, and a used-up window's answer. */
export interface ErrorWait {
  retryAfterSeconds: number | null;
  now: number;
  windowAnswer: WindowAnswer | undefined;
}

/** The wait an error names, in whole seconds (at least 1), and a used-up window in its vendor's words (R21.5). */
export function waitOf(err: FinalError, format: WireFormat, now: number): ErrorWait {
  const retryAfterSeconds = err.retryAfterMs === null || err.retryAfterMs === undefined ? null : Math.max(1, Math.ceil(err.retryAfterMs / 1000));
  // Claude Code's unified headers, Codex's usage_limit_reached.
  const windowAnswer = err.window && retryAfterSeconds !== null ? clientHalf(format).windowExhausted?.(err.window.name, now + retryAfterSeconds * 1000, now) : undefined;
  return { retryAfterSeconds, now, windowAnswer };
}

/** R11.5: a final 429 names its wait in the body too, as whole seconds and as an instant. */
export function retryFields(err: FinalError, now: number, retryAfterSeconds: number | null): Record<string, unknown> | undefined {
  if (err.status !== 429 || retryAfterSeconds === null) return err.extra;
  return { ...err.extra, retry_after: retryAfterSeconds, reset_at: new Date(now + retryAfterSeconds * 1000).toISOString() };
}

/**
 * R24.4: a final answer decided after the stream's headers went out, as its status line and headers
 * would have said it. The wait is named whatever the status (a status line would carry Retry-After),
 * as `retry_after` and `reset_at` beside the fields the JSON body has (`windowExtra`: a used-up
 * window in its vendor's words).
 */
export function lateAnswer(err: FinalError, now: number, retryAfterSeconds: number | null, windowExtra?: Record<string, unknown>): LateAnswer {
  if (retryAfterSeconds === null) return { status: err.status, retryAfterSeconds: null, resetAt: null, extra: err.extra };
  const resetAt = now + retryAfterSeconds * 1000;
  return {
    status: err.status,
    retryAfterSeconds,
    resetAt,
    extra: { ...err.extra, retry_after: retryAfterSeconds, reset_at: new Date(resetAt).toISOString(), ...windowExtra },
  };
}

/** R24.4: the late answer of an error, its wait reckoned now. */
export function lateAnswerOf(err: FinalError, format: WireFormat, now: number): LateAnswer {
  const { retryAfterSeconds, windowAnswer } = waitOf(err, format, now);
  return lateAnswer(err, now, retryAfterSeconds, windowAnswer?.extra);
}
