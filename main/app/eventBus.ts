// Fan-out of resilience and config events to the SSE stream, IPC and the tray (R15.2).
import type { SwitchyardEvent } from "../../shared/types.js";

export type EventListener = (event: SwitchyardEvent) => void;

export interface EventBus {
  emit(event: SwitchyardEvent): void;
  subscribe(listener: EventListener): () => void;
}

export function createEventBus(): EventBus {
  const listeners = new Set<EventListener>();
  return {
    emit(event) {
      for (const listener of listeners) {
        try {
          listener(event);
        } catch {
          // A broken subscriber (a closed SSE socket) must not stop the others or the request.
          listeners.delete(listener);
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
