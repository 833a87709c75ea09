// classifyUpstreamFailure (R12.1): one typed upstream failure (failure.ts) -> one Verdict. Pure.
// An answer's order: restatement (R12.2) -> operator rule (R12.4: the operator's more specific instruction
// decides ahead of any built-in text detector) -> built-in detectors for their phrases (credits,
// banned account, daily quota) -> 400 handling (D4) -> built-in provider rule -> classification by
// status -> per-provider operator default (R12.4).
import type { AppSettings, Provider } from "../../shared/types.js";
import {
  BREAKER_TRIP_STATUSES,
  CONCURRENCY_LIMIT_COOLDOWN_MS,
  DAILY_QUOTA_MAX_COOLDOWN_MS,
  EXPIRED_RETRY_MAX,
  SESSION_LIMIT_COOLDOWN_MS,
  USAGE_LIMIT_COOLDOWN_MS,
  WEEKLY_LIMIT_COOLDOWN_MS,
  type ResilienceSettings,
} from "../../shared/resilienceSettings.js";
import {
  looksBanned,
  looksLikeConcurrencyLimit,
  looksLikeContextOverflow,
  looksLikeCreditsExhausted,
  looksLikeMissingModel,
  looksLikeModelAccessDenied,
  looksLikeRequestRejected,
  looksLikeToolLimit,
  quotaKind,
  statedContextFacts,
  statedToolLimit,
  upstreamErrorCode,
  upstreamErrorMessage,
} from "./errorPatterns.js";
import { ERROR_CODES, type ErrorCode } from "../../shared/errorCodes.js";
import { INVALID_JSON_TEXT, type StreamCause, type TransportFailure, type UpstreamHeaders } from "./failure.js";
import type { FailureInput, RuleMatch, Verdict, VerdictReason } from "./ports.js";
import { builtinProviderKey, hasOperatorRules, matchBuiltinRule, matchOperatorRule, matchProviderDefault, restateStatus } from "./providerRules.js";
import { HTTP_ONLY, parseRetryHint, type AnswerReader } from "./retryHints.js";
import { streamErrorStatus } from "./streamErrors.js";
import { windowRest, type WindowSignals } from "./subscriptionWindows.js";

export interface ClassifyContext {
  settings: ResilienceSettings;
  appSettings?: Pick<AppSettings, "providerErrorRules" | "providerErrorDefaults">;
  /** Consecutive 401s the connection already had (R4.6). */
  authFailureCount?: number;
  /** The engine clock; needed for date-shaped hints and "until local midnight". */
  now?: number;
  /** What the answer says in its vendor's own headers and body (the format halves read it); HTTP's headers only without. */
  answers?: AnswerReader;
}

/** R21.4: the code of a used-up subscription window (the connection's errorCode, the client's error code). */
export const WINDOW_EXHAUSTED = "window_exhausted";

const REASON_SHAPE: Record<VerdictReason, Pick<Verdict, "scope" | "failover">> = {
  rate_limit: { scope: "connection", failover: true },
  concurrency_limited: { scope: "connection", failover: true },
  quota_exhausted: { scope: "connection", failover: true },
  credits_exhausted: { scope: "connection", failover: true },
  auth_error: { scope: "connection", failover: true },
  banned: { scope: "connection", failover: true },
  request_rejected: { scope: "model", failover: true },
  not_found: { scope: "model", failover: true },
  model_not_found: { scope: "model", failover: true },
  // R25.2: a target with a larger window may take it; the refusing one teaches its window.
  context_overflow: { scope: "request", failover: true },
  // R11.7: another target may accept this many tools; the refusing one learns its limit.
  tool_limit: { scope: "request", failover: true },
  bad_request: { scope: "request", failover: false },
  server_error: { scope: "provider", failover: true },
  transport: { scope: "provider", failover: true },
  timeout: { scope: "provider", failover: true },
  stream_stall: { scope: "request", failover: true },
  stream_early_eof: { scope: "connection", failover: true },
  stream_throughput: { scope: "request", failover: true },
};

