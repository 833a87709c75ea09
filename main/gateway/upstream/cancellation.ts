// Cancellation without an AbortController (issue 12), in two types (issue 26 item 12): a
// Cancellation says that something stopped — the client went away, a combo target ran out of
// time, an upstream body is done with — and an ExecutionDeadline (call.ts) is an admitted job's
// time limit, which the upstream call enforces with its own attempt deadline. The call composes
// them into one Cancellation, the only signal its undici handler reads.

const NOTHING_TO_REMOVE = () => {};

/**
 * A one-shot stop, aborted once with a reason like an AbortSignal's; each listener runs once. It
 * has the part of the AbortSignal interface the undici handler reads (`aborted`, `reason`, one
 * 'abort' listener added and removed), plus `subscribe` for those that only wait for it.
 */
export class Cancellation {
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

  /** `listener` runs once when this is aborted (at once if it is); returns what removes it. */
  subscribe(listener: () => void): () => void {
    if (this.aborted) {
      listener();
      return NOTHING_TO_REMOVE;
    }
    this.addEventListener("abort", listener);
    return () => this.removeEventListener("abort", listener);
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
