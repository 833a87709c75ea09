// Stage "classify and record": what an attempt's outcome means (R12.1) and telling the engine,
// exactly once per attempt, plus the attempt's line in the request log.
import type { AttemptRecord, Connection } from "../../../shared/types.js";
import type { AttemptContext, Clock, ResilienceEngine, Verdict } from "../../engine/ports.js";
import { egressIpOf, type EgressLock } from "../egress/siblingLock.js";
import { UPSTREAM_INVALID_JSON } from "../outcome.js";
import type { ClientResponse } from "../response/clientResponse.js";
import type { StreamFailureCode } from "../streaming/relay.js";
import type { AttemptOutcome } from "./attempt.js";

export type RecordingEngine = Pick<ResilienceEngine, "classify" | "recordFailure" | "recordSuccess" | "recordNeutral">
  /** Reads what a failure left on the connection, for the request log (absent: not noted). */
  & Partial<Pick<ResilienceEngine, "exclusionCheck">>;

export type AttemptResult =
  | { kind: "success" }
  /** The client left: the attempt counts for nothing (R13: a disconnect never blames the provider). */
  | { kind: "client_gone" }
  | { kind: "failure"; verdict: Verdict };

/** How each stream failure is presented to the classifier (R12.1 reasons stream_* / transport / timeout). */
const STREAM_FAILURE_TRANSPORT: Record<StreamFailureCode, string> = {
  STREAM_EARLY_EOF: "STREAM_EARLY_EOF",
  stream_content_stall: "STREAM_CONTENT_STALL",
  stream_idle_timeout: "STREAM_STALL",
  stream_attempt_deadline: "ETIMEDOUT",
  STREAM_THROUGHPUT_TOO_LOW: "STREAM_THROUGHPUT_TOO_LOW",
  stream_transport_error: "ECONNRESET",
  stream_continuation_refused: "STREAM_CONTINUATION_REFUSED",
};

interface Failure {
  status: number | null;
  headers: Record<string, string | string[] | undefined>;
  bodyText: string;
  transportError: string | null;
  /** Switchyard's own name for a failure it made of an answer that was not an error (D2's synthesized 502). */
  synthesized?: typeof UPSTREAM_INVALID_JSON;
}

function failureOf(outcome: AttemptOutcome): Failure | null {
  switch (outcome.kind) {
    case "transport_failure":
      return { status: null, headers: {}, bodyText: "", transportError: outcome.code };
    case "upstream_error":
      return { status: outcome.status, headers: outcome.headers, bodyText: outcome.bodyText, transportError: null };
    case "invalid_json":
      return { status: 502, headers: outcome.headers, bodyText: "upstream returned a body that is not JSON", transportError: null, synthesized: UPSTREAM_INVALID_JSON };
    case "failed_before_output":
    case "failed_after_output":
      return { status: null, headers: {}, bodyText: outcome.detail, transportError: STREAM_FAILURE_TRANSPORT[outcome.code] };
    default:
      return null;
  }
}

/** The connection as the store holds it now (after recordFailure wrote its cooldown). */
export type FreshConnection = (connection: Connection) => Connection;

export interface RecordExtras {
  /** R12.5: cools the IP siblings of an egress-bucketed 429. */
  egressLock?: EgressLock;
  /** Reads the connection back for the timeline's "what the failure left". */
  fresh?: FreshConnection;
}

export function recordAttempt(
  engine: RecordingEngine, clock: Clock, ctx: AttemptContext, client: ClientResponse, outcome: AttemptOutcome, startedAt: number, extras: RecordExtras = {},
): AttemptResult {
  const egressIp = egressIpOf(ctx.connection);
  const line = (status: number | null, verdict: string | null) =>
    client.attempts.push({
      provider: ctx.provider.id, connectionId: ctx.connection.id, model: ctx.model, status, verdict, latencyMs: clock.now() - startedAt,
      ...(egressIp === null ? {} : { egressIp }),
    });
  const streamed = outcome.kind === "completed" || outcome.kind === "client_gone";
  if (outcome.kind === "client_gone" || (outcome.kind === "transport_failure" && client.gone)) {
    engine.recordNeutral(ctx);
    line(streamed ? 200 : null, "client_abort");
    return { kind: "client_gone" };
  }
  const failure = failureOf(outcome);
  if (!failure) {
    engine.recordSuccess(ctx);
    line(outcome.kind === "json" ? outcome.status : 200, null);
    return { kind: "success" };
  }
  const { synthesized, ...input } = failure;
  const classified = engine.classify({ provider: ctx.provider, model: ctx.model, ...input });
  const verdict = synthesized ? namedSynthesized(classified, synthesized) : classified;
  engine.recordFailure(ctx, verdict);
  extras.egressLock?.(ctx, verdict); // R12.5: after the failing connection's own cooldown is set
  line(failure.status, synthesized ?? verdict.reason);
  Object.assign(client.attempts[client.attempts.length - 1]!, failureDetails(engine, ctx, verdict, failure, extras.fresh));
  return { kind: "failure", verdict };
}

/**
 * A 2xx whose body is not JSON is classified as the 502 it becomes (failover, breaker, lockout as
 * for any 502), but named for what it is: the log, the connection's error code and the client's
 * error code say `upstream_invalid_json`, not a plain upstream_error.
 */
function namedSynthesized(verdict: Verdict, name: typeof UPSTREAM_INVALID_JSON): Verdict {
  return { ...verdict, errorCode: name, message: "The upstream answered with a body that is not JSON" };
}

/** The timeline's view of a failed attempt: the hint it carried and the cooldown or lockout it left. */
function failureDetails(engine: RecordingEngine, ctx: AttemptContext, verdict: Verdict, failure: Failure, fresh?: FreshConnection): Partial<AttemptRecord> {
  const left = fresh && engine.exclusionCheck ? engine.exclusionCheck(ctx.provider, ctx.model)(fresh(ctx.connection)) : null;
  return {
    bytes: Buffer.byteLength(failure.bodyText),
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