interface Facts {
  status: number;
  hintMs: number | null;
  hintSource: string | null;
  hintPerModel?: boolean;
  errorCode: string | null;
  message: string;
  clientRetryAfterMs: number | null;
  /** R21.4(c): the answer's subscription window headers show no window used up: a 429 is a burst limit. */
  windowsFine?: boolean;
}

function build(reason: VerdictReason, facts: Facts, extra: Partial<Verdict> = {}): Verdict {
  const shape = REASON_SHAPE[reason];
  return {
    reason,
    scope: shape.scope,
    status: facts.status,
    retryHintMs: facts.hintMs,
    breakerEligible: BREAKER_TRIP_STATUSES.includes(facts.status) && (reason === "server_error" || reason === "timeout"),
    failover: shape.failover,
    terminal: null,
    cooldownMs: null,
    message: facts.message,
    errorCode: facts.errorCode,
    retryHintSource: facts.hintSource,
    retryHintPerModel: facts.hintPerModel === true,
    clientRetryAfterMs: facts.clientRetryAfterMs ?? facts.hintMs,
    rule: null,
    ...extra,
  };
}

/** A verdict with no answer behind it: its code is also its message. */
function unanswered(code: string, status: number): Facts {
  return { status, hintMs: null, hintSource: null, errorCode: code, message: code, clientRetryAfterMs: null };
}

/** R2.3: no usable answer counts towards the breaker; a timeout is a 504, anything else a 502. */
function classifyTransport(failure: TransportFailure): Verdict {
  if (failure.cause === "timeout") return build("timeout", unanswered(failure.code, 504), { breakerEligible: true });
  return build("transport", unanswered(failure.code, 502), { breakerEligible: true });
}

/** The code each stream failure's verdict carries (the connection's errorCode, the verdict's message). */
const STREAM_VERDICTS: Record<StreamCause, { reason: VerdictReason; status: number; code: string }> = {
  content_stall: { reason: "stream_stall", status: 504, code: "STREAM_CONTENT_STALL" },
  idle_stall: { reason: "stream_stall", status: 504, code: "STREAM_STALL" },
  early_eof: { reason: "stream_early_eof", status: 502, code: "STREAM_EARLY_EOF" },
  throughput: { reason: "stream_throughput", status: 504, code: "STREAM_THROUGHPUT_TOO_LOW" },
  // R13.3: the continuation answered with a tool call or reasoning; nobody is to blame, nothing cools.
  continuation_refused: { reason: "bad_request", status: 502, code: "STREAM_CONTINUATION_REFUSED" },
};

function classifyStream(cause: StreamCause): Verdict {
  const { reason, status, code } = STREAM_VERDICTS[cause];
  return build(reason, unanswered(code, status));
}

/** D4: a daily quota without a hint lasts until local midnight (at most 24 h). */
export function msUntilLocalMidnight(now: number): number {
  const today = new Date(now);
  const midnight = new Date(today.getFullYear(), today.getMonth(), today.getDate() + 1).getTime();
  return Math.min(Math.max(1, midnight - now), DAILY_QUOTA_MAX_COOLDOWN_MS);
}

/** R4.5, D4: the 429 body decides between quota, concurrency and plain rate limit. */
function classify429(text: string, provider: Provider, facts: Facts, now: number | undefined): Verdict {
  // R21.4(c): the windows are fine, so a quota text is not a window: a burst limit, never hours.
  const quota = facts.windowsFine ? null : quotaKind(text);
  const hint = facts.hintMs;
  switch (quota) {
    case "weekly":
      return build("quota_exhausted", facts, { cooldownMs: hint ?? WEEKLY_LIMIT_COOLDOWN_MS });
    case "session":
      return build("quota_exhausted", facts, { cooldownMs: hint ?? SESSION_LIMIT_COOLDOWN_MS });
    case "usage":
      return build("quota_exhausted", facts, { cooldownMs: provider.category === "oauth" ? (hint ?? USAGE_LIMIT_COOLDOWN_MS) : null });
    case "daily":
      return build("quota_exhausted", facts, { cooldownMs: hint ?? (now === undefined ? null : msUntilLocalMidnight(now)) });
    case "quota":
      return build("quota_exhausted", facts);
    case null:
      break;
  }
  if (looksLikeConcurrencyLimit(text)) return build("concurrency_limited", facts, { cooldownMs: hint ?? CONCURRENCY_LIMIT_COOLDOWN_MS });
  return build("rate_limit", facts);
}

