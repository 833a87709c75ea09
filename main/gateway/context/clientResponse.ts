// The one owner of a client's response: keep-alives while the client waits, the commit of status
// and headers (once), JSON and SSE writes with backpressure, the error in the client's format
// before or after the commit, and the request-log row (its RequestRecord's) and live `request`
// event, exactly once.
import type { IncomingHttpHeaders } from "node:http";
import type { ClientSink } from "./clientSink.js";
import type { RequestLogEntry, SwitchyardEvent, WireFormat } from "../../../shared/types.js";
import type { Clock } from "../../engine/ports.js";
import type { ErrorCode } from "../../../shared/errorCodes.js";
import { clientHalf, errorBody, errorFrame, sameFormatHalf } from "../formats/index.js";
import type { LateAnswer, NumberedKeepAlive, StreamFraming } from "../formats/adapter.js";
import type { OutFrame } from "../formats/types.js";
import { lateAnswer, lateAnswerOf, retryFields, waitOf } from "./errorAnswer.js";
import { JsonArrayStream } from "./jsonArrayStream.js";
import type { UsageSummary } from "../formats/usage.js";
import { passesSoon, type FinalError } from "./outcome.js";
import type { RequestLogSink } from "./ports.js";
import { RequestRecord, type UsageMeter } from "./requestRecord.js";
import { Cancellation } from "../upstream/cancellation.js";

export interface ClientResponseOptions {
  format: WireFormat;
  requestId: string;
  model: string;
  stream: boolean;
  clock: Clock;
  log: RequestLogSink;
  /** R18.1, R18.4: prices the row and counts it against budgets (absent = unpriced). */
  meter?: UsageMeter;
  emit: (event: SwitchyardEvent) => void;
  /** How a stream is framed for this client (default SSE). */
  framing?: StreamFraming;
}

/** What the writer hands to the features: every text the client receives, the JSON answer, and the row. */
export interface AnswerHooks {
  /**
   * Every text written to the client: a whole JSON answer (no frames), or stream frames as they go
   * out, with the frames themselves (an encoder's carry their data: nothing need parse the text).
   */
  frame(text: string, frames: readonly OutFrame[]): void;
  /** The JSON answer before it is written; a feature may give another shape in its place (a compaction). */
  answer(body: unknown): unknown;
  finished(entry: RequestLogEntry): void;
}

/** Sees every answer that goes out (a Responses turn keeps what it served, R16.4, R16.7). */
export interface AnswerObserver {
  json(body: unknown): void;
  /** Stream text as written to the client, whole frames, and the frames it was made of (their data, where an encoder made them). */
  streamText(text: string, frames: readonly OutFrame[]): void;
}

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-accel-buffering": "no",
} as const;

const JSON_ARRAY_STREAM_HEADERS = { ...SSE_HEADERS, "content-type": "application/json; charset=utf-8" } as const;

/** R1.4, R1.8, R16.6: one header line per warning, never two warnings joined in one value or one overwriting another. */
export const WARNING_HEADER = "X-Switchyard-Warning";

/**
 * The client's response. Its `departure` is the request's cancellation: the client leaving cancels
 * what subscribed (the upstream call), and an AbortSignal is made only for a stage that asks for
 * one (a wait in a queue or between combo passes), not for every request (issue 12).
 */
export class ClientResponse {
  readonly startedAt: number;
  /** The request's log row: the stages feed it, and it is written when the answer is done. */
  readonly record: RequestRecord;
  private bytesOut = 0;
  /** Aborted when the client goes away before its answer was written; the upstream call subscribes to it. */
  readonly departure = new Cancellation();
  private controller: AbortController | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private attemptsStarted = 0;
  private successHeaders: Record<string, string> = {};
  private extraHeaders: Record<string, string> = {};
  /** The request's warnings, on whatever answer goes out. */
  private warnings: string[] = [];
  /** The answering attempt's warning (what its upstream format could not carry), on a success only. */
  private answerWarning: string | null = null;
  private ttfbMs: number | null = null;
  private logged = false;
  private answering: string | null = null;
  /** The last stream text written: a mid-stream error continues its event numbering (Responses). */
  private lastWritten = "";
  /** Numbered keep-alives sent before the stream's own events, which then count on from them. */
  private numbering: NumberedKeepAlive | null = null;
  private keepAlivesSent = 0;
  /** Set for a stream framed as a JSON array (Gemini without alt=sse). */
  private readonly array: JsonArrayStream | null;
  private readonly streamHeaders: Readonly<Record<string, string>>;
  /** The request's features that see what is served (null when none listens: no cost). */
  hooks: AnswerHooks | null = null;

