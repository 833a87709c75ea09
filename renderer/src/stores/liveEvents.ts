// Live-events concern: ONE subscription to the backend's event stream, fanned out to whichever
// stores care, plus its connection state for the status indicator.
import { create } from "zustand";
import type { SwitchyardEvent } from "../../../shared/types.js";
import { subscribeEvents, type EventStreamState } from "../transport.js";

interface LiveEventsState {
  stream: EventStreamState;
  lastEventAt: number | null;
  /** Times the stream has (re)opened; a new value means events may have been missed. */
  openCount: number;
}

export const useLiveEvents = create<LiveEventsState>()(() => ({ stream: "closed", lastEventAt: null, openCount: 0 }));

const listeners = new Set<(event: SwitchyardEvent) => void>();
let stop: (() => void) | null = null;

export function startLiveEvents(): () => void {
  if (!stop) {
    stop = subscribeEvents(
      (event) => {
        useLiveEvents.setState({ lastEventAt: Date.now() });
        for (const listener of listeners) listener(event);
      },
      (stream) => useLiveEvents.setState((s) => ({ stream, openCount: stream === "open" ? s.openCount + 1 : s.openCount })),
    );
  }
  return () => {
    stop?.();
    stop = null;
  };
}

export function onLiveEvent(listener: (event: SwitchyardEvent) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Events after which the providers/connections view may be stale (R15.2 push, no polling). */
export function affectsProviders(event: SwitchyardEvent): boolean {
  return event.type === "config" || event.type === "breaker" || event.type.startsWith("cooldown.");
}