/** D4's text classes, the rest of a used-up window whose reset the answer did not state. */
function textClassMs(text: string): number | null {
  switch (quotaKind(text)) {
    case "weekly":
      return WEEKLY_LIMIT_COOLDOWN_MS;
    case "session":
      return SESSION_LIMIT_COOLDOWN_MS;
    case "usage":
      return USAGE_LIMIT_COOLDOWN_MS;
    default:
      return null;
  }
}

/**
 * R21.4(a): a used-up subscription window is its own verdict — quota_exhausted, code
 * `window_exhausted`, the account (or a model family's own window: the family) resting until the
 * window's reset, capped by the window's length and not by maxCooldownMs (R21.4(b)).
 */
function classifyWindow(text: string, answer: Pick<Answer, "headers">, facts: Facts, signals: WindowSignals, now: number): Verdict | null {
  const rest = windowRest(signals, answer.headers, now, textClassMs(text));
  if (!rest) return null;
  const { name, resetAt, windowMs } = rest.window;
  return build(
    "quota_exhausted",
    { ...facts, errorCode: WINDOW_EXHAUSTED, clientRetryAfterMs: rest.cooldownMs },
    { scope: rest.scope, cooldownMs: rest.cooldownMs, window: { name, resetAt, windowMs } },
  );
}

/** R25.2: a context refusal, with the numbers it stated. */
const contextOverflow = (text: string, facts: Facts): Verdict => build("context_overflow", facts, { context: statedContextFacts(text) });

function classify400(text: string, facts: Facts): Verdict {
  if (looksLikeContextOverflow(text)) return contextOverflow(text, facts);
  if (looksLikeMissingModel(text) || facts.errorCode === "model_not_found") {
    return build("model_not_found", { ...facts, status: 404 });
  }
  return build("bad_request", facts);
}

function classifyByStatus(text: string, answer: Answer, facts: Facts, ctx: ClassifyContext): Verdict {
  const status = facts.status;
  if (status === 401) {
    const expired = (ctx.authFailureCount ?? 0) + 1 >= EXPIRED_RETRY_MAX;
    return build("auth_error", facts, { terminal: expired ? "expired" : null });
  }
  if (status === 402) return build("credits_exhausted", facts, { terminal: "credits_exhausted" });
  if (status === 403) {
    if (looksLikeRequestRejected(text)) return build("request_rejected", facts, { scope: answer.model ? "model" : "connection" });
    return build("auth_error", facts, looksLikeModelAccessDenied(text) ? { scope: "model" } : {});
  }
  if (status === 404) return build("not_found", facts);
  if (status === 408) return build("timeout", facts);
  if (status === 429) return classify429(text, answer.provider, facts, ctx.now);
  if (status >= 500) return build("server_error", facts);
  return build("bad_request", facts);
}

function applyRule(verdict: Verdict, rule: RuleMatch, facts: Facts, settings: ResilienceSettings): Verdict {
  const reason = rule.reason ?? verdict.reason;
  const base = reason === verdict.reason ? verdict : build(reason, facts);
  // R12.2: a built-in model-scoped cooldown feeds the model lockout, so the operator's cap bounds it.
  const lockCap = rule.source === "builtin" && rule.scope === "model" ? settings.modelLockout.maxCooldownMs : Number.POSITIVE_INFINITY;
  const cooldownMs = rule.cooldownMs === null ? base.cooldownMs : Math.min(rule.cooldownMs, lockCap);
  return { ...base, cooldownMs, rule, scope: rule.scope ?? base.scope, terminal: reason === "credits_exhausted" ? "credits_exhausted" : base.terminal };
}

