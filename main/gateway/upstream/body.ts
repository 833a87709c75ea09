// An upstream answer's body, fed by undici's dispatch handler (client.ts). It is what Switchyard
// reads of a body and nothing more: the whole text (JSON answers, error bodies) or the chunks in
// order (SSE, with backpressure), and a destroy that stops the upstream request. undici's own
// request() wraps every answer in a Readable stream, an async resource and a promise of its own;
// on the hot path that machinery cost more than the read (issue 12).
import { Cancellation } from "./cancellation.js";

/** The reason `closed` carries: a plain value, so closing allocates no DOMException per answer. */
const DONE = "done";

/** Chunks held unread before the upstream socket is paused (undici's Readable used the same). */
const HIGH_WATER_BYTES = 64 * 1024;

/** A body that ended without an error before it was read whole (a watchdog's destroy). */
function prematureClose(): Error {
  return Object.assign(new Error("Premature close"), { code: "ERR_STREAM_PREMATURE_CLOSE" });
}

export class UpstreamBody implements AsyncIterable<Buffer> {
  /** Held chunks; those before `head` are read and cleared, so the collector can take them. */
  private chunks: Array<Buffer | undefined> = [];
  private head = 0;
  private queued = 0;
  private paused = false;
  /** The upstream said it was done (the chunks may still be unread). */
  private ended = false;
  /** Destroyed or failed: reads reject with `error` (or a premature close). */
  private failed = false;
  private error: Error | undefined = undefined;
  /** Aborted once the body is done with (ended, failed or destroyed); onClose listens to it. */
  private readonly closed = new Cancellation();
  private wake: (() => void) | null = null;

  /**
   * @param resumeUpstream undici's resume for a paused request.
   * @param abortUpstream stops the request (undici then reports the reason as its error).
   * @param abortError what stops a request that is let go unread (undici's RequestAbortedError).
   */
  constructor(
    private readonly resumeUpstream: () => void,
    private readonly abortUpstream: (reason: Error) => void,
    private readonly abortError: () => Error,
  ) {}

  // ---- the dispatch handler's side ----

  /** A chunk arrived; false asks undici to pause the socket until the reader catches up. */
  push(chunk: Buffer): boolean {
    if (this.failed) return false;
    this.chunks.push(chunk);
    this.queued += chunk.length;
    this.notify();
    if (this.queued < HIGH_WATER_BYTES) return true;
    this.paused = true;
    return false;
  }

  /** The upstream finished the body. */
  end(): void {
    this.ended = true;
    this.notify();
    this.closed.abort(DONE);
  }

  /** The request failed (socket, timeout, abort): a pending or later read rejects with `err`. */
  fail(err: Error | undefined): void {
    if (!this.failed && !(this.ended && this.head === this.chunks.length)) {
      this.failed = true;
      this.error = err;
    }
    this.chunks = [];
    this.head = this.queued = 0;
    this.notify();
    this.closed.abort(DONE);
  }

  // ---- the reader's side ----

  /** Stops reading: the upstream request is aborted unless it already ended. */
  destroy(err?: Error): void {
    if (this.failed || this.closed.aborted) {
      if (err !== undefined && !this.failed) this.fail(err);
      return;
    }
    // Failed first: undici answers the abort with its own error, and the reader gets this one.
    this.fail(err);
    this.abortUpstream(err ?? this.abortError());
  }

  /** Calls `listener` once when the body is done with (ended, failed or destroyed). */
  onClose(listener: () => void): void {
    if (this.closed.aborted) return listener();
    this.closed.addEventListener("abort", listener);
  }

  /** The next chunk, null at the end; rejects when the body failed or was destroyed. */
  async read(): Promise<Buffer | null> {
    for (;;) {
      if (this.failed) throw this.error ?? prematureClose();
      const chunk = this.take();
      if (chunk !== undefined) return chunk;
      if (this.ended) return null;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** The body as text: at most `limit` bytes are kept, the rest is read and let go. */
  async text(limit: number): Promise<string> {
    const parts: Buffer[] = [];
    let size = 0;
    for (let chunk = await this.read(); chunk !== null; chunk = await this.read()) {
      if (size < limit) parts.push(chunk.length > limit - size ? chunk.subarray(0, limit - size) : chunk);
      size += chunk.length;
    }
    return parts.length === 1 ? parts[0].toString("utf8") : Buffer.concat(parts).toString("utf8");
  }

  [Symbol.asyncIterator](): AsyncIterator<Buffer> {
    return {
      next: async () => {
        const chunk = await this.read();
        return chunk === null ? { done: true, value: undefined } : { done: false, value: chunk };
      },
      // Leaving the loop early lets the rest of the answer go: the upstream request stops.
      return: async () => {
        this.destroy();
        return { done: true, value: undefined };
      },
    };
  }

  /** The next unread chunk, or undefined when none is held. */
  private take(): Buffer | undefined {
    const chunk = this.head < this.chunks.length ? this.chunks[this.head] : undefined;
    if (chunk === undefined) return undefined;
    this.chunks[this.head++] = undefined;
    if (this.head === this.chunks.length) {
      this.chunks = [];
      this.head = 0;
    }
    this.queued -= chunk.length;
    if (this.paused && this.queued < HIGH_WATER_BYTES) {
      this.paused = false;
      this.resumeUpstream();
    }
    return chunk;
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}
