// Turns what happened to a request into the client's final error (R1.5, R11.5, D2, D4).
import { ERROR_CODES, type ErrorCode } from "../../../shared/errorCodes.js";
import type { Verdict, ConnectionExclusion, VerdictReason } from "../../engine/ports.js";

export interface Exclusion {
  target: string;
  reason:
    | "model_lockout"
    | "circuit_open"
    | "provider_cooldown"
    | "unavailable"
    | "terminal"
    | "inactive"
    | "tool_limit"
    | "budget"
    | "no_client_credential"
    /** R25.1: the prompt does not fit the target's known window while a larger one remains. */
    | "context_too_small";
  remainingMs: number | null;
  provider: string;
  /** The connection passed over, when the exclusion is about one (the request log's timeline). */
  connectionId?: string;
}

export interface FinalError {
  status: number;
  code: ErrorCode;
  message: string;
  retryAfterMs: number | null;
  /** x-should-retry: false — retrying cannot fix it (terminal, not found, bad request). */
  noRetry: boolean;
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
  /**
   * R21.5: a used-up subscription window (its name when known, "" otherwise): the answer says so in
   * the words the client's vendor uses (clientHalf.windowExhausted), so the agent tells its user.
   */
  window?: { name: string };
  /**
   * R25.2: the prompt did not fit any window left: the answer is the client's own vendor's context
   * error (clientHalf.contextOverflowMessage), with the prompt's tokens and the window when known.
   */
  context?: { tokens: number | null; window: number | null };
}

const TIMER_REASONS = new Set(["model_lockout", "circuit_open", "provider_cooldown", "unavailable", "budget"]);

export function exclusionFromConnection(provider: string, target: string, e: ConnectionExclusion): Exclusion {
  const reason = e.reason === "cooling_down" ? "unavailable" : e.reason === "model_lockout" ? "model_lockout" : e.reason === "terminal" ? "terminal" : "inactive";
  return { target, reason, remainingMs: e.remainingMs, provider, connectionId: e.connectionId };
}

function minRemaining(list: Exclusion[]): number | null {
  const values = list.map((e) => e.remainingMs).filter((v): v is number => typeof v === "number" && v > 0);
  return values.length ? Math.min(...values) : null;
}

/** R11.5: what no wait cures and no other try of the same target fixes: auth, quota, not found. */
const SKIPPED_REASONS = new Set<string>(["auth_error", "banned", "credits_exhausted", "quota_exhausted", "not_found", "model_not_found"]);
const SKIPPED_EXCLUSIONS = new Set<Exclusion["reason"]>(["terminal", "inactive"]);

/**
 * R11.5: a combo's every attempt failed, and every target passed over was excluded, on auth, quota
 * or not-found alone — whether the upstream said so at dispatch or the connection's state did before.
 */
export function onlySkipped(failureReasons: readonly string[], exclusions: readonly Exclusion[]): boolean {
  if (failureReasons.length === 0 && exclusions.length === 0) return false;
  return failureReasons.every((r) => SKIPPED_REASONS.has(r)) && exclusions.every((e) => SKIPPED_EXCLUSIONS.has(e.reason));
}

/** R11.5: no hint, since waiting does not help. */
export function allTargetsSkipped(): FinalError {
  return {
    status: ERROR_CODES.ALL_TARGETS_SKIPPED.status,
    code: "ALL_TARGETS_SKIPPED",
    message: "Every target was skipped (auth, quota or not found)",
    retryAfterMs: null,
    noRetry: true,
  };
}

