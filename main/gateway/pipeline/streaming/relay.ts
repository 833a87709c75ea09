// Relays one upstream SSE attempt to the client, frame by frame (R13.1). Lifecycle frames that
// arrive before the first content are held back so that a stall or an empty stream can still
// fail over invisibly (R13.2, R13.7); after the first client-visible byte nothing is replayed.
import { createParser } from "eventsource-parser";
import { isToolOrReasoningEvent, textDeltaBytes, type OutFrame, type StreamTranslator } from "../../formats/index.js";
import { isRecord } from "../../../../shared/records.js";
import type { WireFormat } from "../../../../shared/types.js";
import { createThroughputWatchdog, type ThroughputSettings } from "./throughput.js";
import { limitEventReader } from "../../formats/limitEvents.js";
import { isWindowExhaustion } from "../../formats/answerReader.js";
import type { ClientResponse } from "../../context/clientResponse.js";
import type { UpstreamCall } from "../../upstream/call.js";
import type { ContinuationStitch, StreamTranscript } from "../../context/streamTranscript.js";

export interface StreamBudgets {
  /** No model output (content, reasoning, tool) for this long aborts the attempt; 0 = off. */
  contentStallTimeoutMs: number;
  /** No upstream byte at all for this long aborts the attempt; 0 = off. */
  idleTimeoutMs: number;
  /** Opt-in useful-output rate watchdog (R13.5). */
  throughput: ThroughputSettings;
}

import type { StreamFailureCode, StreamOutcome } from "../../context/attempt.js";
export type { StreamFailureCode, StreamOutcome };

const PROGRESS_KINDS = new Set(["content", "reasoning", "tool"]);

/**
 * A frame whose data is cut or garbled (neither a JSON object/array nor [DONE]) must not reach
 * the client: it fails the attempt, which fails over before the first byte and ends the stream
 * with an error event after it (found by the chaos run, issue 13). Ends are checked, not parsed,
 * to keep the hot path cheap.
 */
function isMalformedData(data: string): boolean {
  const text = data.trim();
  if (text === "" || text === "[DONE]") return false;
  const first = text.charCodeAt(0);
  const last = text.charCodeAt(text.length - 1);
  return !((first === 0x7b && last === 0x7d) || (first === 0x5b && last === 0x5d));
}

export interface RelayOptions {
  /** The upstream call; its deadline (R13.6) ends the stream as `stream_attempt_deadline`. */
  call: UpstreamCall;
  upstreamFormat: WireFormat;
  translator: StreamTranslator;
  /** Where the frames go; committed right before the first client-visible frame. */
  client: ClientResponse;
  budgets: StreamBudgets;
  /** R13.3: what reached the client, kept when mid-stream continuation is on. */
  transcript?: StreamTranscript | null;
  /** R13.3: this attempt continues a broken stream: only its new suffix reaches the client. */
  stitch?: ContinuationStitch | null;
}

/**
 * The stall, idle and throughput watchdogs of one stream: one re-armed timer rather than an
 * interval, so it wakes only when a budget may end. They measure real elapsed time on purpose:
 * a jump of the test clock (`--test-clock`) must not make a healthy stream look stalled.
 */
function createWatchdogs(budgets: StreamBudgets, onFire: (code: StreamFailureCode) => void) {
  const startedAt = Date.now();
  let lastProgressAt = startedAt;
  let lastByteAt = startedAt;
  let timer: NodeJS.Timeout | null = null;
  let fired: StreamFailureCode | null = null;
  const throughput = budgets.throughput.enabled ? createThroughputWatchdog(budgets.throughput, startedAt) : null;

  const fire = (code: StreamFailureCode) => {
    if (fired) return;
    fired = code;
    onFire(code);
  };
  const arm = () => {
    const now = Date.now();
    const deadlines: Array<[number, StreamFailureCode]> = [];
    if (budgets.contentStallTimeoutMs > 0) deadlines.push([lastProgressAt + budgets.contentStallTimeoutMs, "stream_content_stall"]);
    if (budgets.idleTimeoutMs > 0) deadlines.push([lastByteAt + budgets.idleTimeoutMs, "stream_idle_timeout"]);
    if (throughput) {
      if (throughput.tooSlow(now)) return fire("STREAM_THROUGHPUT_TOO_LOW");
      deadlines.push([throughput.nextCheckAt(now), "STREAM_THROUGHPUT_TOO_LOW"]);
    }
    if (!deadlines.length) return;
    deadlines.sort((a, b) => a[0] - b[0]);
    const [when, code] = deadlines[0];
    if (when <= now && code !== "STREAM_THROUGHPUT_TOO_LOW") return fire(code);
    timer = setTimeout(() => {
      timer = null;
      arm();
    }, when - now);
    timer.unref?.();
  };
  arm();
  return {
    fired: () => fired,
    byte: () => void (lastByteAt = Date.now()),
    event(upstreamFormat: WireFormat, evt: { event?: string; data: string }) {
      if (!throughput) return;
      const now = Date.now();
      if (isToolOrReasoningEvent(upstreamFormat, evt)) throughput.suspend(now);
      else throughput.record(now, textDeltaBytes(upstreamFormat, evt));
    },
    progress: () => void (lastProgressAt = Date.now()),
    stop: () => void (timer && clearTimeout(timer)),
  };
}

/**
 * Holds lifecycle frames until the first progress frame, then commits and gathers output per chunk.
 * The frames go to the client with their text, so what reads them there has their data (issue 33).
 */
