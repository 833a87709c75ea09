// One-shot cancellations without an AbortController (issue 12): what undici reads of a request's
// signal, and the small object that provides it. The upstream call, the client's response and the
// upstream body each keep one.

/**
 * What undici reads of a request's signal: `aborted`, `reason`, and one 'abort' listener added and
 * removed. An AbortSignal is one; so is the call's own CallCancellation.
 */
export interface UpstreamSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/**
 * A one-shot cancellation: aborted once, with a reason like an AbortSignal's; its listeners run
 * once. A call hands it to undici; a client's response keeps one for "the client left";
 * an upstream body keeps one for "done with".
 */
export class CallCancellation implements UpstreamSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Array<() => void> | null = null;

  addEventListener(_type: "abort", listener: () => void): void {
    if (this.aborted) return;
    (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: "abort", listener: () => void): void {
    const i = this.listeners?.indexOf(listener) ?? -1;
    if (i !== -1) this.listeners?.splice(i, 1);
  }

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason ?? new DOMException("This operation was aborted", "AbortError");
    const listeners = this.listeners;
    this.listeners = null;
    if (listeners) for (const listener of listeners) listener();
  }

  /** Listeners still waiting for an abort (0 once a call released what it subscribed). */
  get listenerCount(): number {
    return this.listeners?.length ?? 0;
  }
}
