// The one way Switchyard calls an upstream: chat attempts, count_tokens and the connection test.
// Cancellation is composed from the caller (the client leaving), the attempt deadline and, for an
// admitted job, its execution deadline (R9.1), so every reason to stop reaches undici through one
// signal; a stream watchdog stops the call by destroying the body it reads (undici then aborts
// the request). The composition is one cancellation object, one timer and one listener, released as
// soon as the body is done: the client's response and the admission hand over a Cancellation and an
// ExecutionDeadline instead of signals of their own, and the cancellation handed to undici is a small
// object with the part of the AbortSignal interface undici reads, not an AbortController (issue 12:
// controllers, their EventTarget listeners and their signals were ~4 % of a request's CPU).
// AbortSignal.timeout + AbortSignal.any were tried (issue 8) and measured worse: each call's timer
// stays armed for the whole deadline (600 s by default) until the garbage collector finalises its
// signal, which cost about 40 MB of RSS after the bench's load.
import type { IncomingHttpHeaders } from "node:http";
import type { Provider, WireFormat } from "../../../shared/types.js";
import { ATTEMPT_TIMED_OUT, type TransportFailure } from "../../engine/failure.js";
import { redactSecret } from "./redact.js";
import { Cancellation } from "./cancellation.js";
import { transportFailureOf, type UpstreamClient, type UpstreamResponse } from "./client.js";
import { buildUpstreamHeaders } from "./headers.js";

/**
 * The timeouts of every upstream call, read from the resilience settings (streamRecovery):
 * `attemptDeadlineMs` (R13.6) bounds the whole call, headers and body; `idleTimeoutMs` (R13.7)
 * bounds any silence, before the headers or between body chunks (undici's headersTimeout and
 * bodyTimeout; the stream watchdogs are stricter).
 * 0 switches a limit off.
 */
export interface UpstreamTimeouts {
  attemptDeadlineMs: number;
  idleTimeoutMs: number;
}

/** Auxiliary calls (count_tokens, a connection test) answer a person waiting on a button. */
export const AUXILIARY_CALL_CEILING_MS = 30_000;

export interface UpstreamCallDeps {
  upstream: UpstreamClient;
  /** Where a provider's requests go (a `simulator` provider without baseUrl uses the built-in one). */
  baseUrlFor: (provider: Provider) => string | Promise<string>;
  userAgent: string;
  timeouts: () => UpstreamTimeouts;
}

/** R9.1: an admitted job's execution deadline, which the attempt's call enforces with its own. */
export interface ExecutionDeadline {
  /** Real milliseconds left before the job expires at its budget (≤ 0: it has). */
  remainingMs(): number;
  /** The job's budget (requestQueue.executionMaxWaitMs), counted from dispatch. */
  readonly budgetMs: number;
  /** Set by the call when this deadline, rather than the attempt's own, stopped it. */
  expired: boolean;
}

export interface UpstreamCallRequest {
  provider: Provider;
  upstreamFormat: WireFormat;
  clientFormat: WireFormat;
  secret: string | null;
  clientHeaders: IncomingHttpHeaders;
  /** Appended to the provider's base URL. */
  path: string;
  /** A JSON value, or JSON text already serialised (a same-format body passed through). */
  body: unknown;
  /** What stops the call besides its deadlines: the client went away (or a combo target's deadline passed). */
  signal?: AbortSignal | Cancellation;
  /** R9.1: the admitted job's deadline (absent = none). */
  execution?: ExecutionDeadline;
  /** A shorter deadline than the attempt deadline (auxiliary calls). */
  ceilingMs?: number;
  /** R12.5: the connection's egress IP, bound as the socket's local address. */
  localAddress?: string | null;
  /** Headers Switchyard itself adds for this call (R12.6 `anthropic-usage-limit: slow`). */
  extraHeaders?: Record<string, string>;
}

/** Sends one upstream call; `extraHeaders` are added to the call's own (a wrapper such as the usage wall adds some). */
export type SendCall = (extraHeaders: Record<string, string> | undefined) => Promise<UpstreamCall>;

export interface UpstreamCall {
  response: UpstreamResponse;
  /** The composed cancellation; aborted by the client or a deadline. */
  signal: Cancellation;
  /** Stops the call while its body is read (a stream watchdog fired). */
  abort(reason: string): void;
  /** true once the attempt deadline has passed (R13.6 → an ETIMEDOUT verdict). */
  timedOut(): boolean;
  /** Reads the body as text, mapping a failure to an UpstreamCallError. */
  bodyText(limit: number): Promise<string>;
  /** Reads an error body (bounded), with the connection's secret redacted: upstreams echo rejected keys. */
  errorText(limit?: number): Promise<string>;
  /** Text the upstream sent (an in-stream error event) with the connection's secret redacted. */
  redact(text: string): string;
}

/** A call that never produced a usable response; `failure` is what the classifier reads. */
export class UpstreamCallError extends Error {
  /** The raw errno or undici code, for the logs and the connection test. */
  readonly code: string;

  constructor(
    readonly failure: TransportFailure,
    readonly timedOut: boolean,
    options?: { cause?: unknown },
  ) {
    super(`upstream call failed (${failure.code})`, options);
    this.name = "UpstreamCallError";
    this.code = failure.code;
  }
}