function createFrameGate(client: ClientResponse) {
  let held: OutFrame[] = [];
  let out: OutFrame[] = [];
  let committed = false;
  let sawTerminalFrame = false;
  const commit = () => {
    committed = true;
    client.commitStream();
  };
  /** false when the client's socket is full: the caller waits for it to drain. */
  const flush = (): boolean => {
    if (out.length === 0) return true;
    const frames = out;
    out = [];
    let text = "";
    for (const f of frames) text += f.text;
    return client.write(text, frames);
  };
  return {
    committed: () => committed,
    sawTerminalFrame: () => sawTerminalFrame,
    collect(frames: OutFrame[]) {
      for (const f of frames) {
        if (f.kind === "done") sawTerminalFrame = true;
        if (committed) {
          out.push(f);
          continue;
        }
        held.push(f);
        if (!PROGRESS_KINDS.has(f.kind)) continue;
        commit();
        out.push(...held);
        held = [];
      }
    },
    // Frames of one upstream chunk are written once: one syscall per chunk, not per frame.
    flush,
    /** The stream ended well: the held frames and the translator's closing frames go out. */
    close(closing: OutFrame[]): boolean {
      if (!committed) commit();
      out.push(...held, ...closing);
      held = [];
      return flush();
    },
  };
}

export async function relayStream(opts: RelayOptions): Promise<StreamOutcome> {
  const { call, translator, client } = opts;
  let refused = false;
  const watchdogs = createWatchdogs(opts.budgets, (code) => call.abort(code));
  const gate = createFrameGate(client);
  /** The frames of this attempt that may reach the client (all of them unless it is a continuation). */
  const toClient = (frames: OutFrame[]): OutFrame[] => {
    if (!opts.stitch) {
      opts.transcript?.record(frames);
      return frames;
    }
    const stitched = opts.stitch.filter(frames);
    if (stitched !== null) return stitched;
    refused = true;
    call.abort("stream_continuation_refused");
    return [];
  };
  const pending: Array<{ event?: string; data: string }> = [];
  const parser = createParser({ onEvent: (evt) => pending.push({ event: evt.event, data: evt.data }) });
  const decoder = new TextDecoder();
  const readLimitEvent = limitEventReader(opts.upstreamFormat);
  /** R21.4: the error body of the event that said the account's window ran out, once one did. */
  let windowExhausted: string | null = null;
  /** R25.4: the data of the error event the upstream ended the stream with, once it did. */
  let errorEvent: string | null = null;
  const push = (evt: { event?: string; data: string }) => {
    if (isMalformedData(evt.data)) throw new Error("upstream sent a malformed SSE frame");
    const limit = readLimitEvent?.(evt) ?? null;
    if (limit !== null && isWindowExhaustion(call.response.headers, limit)) {
      // Not relayed: before output the attempt fails over unseen, after it the stream ends with the format's error.
      windowExhausted = opts.call.redact(limit);
      throw new Error("upstream stream ended on a used-up usage window");
    }
    watchdogs.event(opts.upstreamFormat, evt);
    const frames = translator.push(evt);
    let progress = false;
    for (const f of frames) {
      if (f.kind === "error") {
        // R25.4: a failure of its class, never relayed as if the stream had ended well.
        // Upstreams echo a refused key in their error text: the row and the connection keep it redacted.
        errorEvent = opts.call.redact(evt.data);
        throw new Error("upstream stream carried an error event");
      }
      if (PROGRESS_KINDS.has(f.kind)) progress = true;
    }
    if (progress) watchdogs.progress();
    gate.collect(toClient(frames));
  };
  try {
    for await (const chunk of call.response.body) {
      watchdogs.byte();
      parser.feed(decoder.decode(chunk, { stream: true }));
      while (pending.length) push(pending.shift()!);
      if (!gate.flush()) await client.drained();
      if (client.gone) return { kind: "client_gone" };
    }
    parser.feed(decoder.decode());
    for (const evt of pending.splice(0)) push(evt);
    if (!gate.flush()) await client.drained();
    const fired = watchdogs.fired();
    if (fired) throw new Error(fired);
  } catch (err) {
    if (client.gone) return { kind: "client_gone" };
    const code: StreamFailureCode =
      windowExhausted !== null
        ? "window_exhausted"
        : errorEvent !== null
          ? "stream_error_event"
          : refused
            ? "stream_continuation_refused"
            : call.timedOut()
              ? "stream_attempt_deadline"
              : (watchdogs.fired() ?? "stream_transport_error");
    const detail = windowExhausted ?? errorEvent ?? (code === "stream_transport_error" ? String((isRecord(err) ? err["message"] : undefined) ?? err) : code);
    if (!gate.committed()) return { kind: "failed_before_output", code, detail };
    // Frames gathered from the chunk that held the bad frame still go out before the error event.
    gate.flush();
    return { kind: "failed_after_output", code, detail };
  } finally {
    watchdogs.stop();
  }
  if (client.gone) return { kind: "client_gone" };
  const closing = translator.end();
  // Frames synthesised by end() do not count: only an upstream that said it was done is complete.
  if (!gate.committed() && !translator.hasContent() && !gate.sawTerminalFrame()) {
    return { kind: "failed_before_output", code: "STREAM_EARLY_EOF", detail: "upstream stream ended before its first event" };
  }
  if (!translator.finished() && !gate.sawTerminalFrame()) {
    // Cut short after content: closing it with synthesised frames would hand the client a truncated
    // answer as a complete one (found by the chaos run), so it ends with an error event instead,
    // or continues elsewhere when mid-stream continuation is on (R13.3).
    const detail = "upstream stream ended before its final event";
    return gate.committed() ? { kind: "failed_after_output", code: "STREAM_EARLY_EOF", detail } : { kind: "failed_before_output", code: "STREAM_EARLY_EOF", detail };
  }
  // A well-formed but empty completion (the upstream sent its own terminal frames) commits here.
  if (!gate.close(toClient(closing))) await client.drained();
  return { kind: "completed" };
}
