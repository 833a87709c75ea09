// Stage "classify and record": what an attempt's outcome means (R12.1) and telling the engine,
// exactly once per attempt, plus the attempt's line in the request log.
import type { AttemptEnded, AttemptFault, AttemptRecord, Connection, WireFormat } from "../../../shared/types.js";
import { blamesUpstream, faultOf } from "../../engine/faults.js";
import { ERROR_CODES } from "../../../shared/errorCodes.js";
import { ATTEMPT_TIMED_OUT, INVALID_JSON_TEXT, type UpstreamFailure } from "../../engine/failure.js";
import type { AttemptContext, Clock, ResilienceEngine, Verdict } from "../../engine/ports.js";
import { egressIpOf, type EgressLock } from "../features/egress/siblingLock.js";
import { UPSTREAM_INVALID_JSON } from "../context/outcome.js";
import type { ClientResponse } from "../context/clientResponse.js";
import type { StreamFailureCode } from "./streaming/relay.js";
import type { AttemptOutcome } from "./attempt.js";

export type RecordingEngine = Pick<ResilienceEngine, "classify" | "recordFailure" | "recordSuccess" | "recordNeutral"> &
  /** Reads what a failure left on the connection, for the request log (absent: not noted). */
  Partial<Pick<ResilienceEngine, "exclusionCheck">>;

import type { AttemptResult } from "../context/attempt.js";
export type { AttemptResult };

/**
 * What each stream failure is to the classifier (R12.1 reasons stream_* / transport / timeout): the
 * attempt deadline mid-stream is the call's timeout, a broken stream a reset connection.
 */
const STREAM_FAILURE: Record<Exclude<StreamFailureCode, "window_exhausted" | "stream_error_event">, (detail: string) => UpstreamFailure> = {
  STREAM_EARLY_EOF: (detail) => ({ kind: "stream", cause: "early_eof", detail }),
  stream_content_stall: (detail) => ({ kind: "stream", cause: "content_stall", detail }),
  stream_idle_timeout: (detail) => ({ kind: "stream", cause: "idle_stall", detail }),
  stream_attempt_deadline: () => ATTEMPT_TIMED_OUT,
  STREAM_THROUGHPUT_TOO_LOW: (detail) => ({ kind: "stream", cause: "throughput", detail }),
  stream_transport_error: () => ({ kind: "transport", cause: "reset", code: "ECONNRESET" }),
  stream_continuation_refused: (detail) => ({ kind: "stream", cause: "continuation_refused", detail }),
};

function failureOf(outcome: AttemptOutcome): UpstreamFailure | null {
  switch (outcome.kind) {
    case "transport_failure":
      return outcome.failure;
    case "upstream_error":
      return { kind: "http", status: outcome.status, headers: outcome.headers, bodyText: outcome.bodyText };
    case "invalid_json":
      return { kind: "invalid_json", status: outcome.status, headers: outcome.headers };
    case "failed_before_output":
    case "failed_after_output":
      // R21.4: the limit event's error body, read with the stream's response headers.
      if (outcome.code === "window_exhausted") return { kind: "stream_limit", headers: outcome.headers ?? {}, bodyText: outcome.detail };
      if (outcome.code === "stream_error_event") return { kind: "stream_error", headers: outcome.headers ?? {}, bodyText: outcome.detail };
      return STREAM_FAILURE[outcome.code](outcome.detail);
    default:
      return null;
  }
}

/** The attempt's line in the request log: the status it failed with (none without an answer) and its size. */
function failureLine(failure: UpstreamFailure): { status: number | null; bytes: number } {
  switch (failure.kind) {
    case "http":
      return { status: failure.status, bytes: Buffer.byteLength(failure.bodyText) };
    case "invalid_json":
      return { status: ERROR_CODES.upstream_invalid_json.status, bytes: Buffer.byteLength(INVALID_JSON_TEXT) };
    case "stream":
      return { status: null, bytes: Buffer.byteLength(failure.detail) };
    case "stream_limit":
    case "stream_error":
      return { status: null, bytes: Buffer.byteLength(failure.bodyText) };
    case "transport":
      return { status: null, bytes: 0 };
  }
}

/** The connection as the store holds it now (after recordFailure wrote its cooldown). */
export type FreshConnection = (connection: Connection) => Connection;

export interface RecordExtras {
  /** R12.5: cools the IP siblings of an egress-bucketed 429. */
  egressLock?: EgressLock;
  /** Reads the connection back for the timeline's "what the failure left". */
  fresh?: FreshConnection;
  /** R25.4: Switchyard translated the request (the client's format is not the upstream's). */
  translated?: boolean;
}

/**
 * R25.4: where an attempt ended. No response head is `connect`, an error status `headers`; a
 * stream the upstream left without its terminal event is `no_terminal` wherever it stopped.
 */