const NO_LIMIT_MS = 0;
/** With neither the idle timeout nor a deadline set, silence is still cut after this long (as before). */
const SILENCE_CEILING_MS = 600_000;
/** What an error body is read to by default: enough for any upstream's error JSON. */
const ERROR_TEXT_LIMIT_BYTES = 64 * 1024;

function deadlineOf(timeouts: UpstreamTimeouts, ceilingMs: number | undefined): number {
  const limits = [timeouts.attemptDeadlineMs, ceilingMs ?? NO_LIMIT_MS].filter((ms) => ms > 0);
  return limits.length ? Math.min(...limits) : NO_LIMIT_MS;
}

const NOTHING_TO_RELEASE = () => {};

/** Calls `onCancel` once the caller is cancelled (at once if it already is); returns the unsubscribe. */
function listen(caller: AbortSignal | Cancellation | undefined, onCancel: () => void): () => void {
  if (!caller) return NOTHING_TO_RELEASE;
  if (caller.aborted) {
    onCancel();
    return NOTHING_TO_RELEASE;
  }
  if (caller instanceof Cancellation) return caller.subscribe(onCancel);
  caller.addEventListener("abort", onCancel, { once: true });
  return () => caller.removeEventListener("abort", onCancel);
}

/**
 * R9.1: how long the call may run before its job expires. The job's budget is raised to the call's
 * own deadline when that is longer, and the call's own deadline then ends it as an upstream timeout
 * (no limit here); a job whose time ran out before its call started stops at once (1 ms).
 */
function executionLimitMs(execution: ExecutionDeadline | undefined, deadlineMs: number): number {
  if (!execution) return NO_LIMIT_MS;
  const raised = deadlineMs > 0 && execution.budgetMs <= deadlineMs;
  const left = execution.remainingMs() + (raised ? deadlineMs - execution.budgetMs : 0);
  if (left <= 0) return 1;
  return raised ? NO_LIMIT_MS : left;
}

/**
 * Aborted by the caller, once `deadlineMs` passed (0: no deadline; the call then times out) or
 * once the job's execution deadline passed (the job then expired). `release`: the call is over, the
 * timer and the listener go.
 */
function composeCancellation(
  caller: AbortSignal | Cancellation | undefined,
  deadlineMs: number,
  execution?: ExecutionDeadline,
): { signal: Cancellation; timedOut(): boolean; release(): void } {
  const executionMs = executionLimitMs(execution, deadlineMs);
  const attemptFirst = deadlineMs > 0 && (executionMs === NO_LIMIT_MS || deadlineMs <= executionMs);
  const ms = attemptFirst ? deadlineMs : executionMs;
  const controller = new Cancellation();
  if (ms <= 0 && caller === undefined) return { signal: controller, timedOut: () => false, release: NOTHING_TO_RELEASE };
  let expired = false;
  let timer: NodeJS.Timeout | null = null;
  if (ms > 0) {
    timer = setTimeout(() => {
      if (!attemptFirst && execution) {
        execution.expired = true;
        return controller.abort();
      }
      expired = true;
      controller.abort(new DOMException("The attempt deadline passed", "TimeoutError"));
    }, ms);
    timer.unref();
  }
  const unsubscribe = listen(caller, () => controller.abort(caller?.reason));
  return {
    signal: controller,
    timedOut: () => expired,
    release() {
      if (timer) clearTimeout(timer);
      unsubscribe();
    },
  };
}

export function createUpstreamCaller(deps: UpstreamCallDeps) {
  return async function callUpstream(req: UpstreamCallRequest): Promise<UpstreamCall> {
    const timeouts = deps.timeouts();
    const deadlineMs = deadlineOf(timeouts, req.ceilingMs);
    const cancel = composeCancellation(req.signal, deadlineMs, req.execution);
    const { signal, timedOut } = cancel;
    const failure = (err: unknown) => new UpstreamCallError(timedOut() ? ATTEMPT_TIMED_OUT : transportFailureOf(err), timedOut(), { cause: err });
    const base = deps.baseUrlFor(req.provider);
    const url = (typeof base === "string" ? base : await base).replace(/\/+$/, "") + req.path;
    const built = buildUpstreamHeaders(req.provider, req.upstreamFormat, req.clientFormat, req.secret, req.clientHeaders, deps.userAgent);
    const headers = req.extraHeaders ? { ...built, ...req.extraHeaders } : built;
    let response: UpstreamResponse;
    try {
      response = await deps.upstream.send({
        url,
        headers,
        body: typeof req.body === "string" ? req.body : JSON.stringify(req.body),
        signal,
        // R13.7: before the headers as between body chunks. Off (0), only the deadline bounds the call.
        idleTimeoutMs: timeouts.idleTimeoutMs || deadlineMs || SILENCE_CEILING_MS,
        localAddress: req.localAddress,
      });
    } catch (err) {
      cancel.release();
      throw failure(err);
    }
    response.body.onClose(cancel.release);
    return {
      response,
      signal,
      abort: (reason) => void response.body.destroy(new Error(reason)),
      timedOut,
      async bodyText(limit) {
        try {
          return await response.body.text(limit);
        } catch (err) {
          throw failure(err);
        }
      },
      async errorText(limit) {
        try {
          return redactSecret(await response.body.text(limit ?? ERROR_TEXT_LIMIT_BYTES), req.secret);
        } catch (err) {
          throw failure(err);
        }
      },
      redact: (text) => redactSecret(text, req.secret),
    };
  };
}

export type CallUpstream = ReturnType<typeof createUpstreamCaller>;
