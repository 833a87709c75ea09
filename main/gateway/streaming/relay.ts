// Relays one upstream SSE attempt to the client, frame by frame (R13.1). Lifecycle frames that
// arrive before the first content are held back so that a stall or an empty stream can still
// fail over invisibly (R13.2, R13.7); after the first client-visible byte nothing is replayed.
import type { ServerResponse } from "node:http";
import { createParser } from "eventsource-parser";
import { isToolOrReasoningEvent, textDeltaBytes, type OutFrame, type StreamTranslator } from "../formats/index.js";
import type { WireFormat } from "../../../shared/types.js";
import { createThroughputWatchdog, type ThroughputSettings } from "./throughput.js";
import type { UpstreamResponse } from "../upstream/client.js";

export interface StreamBudgets {
  /** No model output (content, reasoning, tool) for this long aborts the attempt; 0 = off. */
  contentStallTimeoutMs: number;
  /** No upstream byte at all for this long aborts the attempt; 0 = off. */
  idleTimeoutMs: number;
  /** Hard limit on the whole attempt, independent of the watchdogs (R13.6). */
  attemptDeadlineMs: number;
  /** Opt-in useful-output rate watchdog (R13.5). */
  throughput: ThroughputSettings;
}

export type StreamOutcome =
  | { kind: "completed" }
  | { kind: "client_gone" }
  /** Nothing reached the client: the caller may fail over. */
  | { kind: "failed_before_output"; code: StreamFailureCode; detail: string }
  /** The client already has bytes: the caller ends the stream with an error event. */
  | { kind: "failed_after_output"; code: StreamFailureCode; detail: string };

export type StreamFailureCode =
  | "STREAM_EARLY_EOF"
  | "stream_content_stall"
  | "stream_idle_timeout"
  | "stream_attempt_deadline"
  | "STREAM_THROUGHPUT_TOO_LOW"
  | "stream_transport_error";

const PROGRESS_KINDS = new Set(["content", "reasoning", "tool"]);

export interface RelayOptions {
  upstream: UpstreamResponse;
  upstreamFormat: WireFormat;
  translator: StreamTranslator;
  res: ServerResponse;
  /** Aborts the upstream request; the relay calls it when a watchdog fires. */
  abortUpstream: (reason: string) => void;
  /** Called once, right before the first byte goes to the client (writes status + headers). */
  commit: () => void;
  budgets: StreamBudgets;
  isClientGone: () => boolean;
  /** Called with the time of the first client-visible frame. */
  onFirstOutput?: () => void;
}

function waitDrain(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

export async function relayStream(opts: RelayOptions): Promise<StreamOutcome> {
  const { upstream, translator, res, budgets } = opts;
  let held: OutFrame[] = [];
  let committed = false;
  let sawTerminalFrame = false;
  let watchdog: StreamFailureCode | null = null;
  const startedAt = Date.now();
  let lastProgressAt = startedAt;
  let lastByteAt = startedAt;
  let timer: NodeJS.Timeout | null = null;
  const throughput = budgets.throughput.enabled ? createThroughputWatchdog(budgets.throughput, startedAt) : null;

  const fire = (code: StreamFailureCode) => {
    if (watchdog) return;
    watchdog = code;
    opts.abortUpstream(code);
  };
  // One re-armed timer per stream rather than an interval: it wakes only when a budget may end.
  const arm = () => {
    const now = Date.now();
    const deadlines: Array<[number, StreamFailureCode]> = [];
    if (budgets.attemptDeadlineMs > 0) deadlines.push([startedAt + budgets.attemptDeadlineMs, "stream_attempt_deadline"]);
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

  // Frames of one upstream chunk are gathered and written once: one syscall per chunk, not per frame.
  let out = "";
  const collect = (frames: OutFrame[]) => {
    for (const f of frames) {
      if (f.kind === "done") sawTerminalFrame = true;
      if (committed) {
        out += f.text;
        continue;
      }
      held.push(f);
      if (!PROGRESS_KINDS.has(f.kind)) continue;
      committed = true;
      opts.commit();
      opts.onFirstOutput?.();
      out += held.map((h) => h.text).join("");
      held = [];
    }
  };
  const flush = async () => {
    if (!out) return;
    const text = out;
    out = "";
    if (!res.write(text)) await waitDrain(res);
  };

  const pending: Array<{ event?: string; data: string }> = [];
  const parser = createParser({ onEvent: (evt) => pending.push({ event: evt.event, data: evt.data }) });
  const decoder = new TextDecoder();
  arm();
  try {
    for await (const chunk of upstream.body) {
      lastByteAt = Date.now();
      parser.feed(decoder.decode(chunk as Buffer, { stream: true }));
      while (pending.length) {
        const evt = pending.shift()!;
        if (throughput) {
          const now = Date.now();
          if (isToolOrReasoningEvent(opts.upstreamFormat, evt)) throughput.suspend(now);
          else throughput.record(now, textDeltaBytes(opts.upstreamFormat, evt));
        }
        const frames = translator.push(evt);
        if (frames.some((f) => PROGRESS_KINDS.has(f.kind))) lastProgressAt = Date.now();
        collect(frames);
      }
      await flush();
      if (opts.isClientGone()) return { kind: "client_gone" };
    }
    parser.feed(decoder.decode());
    for (const evt of pending.splice(0)) collect(translator.push(evt));
    await flush();
    if (watchdog) throw new Error(watchdog);
  } catch (err) {
    if (opts.isClientGone()) return { kind: "client_gone" };
    const code: StreamFailureCode = watchdog ?? "stream_transport_error";
    const detail = watchdog ? code : String((err as Error)?.message ?? err);
    return committed ? { kind: "failed_after_output", code, detail } : { kind: "failed_before_output", code, detail };
  } finally {
    if (timer) clearTimeout(timer);
  }
  if (opts.isClientGone()) return { kind: "client_gone" };
  const closing = translator.end();
  // Frames synthesised by end() do not count: only an upstream that said it was done is complete.
  if (!committed && !translator.hasContent() && !sawTerminalFrame) {
    return { kind: "failed_before_output", code: "STREAM_EARLY_EOF", detail: "upstream stream ended before its first event" };
  }
  if (!committed) {
    // A well-formed but empty completion (the upstream sent its own terminal frames).
    committed = true;
    opts.commit();
    opts.onFirstOutput?.();
  }
  const rest = [...held, ...closing].map((f) => f.text).join("");
  held = [];
  if (rest) res.write(rest);
  return { kind: "completed" };
}