export function endedOf(outcome: AttemptOutcome, contentSent: boolean): AttemptEnded {
  switch (outcome.kind) {
    case "json":
    case "completed":
      return "complete";
    case "upstream_error":
      return "headers";
    case "transport_failure":
      return outcome.firstByteAt === undefined ? "connect" : "before_content";
    case "invalid_json":
      return "before_content";
    case "failed_before_output":
      return outcome.code === "STREAM_EARLY_EOF" ? "no_terminal" : "before_content";
    case "failed_after_output":
      return outcome.code === "STREAM_EARLY_EOF" ? "no_terminal" : "mid_stream";
    case "client_gone":
      return contentSent ? "mid_stream" : "before_content";
  }
}

/** The name the fault is judged by: the log's verdict, or what a stream failure was beneath it. */
function faultName(failure: UpstreamFailure, verdict: Verdict): string {
  if (failure.kind === "stream" && failure.cause === "continuation_refused") return "continuation_refused";
  return failure.kind === "invalid_json" ? UPSTREAM_INVALID_JSON : verdict.reason;
}

export function recordAttempt(
  engine: RecordingEngine,
  clock: Clock,
  ctx: AttemptContext,
  client: ClientResponse,
  outcome: AttemptOutcome,
  startedAt: number,
  extras: RecordExtras = {},
): AttemptResult {
  const egressIp = egressIpOf(ctx.connection);
  const ended = endedOf(outcome, client.outputStarted);
  const translated = extras.translated === true;
  const line = (status: number | null, verdict: string | null, fault: AttemptFault) => {
    const record: AttemptRecord = {
      provider: ctx.provider.id,
      connectionId: ctx.connection.id,
      model: ctx.model,
      status,
      verdict,
      latencyMs: clock.now() - startedAt,
      ended,
      fault,
    };
    if (egressIp !== null) record.egressIp = egressIp;
    client.record.attempted(record);
  };
  const streamed = outcome.kind === "completed" || outcome.kind === "client_gone";
  if (outcome.kind === "client_gone" || (outcome.kind === "transport_failure" && client.gone)) {
    engine.recordNeutral(ctx);
    line(streamed ? 200 : null, "client_abort", "client");
    return { kind: "client_gone", fault: "client" };
  }
  const failure = failureOf(outcome);
  if (!failure) {
    engine.recordSuccess(ctx);
    line(outcome.kind === "json" ? outcome.status : 200, null, "none");
    return { kind: "success", fault: "none" };
  }
  const verdict = engine.classify({ provider: ctx.provider, model: ctx.model, failure });
  // D2: the synthesized 502 is logged under its own name, not as a plain 502.
  const logged = failure.kind === "invalid_json" ? UPSTREAM_INVALID_JSON : verdict.reason;
  const fault = faultOf(faultName(failure, verdict), ended, translated);
  // R25.4: a client's, a context window's or Switchyard's own fault cools nothing and moves no breaker.
  engine.recordFailure(ctx, verdict, fault);
  if (blamesUpstream(fault)) extras.egressLock?.(ctx, verdict); // R12.5: after the failing connection's own cooldown is set
  const { status, bytes } = failureLine(failure);
  line(status, logged, fault);
  client.record.lastAttemptFailed({ bytes, ...failureDetails(engine, ctx, verdict, extras.fresh) });
  return { kind: "failure", verdict, fault };
}

/** The timeline's view of a failed attempt: the hint it carried and the cooldown or lockout it left. */
function failureDetails(engine: RecordingEngine, ctx: AttemptContext, verdict: Verdict, fresh?: FreshConnection): Partial<AttemptRecord> {
  const left = fresh && engine.exclusionCheck ? engine.exclusionCheck(ctx.provider, ctx.model)(fresh(ctx.connection)) : null;
  return {
    retryHintMs: verdict.retryHintMs,
    retryHintSource: verdict.retryHintSource ?? null,
    after: left ? { state: left.reason, remainingMs: left.remainingMs } : null,
  };
}

/** The upstream's response headers of an attempt, where they carry quota windows to learn from. */
export function upstreamHeadersOf(outcome: AttemptOutcome): Record<string, string | string[] | undefined> | null {
  if (outcome.kind === "upstream_error" || outcome.kind === "invalid_json") return outcome.headers;
  return "headers" in outcome && outcome.headers ? outcome.headers : null;
}

/** R25.6: the upstream's own `x-should-retry` on an error answered in the client's format, else null. */
export function upstreamShouldRetry(outcome: AttemptOutcome, clientFormat: WireFormat): boolean | null {
  if (outcome.kind !== "upstream_error" || outcome.upstreamFormat !== clientFormat) return null;
  const raw = outcome.headers["x-should-retry"];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim().toLowerCase();
  return value === "true" ? true : value === "false" ? false : null;
}