function messageOf(answer: Answer, status: number): string {
  const detail = (upstreamErrorMessage(answer.bodyText) ?? answer.bodyText).replace(/\s+/g, " ").trim().slice(0, 300);
  return detail ? `upstream ${status}: ${detail}` : `upstream ${status}`;
}

export function classifyUpstreamFailure(input: FailureInput, ctx: ClassifyContext): Verdict {
  const { failure } = input;
  switch (failure.kind) {
    case "http":
      if (failure.status < 400) return classifyTransport(NO_ERROR_STATUS);
      return classifyAnswer({ provider: input.provider, model: input.model, status: failure.status, headers: failure.headers, bodyText: failure.bodyText }, ctx);
    case "invalid_json":
      return classifyInvalidJson(input, failure.headers, ctx);
    case "transport":
      return classifyTransport(failure);
    case "stream":
      return classifyStream(failure.cause);
    case "stream_limit":
      return classifyStreamLimit(input, failure.headers, failure.bodyText, ctx);
    case "stream_error":
      return classifyStreamError(input, failure.headers, failure.bodyText, ctx);
    default:
      return unknownFailure(failure);
  }
}

function unknownFailure(failure: never): never {
  throw new Error(`unknown upstream failure: ${JSON.stringify(failure)}`);
}

/** An answer below 400 that still failed the attempt carries nothing to pass on: no usable answer came. */
const NO_ERROR_STATUS: TransportFailure = { kind: "transport", cause: "other", code: "UPSTREAM_NO_STATUS" };

/**
 * D2: classified as the 502 it becomes (failover, breaker, lockout as for any 502), but named for
 * what it is: the log, the connection's error code and the client's error code say
 * `upstream_invalid_json`, not a plain upstream_error.
 */
function classifyInvalidJson(input: FailureInput, headers: UpstreamHeaders, ctx: ClassifyContext): Verdict {
  const status = ERROR_CODES.upstream_invalid_json.status;
  const verdict = classifyAnswer({ provider: input.provider, model: input.model, status, headers, bodyText: INVALID_JSON_TEXT }, ctx);
  const errorCode: ErrorCode = "upstream_invalid_json";
  return { ...verdict, errorCode, message: "The upstream answered with a body that is not JSON" };
}

/**
 * R21.4(d): a limit that ended a 200 stream is the 429 it stands for, with the stream's headers: a
 * used-up window rests the account as the 429 would; anything else is a rate limit. Errors inside a
 * stream are out of scope of restatement and rules (R12.2).
 */
function classifyStreamLimit(input: FailureInput, headers: UpstreamHeaders, bodyText: string, ctx: ClassifyContext): Verdict {
  const now = ctx.now ?? Number.NaN;
  const hint = parseRetryHint(headers, bodyText, now, ctx.answers);
  const detail = (upstreamErrorMessage(bodyText) ?? bodyText).replace(/\s+/g, " ").trim().slice(0, 300);
  const facts: Facts = {
    status: 429,
    hintMs: hint?.ms ?? null,
    hintSource: hint?.source ?? null,
    hintPerModel: hint?.perModel,
    errorCode: upstreamErrorCode(bodyText),
    message: `upstream stream: ${detail}`,
    clientRetryAfterMs: hint?.ms ?? null,
  };
  const windowed =
    ctx.now === undefined ? null : classifyWindow(bodyText.toLowerCase(), { headers }, facts, (ctx.answers ?? HTTP_ONLY).windows(headers, bodyText, ctx.now), ctx.now);
  return windowed ?? classify429(bodyText.toLowerCase(), input.provider, { ...facts, windowsFine: true }, ctx.now);
}