/** No attempt was made: every target was excluded before dispatch. */
export function errorFromExclusions(exclusions: Exclusion[], targetCount: number, isCombo: boolean, providerConnectionCounts: Map<string, number>): FinalError {
  const timers = exclusions.filter((e) => TIMER_REASONS.has(e.reason));
  const breakerOnly = exclusions.length > 0 && exclusions.every((e) => e.reason === "circuit_open");
  if (breakerOnly && targetCount === 1 && !isCombo) {
    const e = exclusions[0];
    const retryAfterMs = e.remainingMs ?? 0;
    return {
      status: ERROR_CODES.provider_circuit_open.status,
      code: "provider_circuit_open",
      message: `Provider ${e.provider} is temporarily unavailable (circuit breaker open)`,
      retryAfterMs,
      noRetry: false,
      extra: { type: "server_error", provider: e.provider, retry_after: Math.ceil(retryAfterMs / 1000) },
      headers: { "X-OmniRoute-Provider-Breaker": "open" },
    };
  }
  if (timers.length > 0) {
    const retryAfterMs = minRemaining(timers);
    return {
      status: ERROR_CODES.all_targets_cooling_down.status,
      code: "all_targets_cooling_down",
      message: "Every target is cooling down; retry after the earliest one recovers",
      retryAfterMs,
      noRetry: false,
      extra: {
        diagnostics: {
          excluded: timers.map((e) => ({ target: e.target, reason: e.reason, remainingSeconds: Math.ceil((e.remainingMs ?? 0) / 1000) })),
        },
      },
    };
  }
  const terminal = exclusions.filter((e) => e.reason === "terminal");
  if (!isCombo && terminal.length > 0 && terminal.length === exclusions.length) {
    const provider = terminal[0].provider;
    const n = providerConnectionCounts.get(provider) ?? terminal.length;
    return {
      status: ERROR_CODES.unauthorized.status,
      code: "unauthorized",
      message: `All ${n} connection(s) for provider ${provider} are unavailable (expired, banned or out of credits)`,
      retryAfterMs: null,
      noRetry: true,
    };
  }
  if (!isCombo && exclusions.length > 0) {
    return {
      status: ERROR_CODES.no_executable_targets.status,
      code: "no_executable_targets",
      message: `No active credentials for provider: ${exclusions[0].provider}`,
      retryAfterMs: null,
      noRetry: true,
    };
  }
  if (isCombo && onlySkipped([], exclusions)) return allTargetsSkipped();
  return { status: ERROR_CODES.no_executable_targets.status, code: "no_executable_targets", message: "No executable target for this model", retryAfterMs: null, noRetry: true };
}

const CODE_BY_REASON: Record<VerdictReason, ErrorCode> = {
  rate_limit: "rate_limit_error",
  concurrency_limited: "rate_limit_error",
  quota_exhausted: "rate_limit_error",
  credits_exhausted: "credits_exhausted",
  auth_error: "unauthorized",
  banned: "unauthorized",
  request_rejected: "request_rejected",
  not_found: "model_not_found",
  model_not_found: "model_not_found",
  context_overflow: "context_length_exceeded",
  tool_limit: "tool_limit",
  bad_request: "invalid_request",
  server_error: "upstream_error",
  transport: "upstream_unreachable",
  timeout: "upstream_timeout",
  stream_stall: "stream_content_stall",
  stream_early_eof: "STREAM_EARLY_EOF",
  stream_throughput: "STREAM_THROUGHPUT_TOO_LOW",
};

/**
 * R25.6: a wait of at most this is one the client should take: Retry-After says it. A longer one is
 * never handed out as a Retry-After (Claude Code gives up past 60 s anyway): Switchyard holds the
 * request itself within waitOrSwitch.maxWaitMs, or refuses with `x-should-retry: false`.
 */
export const RETRY_SOON_MS = 60_000;

/** R25.6: whether a wait passes soon enough for the client to retry after it. */
export function passesSoon(waitMs: number | null | undefined): boolean {
  return typeof waitMs === "number" && waitMs <= RETRY_SOON_MS;
}

/**
 * R25.6: how long Switchyard holds a request whose answer would name a wait longer than a minute
 * (a 429/503 the client should retry), when its waits so far and this one stay within `maxWaitMs`;
 * null when the answer goes out now.
 */
export function holdsFor(err: FinalError, waitedMs: number, maxWaitMs: number): number | null {
  if (err.noRetry || (err.status !== 429 && err.status !== 503) || err.retryAfterMs === null || passesSoon(err.retryAfterMs)) return null;
  return waitedMs + err.retryAfterMs <= maxWaitMs ? err.retryAfterMs : null;
}