  constructor(
    private readonly res: ClientSink,
    private readonly opts: ClientResponseOptions,
  ) {
    this.startedAt = opts.clock.now();
    this.record = new RequestRecord(opts.requestId, opts.format, opts.model, opts.stream, this.startedAt);
    this.array = opts.framing === "json-array" ? new JsonArrayStream() : null;
    this.streamHeaders = this.array ? JSON_ARRAY_STREAM_HEADERS : SSE_HEADERS;
    res.on("close", () => {
      if (!res.writableFinished) this.leave();
    });
  }

  get requestId(): string {
    return this.opts.requestId;
  }

  get format(): WireFormat {
    return this.opts.format;
  }

  /** Whether the client asked for a stream. */
  get streaming(): boolean {
    return this.opts.stream;
  }

  /** Aborted when the client goes away before its answer was written (made on first use). */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.departure.aborted) this.controller.abort();
    }
    return this.controller.signal;
  }

  /** The request's outcome is decided: the client was answered (or left) and its log row written. */
  get settled(): boolean {
    return this.logged;
  }

  get gone(): boolean {
    return this.departure.aborted;
  }

  private leave(): void {
    if (this.departure.aborted) return;
    this.departure.abort();
    this.controller?.abort();
  }

  get committed(): boolean {
    return this.res.headersSent;
  }

  /** The answer's first content went out (keep-alive frames do not count): a combo's target deadline no longer applies. */
  get outputStarted(): boolean {
    return this.ttfbMs !== null;
  }

  /** Counts the attempt about to be sent: the attempts header of a stream includes it. */
  attemptStarted(): void {
    this.attemptsStarted++;
  }

  /** The attempt that will answer: its connection and the fields its translation dropped. */
  answeredBy(connectionId: string, dropped: string[], upstreamHeaders?: IncomingHttpHeaders): void {
    this.answering = connectionId;
    // R1.4, R16.6: what the upstream's format cannot carry is named, and warned about in words.
    this.successHeaders = dropped.length
      ? { "X-OmniRoute-Selected-Connection-Id": connectionId, "X-Switchyard-Dropped-Fields": dropped.join(",") }
      : { "X-OmniRoute-Selected-Connection-Id": connectionId };
    // R21.10: a same-format answer carries the serving account's own rate-limit and request-id headers.
    const passed = upstreamHeaders && sameFormatHalf(this.opts.format).answerHeaders?.(upstreamHeaders);
    if (passed) Object.assign(this.successHeaders, passed);
    this.answerWarning = dropped.length ? `not sent to this upstream's format: ${dropped.join(", ")}` : null;
  }

  /** The connection of the attempt that answers, once one does. */
  get answeringConnectionId(): string | null {
    return this.answering;
  }

  /**
   * A header for whatever answer goes out (success or error); too late once the stream is committed.
   * Each warning is a line of its own; any other name is sent once, with its last value.
   */
  addHeader(name: string, value: string): void {
    if (name.toLowerCase() === WARNING_HEADER.toLowerCase()) this.warnings.push(value);
    else this.extraHeaders[name] = value;
  }

  /**
   * While a streaming client waits for the first content (slow upstream, failover), commit the
   * 200 stream and send keep-alive frames so proxies and clients do not time out (R13). With
   * `numbered`, the keep-alives are events of the stream's numbering (R16.3, Codex), and what the
   * stream sends later is numbered after them.
   */
  startHeartbeat(everyMs: number, numbered?: NumberedKeepAlive): void {
    const frame = clientHalf(this.opts.format).heartbeatFrame;
    this.heartbeat = setInterval(() => {
      if (this.res.writableEnded || this.gone) return this.stopHeartbeat();
      if (!this.res.headersSent) this.res.writeHead(200, { ...this.baseHeaders(), ...this.streamHeaders });
      if (!numbered) return void this.res.write(frame);
      this.numbering = numbered;
      this.res.write(numbered.frame(this.keepAlivesSent++));
    }, everyMs);
    this.heartbeat.unref();
  }

  stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  /** The first client-visible frame is about to go out: the 200 stream is committed (once). */
  commitStream(): void {
    this.stopHeartbeat();
    this.markFirstOutput();
    if (this.res.headersSent) return;
    this.res.writeHead(200, { ...this.baseHeaders(true), ...this.successHeaders, ...this.streamHeaders });
  }

  /**
   * Writes SSE text, the text of `frames`; false when the socket is full and the writer should wait
   * for `drained()`. The hooks get the frames too, so they read their data, not the text (issue 33).
   */
  write(text: string, frames: readonly OutFrame[] = []): boolean {
    if (!text || this.res.writableEnded) return true;
    if (this.numbering) text = this.numbering.shift(text, this.keepAlivesSent);
    if (this.array) text = this.array.elements(text);
    this.bytesOut += Buffer.byteLength(text);
    this.lastWritten = text;
    this.hooks?.frame(text, frames);
    return this.res.write(text);
  }

  /** Resolves once the socket can take more, or the client left. */
  drained(): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        this.res.off("drain", done);
        this.res.off("close", done);
        resolve();
      };
      this.res.on("drain", done);
      this.res.on("close", done);
    });
  }

  endStream(usage: UsageSummary | null = null): void {
    this.res.end(this.array?.close());
    this.finish(200, null, usage);
  }

  /** The answer, as a value or as JSON text already written (a same-format pass-through). */
  sendJson(body: unknown, usage: UsageSummary | null = null): void {
    this.markFirstOutput();
    if (this.hooks) body = this.hooks.answer(body);
    const text = typeof body === "string" ? body : JSON.stringify(body);
    this.hooks?.frame(text, []);
    this.bytesOut += this.endWhole(200, this.successJsonHeaders(), text);
    this.finish(200, null, usage);
  }

  /**
   * The final error: a JSON error before the commit; after it (keep-alives went out) an error event
   * in the stream that carries what the status line and headers would have (R24.4).
   */
  fail(err: FinalError): void {
    this.stopHeartbeat();
    const { retryAfterSeconds, now, windowAnswer } = waitOf(err, this.opts.format, this.opts.clock.now());
    // R25.2: a prompt too long for every window says so in the client's vendor's words.
    if (err.context) err = { ...err, message: clientHalf(this.opts.format).contextOverflowMessage(err.context.tokens, err.context.window) };
    if (this.res.headersSent) return this.failInStream(err, lateAnswer(err, now, retryAfterSeconds, windowAnswer?.extra));
    const headers: Record<string, string | string[]> = { ...this.baseHeaders(), "content-type": "application/json", ...err.headers };
    // R25.6: Retry-After names only a wait the client should take (≤ 60 s); a longer one is a refusal
    // that will not pass soon (the body still says when it ends).
    const soon = retryAfterSeconds !== null && passesSoon(retryAfterSeconds * 1000);
    if (soon) headers["retry-after"] = String(retryAfterSeconds);
    if (err.noRetry || (retryAfterSeconds !== null && !soon)) headers["x-should-retry"] = "false";
    let extra = retryFields(err, now, retryAfterSeconds);
    if (windowAnswer) {
      Object.assign(headers, windowAnswer.headers);
      extra = { ...extra, ...windowAnswer.extra };
    }
    this.endWhole(err.status, headers, JSON.stringify(errorBody(this.opts.format, err.status, err.code, err.message, extra, retryAfterSeconds)));
    this.finish(err.status, err.code);
  }

  /**
   * An upstream error body already in the client's format goes out as it is (logged under the
   * verdict's reason); once the stream is committed it becomes the error event of `err`.
   */
  passUpstreamError(err: FinalError, bodyText: string, reason: string, upstreamShouldRetry: boolean | null = null): void {
    this.stopHeartbeat();
    if (this.res.headersSent) return this.fail(err);
    // R25.6: the upstream's own x-should-retry goes with its own body.
    const shouldRetry = upstreamShouldRetry === null ? "false" : String(upstreamShouldRetry);
    this.endWhole(err.status, { ...this.baseHeaders(), "content-type": "application/json", "x-should-retry": shouldRetry }, bodyText);
    this.finish(err.status, reason);
  }

  /**
   * The stream broke after output began: it ends with an error event, logged as a 200 with its code.
   * `wait`: what the answer would have said of the wait had it come first (R24.4: a window that ran
   * out mid-stream names its reset in the error event, as it would in the status line).
   */
  failAfterOutput(code: ErrorCode, message: string, usage: UsageSummary | null = null, wait: FinalError | null = null): void {
    const late = wait ? lateAnswerOf(wait, this.opts.format, this.opts.clock.now()) : undefined;
    if (!this.res.writableEnded) this.res.end(this.closingError(code, message, late));
    this.finish(200, code, usage);
  }

  clientClosed(): void {
    this.stopHeartbeat();
    this.finish(499, "client_closed_request");
  }

  /** R24.4: the final answer after the commit, as the stream's error event; logged under its own status. */
  private failInStream(err: FinalError, late: LateAnswer): void {
    if (!this.res.writableEnded) this.res.end(this.closingError(err.code, err.message, late));
    this.finish(err.status, err.code);
  }

  /** The error event that ends a committed stream, in its framing. */
  private closingError(code: ErrorCode, message: string, late?: LateAnswer): string {
    const frame = errorFrame(this.opts.format, code, message, this.numberedSoFar(), late);
    return this.array ? this.array.elements(frame) + this.array.close() : frame;
  }

  /** What the error frame continues from: the last text written, or the last keep-alive when nothing else was. */
  private numberedSoFar(): string {
    if (this.lastWritten || !this.numbering || this.keepAlivesSent === 0) return this.lastWritten;
    return this.numbering.frame(this.keepAlivesSent - 1);
  }

  /**
   * A whole answer with its length: status line, headers and body leave in one socket write
   * (without a length, node frames the body as chunks and writes several buffers). Returns the
   * body's bytes.
   */
  private endWhole(status: number, headers: Record<string, string | string[]> | string[], text: string): number {
    const bytes = Buffer.byteLength(text);
    if (Array.isArray(headers)) headers.push("content-length", String(bytes));
    else headers["content-length"] = String(bytes);
    this.res.writeHead(status, headers);
    this.res.end(text);
    return bytes;
  }

  private markFirstOutput(): void {
    this.ttfbMs ??= this.opts.clock.now() - this.startedAt;
  }

  /**
   * A JSON success's headers, in baseHeaders' order then the success headers, as writeHead's flat
   * [name, value, …] list: every answer of the hot path would otherwise build and spread two
   * objects for node to walk again (issue 12). Only the warning's name repeats, once per warning.
   */
  private successJsonHeaders(): string[] {
    const list = this.baseHeaderList();
    for (const name in this.successHeaders) list.push(name, this.successHeaders[name]);
    for (const warning of this.warningsFor(true)) list.push(WARNING_HEADER, warning);
    list.push("content-type", "application/json");
    return list;
  }

  /** The warnings of the answer going out: the request's, then on a success the answering attempt's. */
  private warningsFor(success: boolean): string[] {
    return success && this.answerWarning !== null ? [...this.warnings, this.answerWarning] : this.warnings;
  }

  /** The headers every answer carries (success or error), as writeHead's flat list. */
  private baseHeaderList(): string[] {
    const list = ["X-Switchyard-Request-Id", this.opts.requestId, "X-Switchyard-Attempts", String(this.attemptsStarted)];
    for (const name in this.extraHeaders) list.push(name, this.extraHeaders[name]);
    return list;
  }

  /** The same headers as an object, for the answers that add or override some by name; the warnings as a list, one line each. */
  private baseHeaders(success = false): Record<string, string | string[]> {
    const list = this.baseHeaderList();
    const headers: Record<string, string | string[]> = {};
    for (let i = 0; i < list.length; i += 2) headers[list[i]] = list[i + 1]!;
    const warnings = this.warningsFor(success);
    if (warnings.length > 0) headers[WARNING_HEADER] = warnings;
    return headers;
  }

  private finish(status: number, errorCode: string | null, usage: UsageSummary | null = null): void {
    if (this.logged) return;
    this.logged = true;
    const now = this.opts.clock.now();
    const entry = this.record.entry({ status, errorCode, usage, ttfbMs: this.ttfbMs, bytesOut: this.bytesOut, now }, this.opts.meter);
    this.opts.log.append(entry);
    this.opts.emit({ type: "request", entry, at: now });
    this.hooks?.finished(entry);
  }
}
