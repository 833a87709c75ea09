// Pacing learned from the upstream (R9.4): a window that says "no requests left until T", or a
// body-stated retry delay, pauses the connection's limiter so the queued calls dispatch after it
// instead of walking into 429s. A stated delay longer than the queue budget does not pause: on a
// per-model limiter a typed Google RetryInfo becomes a model lockout (capped at 24 h) instead.
import { LOCKOUT_HINT_CAP_MS } from "../../../shared/resilienceSettings.js";
import type { Verdict } from "../ports.js";
export type PacingDecision = { kind: "pause"; until: number } | { kind: "lockout"; durationMs: number };

/** An upstream's request-count window as its format half read it from the answer's headers. */
export interface RequestWindow {
  remaining: number | null;
  resetAt: number | null;
}

/** The instant the upstream's request window reopens, when it says none is left; else null. */
export function pauseFromWindow(window: RequestWindow | null, now: number): number | null {
  if (!window || window.remaining !== 0) return null;
  const until = window.resetAt;
  return until !== null && until > now ? Math.min(until, now + LOCKOUT_HINT_CAP_MS) : null;
}

/** Throttling verdicts whose stated delay is worth waiting out; auth or request errors are not. */
const PACED_REASONS: ReadonlySet<Verdict["reason"]> = new Set(["rate_limit", "quota_exhausted", "concurrency_limited"]);

/** What a failed attempt's stated retry delay does to the limiter (R9.4). */
export function pacingFromVerdict(verdict: Verdict | null, maxWaitMs: number, perModel: boolean, now: number): PacingDecision | null {
  if (!verdict || !PACED_REASONS.has(verdict.reason)) return null;
  const hint = verdict.retryHintMs;
  if (hint === null || hint <= 0) return null;
  if (maxWaitMs === 0 || hint <= maxWaitMs) return { kind: "pause", until: now + Math.min(hint, LOCKOUT_HINT_CAP_MS) };
  if (perModel && verdict.retryHintPerModel === true) return { kind: "lockout", durationMs: Math.min(hint, LOCKOUT_HINT_CAP_MS) };
  return null;
}
