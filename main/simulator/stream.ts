import type { ServerResponse } from "node:http";
import type { FaultSpec } from "./types.js";
import type { Frame, StreamPlan } from "./wire/plan.js";

/** A frame whose data is cut inside a JSON string, as a broken upstream sends it. */
const GARBLED_FRAME = 'data: {"id":"garbled","choices":[{"delta":{"content":"\\u12\n\n';

/** Interval of reasoning frames during `reasoningOnlyMs` when no trickle is set. */
const REASONING_EVERY_MS = 50;

/** Timers for one response; every wait ends early when the response closes (client left, or close()). */
export class Pacer {
  closed = false;
  private timer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;

  constructor(res: ServerResponse) {
    res.once("close", () => {
      this.closed = true;
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      const wake = this.wake;
      this.wake = undefined;
      wake?.();
    });
  }

  sleep(ms: number): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.wake = undefined;
        resolve();
      }, ms);
    });
  }

  /** Resolves only when the response closes: a stall that holds the socket open. */
  untilClosed(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }
}

function isTimed(fault: FaultSpec): boolean {
  return (
    fault.resetAfterChunks !== undefined ||
    fault.stallAfterChunks !== undefined ||
    fault.endAfterChunks !== undefined ||
    fault.garbleAfterChunks !== undefined ||
    fault.errorEventAfterChunks !== undefined ||
    fault.stallBeforeContent === true ||
    (fault.trickleMs ?? 0) > 0 ||
    fault.pingEveryMs !== undefined ||
    (fault.reasoningOnlyMs ?? 0) > 0
  );
}

/** Ends the TCP connection once written bytes are flushed, leaving the chunked body unterminated. */
function endAbruptly(res: ServerResponse): void {
  const socket = res.socket;
  if (!socket) return;
  socket.end(() => socket.destroy());
}

/** Turns frames into text in stream order, numbering those that ask for a sequence number. */
function sequencer(): (frame: Frame) => string {
  let next = 0;
  return (frame) => (typeof frame === "string" ? frame : frame(next++));
}

/** Renders frames in order as one stream's text, numbering those that ask for it. */
export function renderFrames(frames: Frame[]): string {
  const render = sequencer();
  let text = "";
  for (const frame of frames) text += render(frame);
  return text;
}

function joinFrames(plan: StreamPlan): string {
  const render = sequencer();
  let text = "";
  for (const frame of plan.head) text += render(frame);
  for (const frame of plan.open) text += render(frame);
  for (const frame of plan.content) text += render(frame);
  for (const frame of plan.tail) text += render(frame);
  return text;
}

/**
 * Writes a 200 SSE stream whose headers are already set. Without a stream fault the
 * whole plan goes out in one write; otherwise frames are paced and cut as the fault says.
 */
export async function playStream(
  res: ServerResponse,
  plan: StreamPlan,
  fault: FaultSpec | undefined,
  pacer: Pacer | undefined,
  /** The format's error event, for an `errorEventAfterChunks` fault. */
  errorEvent?: string,
): Promise<void> {
  if (fault?.emptyStream) {
    res.end();
    return;
  }
  if (!fault || !pacer || !isTimed(fault)) {
    res.end(joinFrames(plan));
    return;
  }
  res.flushHeaders();
  const trickle = fault.trickleMs ?? 0;
  const render = sequencer();
  const send = async (frame: Frame): Promise<void> => {
    if (pacer.closed) return;
    res.write(render(frame));
    if (trickle > 0) await pacer.sleep(trickle);
  };

  for (const frame of plan.head) await send(frame);
  const reasoningMs = fault.reasoningOnlyMs ?? 0;
  if (plan.thinking && reasoningMs > 0) {
    for (const frame of plan.thinking.start) await send(frame);
    const until = Date.now() + reasoningMs;
    const every = trickle > 0 ? trickle : REASONING_EVERY_MS;
    while (!pacer.closed) {
      res.write(render(plan.thinking.frame));
      const left = until - Date.now();
      if (left <= 0) break;
      await pacer.sleep(Math.min(every, left));
    }
    for (const frame of plan.thinking.end) await send(frame);
  }
  for (const frame of plan.open) await send(frame);

  if (fault.pingEveryMs !== undefined) {
    const every = Math.max(1, fault.pingEveryMs);
    while (!pacer.closed) {
      res.write(plan.keepAlive);
      await pacer.sleep(every);
    }
    return;
  }
  if (fault.stallBeforeContent) {
    await pacer.untilClosed();
    return;
  }

  const total = plan.content.length;
  const at = (n: number | undefined): number => (n === undefined ? -1 : Math.min(n, total));
  const resetAt = at(fault.resetAfterChunks);
  const stallAt = at(fault.stallAfterChunks);
  const endAt = at(fault.endAfterChunks);
  const garbleAt = at(fault.garbleAfterChunks);
  const errorAt = at(fault.errorEventAfterChunks);
  for (let i = 0; i <= total; i++) {
    if (pacer.closed) return;
    if (i === resetAt) {
      endAbruptly(res);
      return;
    }
    if (i === stallAt) {
      await pacer.untilClosed();
      return;
    }
    // A proxy that drops the connection politely: the chunked body ends, the closing frames never come.
    if (i === endAt || i === garbleAt || i === errorAt) {
      res.end(i === garbleAt ? GARBLED_FRAME : i === errorAt ? errorEvent : undefined);
      return;
    }
    if (i < total) await send(plan.content[i]);
  }
  const last = plan.tail.length - 1;
  for (let i = 0; i < last; i++) await send(plan.tail[i]);
  if (!pacer.closed) res.end(last >= 0 ? render(plan.tail[last]) : undefined);
}