/**
 * R25.4: an error event inside a 200 stream is the failure its error names (a 500 when it names
 * none): a limit as the 429 it stands for, anything else by its status, as rules do not see
 * in-stream errors (R12.2).
 */
function classifyStreamError(input: FailureInput, headers: UpstreamHeaders, bodyText: string, ctx: ClassifyContext): Verdict {
  const status = streamErrorStatus(bodyText);
  if (status === 429) return classifyStreamLimit(input, headers, bodyText, ctx);
  const detail = (upstreamErrorMessage(bodyText) ?? bodyText).replace(/\s+/g, " ").trim().slice(0, 300);
  const facts: Facts = { status, hintMs: null, hintSource: null, errorCode: upstreamErrorCode(bodyText), message: `upstream stream: ${detail}`, clientRetryAfterMs: null };
  const text = bodyText.toLowerCase();
  if (status === 400) return classify400(text, facts);
  return classifyByStatus(text, { provider: input.provider, model: input.model, status, headers, bodyText }, facts, ctx);
}

/** An upstream's error answer (status ≥ 400), with who gave it. */
interface Answer {
  provider: Provider;
  model: string;
  status: number;
  headers: UpstreamHeaders;
  bodyText: string;
}

function classifyAnswer(answer: Answer, ctx: ClassifyContext): Verdict {
  const providerKey = builtinProviderKey(answer.provider);
  const restated = restateStatus(providerKey, answer.status, answer.bodyText);
  const status = restated?.status ?? answer.status;
  const hint = parseRetryHint(answer.headers, answer.bodyText, ctx.now ?? Number.NaN, ctx.answers);
  const text = answer.bodyText.toLowerCase();
  const facts: Facts = {
    status,
    // A restated status's synthetic wait is for the client only, not the internal cooldown (R12.2).
    hintMs: hint?.ms ?? null,
    hintSource: hint?.source ?? null,
    hintPerModel: hint?.perModel,
    errorCode: upstreamErrorCode(answer.bodyText),
    message: messageOf(answer, answer.status),
    clientRetryAfterMs: hint?.ms ?? restated?.rule.defaultRetryAfterMs ?? null,
  };

  const operator = matchOperatorRule(answer.provider.id, status, answer.bodyText, ctx.appSettings);
  if (operator) return applyRule(classifyByStatus(text, answer, facts, ctx), operator, facts, ctx.settings);
  if (looksBanned(text)) return build("banned", facts, { terminal: "banned" });
  if (looksLikeCreditsExhausted(text, status)) return build("credits_exhausted", facts, { terminal: "credits_exhausted" });
  if (status === 429 && ctx.now !== undefined) {
    const signals = (ctx.answers ?? HTTP_ONLY).windows(answer.headers, answer.bodyText, ctx.now);
    const windowed = classifyWindow(text, answer, facts, signals, ctx.now);
    if (windowed) return windowed;
    facts.windowsFine = signals.windowHeaders;
  }
  if (status === 429 && quotaKind(text) === "daily") return classify429(text, answer.provider, facts, ctx.now);
  if (status >= 400 && status < 500 && status !== 429 && looksLikeToolLimit(text)) {
    return build("tool_limit", facts, { statedToolLimit: statedToolLimit(text) });
  }
  if (status === 400) return classify400(text, facts);
  // R25.2: some upstreams refuse a prompt too long with 413 or 422.
  if ((status === 413 || status === 422) && looksLikeContextOverflow(text)) return contextOverflow(text, facts);

  const generic = classifyByStatus(text, answer, facts, ctx);
  const builtin = matchBuiltinRule(providerKey, status, answer.bodyText, facts.errorCode, hasOperatorRules(answer.provider.id, ctx.appSettings));
  if (builtin) return applyRule(generic, builtin, facts, ctx.settings);
  if (status === 401 || generic.terminal !== null) return generic;
  const fallback = matchProviderDefault(answer.provider.id, status, facts.hintMs, ctx.appSettings);
  return fallback ? applyRule(generic, fallback, facts, ctx.settings) : generic;
}