/** One failed attempt of the request's current pass over its targets (R25.6's precedence reads them all). */
export interface FailedAttempt {
  verdict: Verdict;
  /** `provider/model`: how many targets were tried is how many of these differ. */
  target: string;
  /** The upstream's own `x-should-retry` when it answered in the client's format (R25.6), else null. */
  upstreamShouldRetry: boolean | null;
}

/**
 * R25.6: which failure decides the answer when every target failed: the last 429; else the last
 * 401/403; else the last 404; else the last failure (a 5xx, a transport failure or a timeout).
 */
export function decidingFailure(failed: readonly FailedAttempt[]): FailedAttempt | null {
  const last = (match: (status: number) => boolean): FailedAttempt | null => {
    for (let i = failed.length - 1; i >= 0; i--) if (match(failed[i].verdict.status)) return failed[i];
    return null;
  };
  return last((s) => s === 429) ?? last((s) => s === 401 || s === 403) ?? last((s) => s === 404) ?? failed[failed.length - 1] ?? null;
}

/**
 * R25.6: the answer when every target failed, from the deciding failure: a server-side failure says
 * how many targets were tried; an upstream's `x-should-retry` in the client's format passes through.
 */
export function errorFromFailures(failed: readonly FailedAttempt[], earliestRecoveryMs: number | null): FinalError | null {
  const deciding = decidingFailure(failed);
  if (!deciding) return null;
  let err = errorFromVerdict(deciding.verdict, earliestRecoveryMs);
  if (err.status >= 500) {
    const tried = new Set(failed.map((f) => f.target)).size;
    err = { ...err, message: `${tried} target(s) tried, every one failed; the last: ${err.message}`, extra: { ...err.extra, targets_tried: tried } };
  }
  if (deciding.upstreamShouldRetry === false) return { ...err, noRetry: true };
  if (deciding.upstreamShouldRetry === true && !err.noRetry) return { ...err, headers: { ...err.headers, "x-should-retry": "true" } };
  return err;
}

/** D2: the code of the 502 Switchyard makes of an upstream 2xx whose body is not JSON. */
export const UPSTREAM_INVALID_JSON = "upstream_invalid_json" satisfies ErrorCode;

/** At least one attempt was made; the last verdict decides, the cooldowns give the hint. */
export function errorFromVerdict(verdict: Verdict, earliestRecoveryMs: number | null): FinalError {
  const rateLimited = verdict.reason === "rate_limit" || verdict.reason === "concurrency_limited" || verdict.reason === "quota_exhausted";
  // A restated 429 (R12.2) tells the client a fixed wait that is not an internal cooldown.
  const retryAfterMs = rateLimited || verdict.status >= 500 ? (verdict.clientRetryAfterMs ?? earliestRecoveryMs ?? verdict.retryHintMs) : null;
  const noRetry = verdict.terminal !== null || (verdict.status >= 400 && verdict.status < 500 && verdict.status !== 408 && verdict.status !== 429);
  // R21.4: a used-up subscription window says so, with the wait until its reset.
  // R25.6: a window that does not reset soon will not pass soon.
  if (verdict.window)
    return { status: 429, code: "window_exhausted", message: verdict.message, retryAfterMs, noRetry: !passesSoon(retryAfterMs), window: { name: verdict.window.name } };
  // R25.2: the agent compacts on its own vendor's context error, a 400 whatever the upstream said.
  if (verdict.reason === "context_overflow") {
    const context = { tokens: verdict.context?.tokens ?? null, window: verdict.context?.window ?? null };
    return { status: 400, code: "context_length_exceeded", message: verdict.message, retryAfterMs: null, noRetry: true, context };
  }
  return {
    status: verdict.status,
    code: verdict.errorCode === UPSTREAM_INVALID_JSON ? UPSTREAM_INVALID_JSON : CODE_BY_REASON[verdict.reason],
    message: verdict.message,
    retryAfterMs,
    noRetry,
  };
}
