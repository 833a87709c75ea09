// One backend read kept fresh by the event stream (R15.2): a zustand store holding the data, a
// reload that collapses bursts of events into one fetch without ever leaving the view older than
// the last event, and a watch() that pages call while they are shown. Shared by every page so
// each concern only says what to load and which events make it stale.
import { create, type StoreApi, type UseBoundStore } from "zustand";
import type { SwitchyardEvent } from "../../../shared/types.js";
import { ContractCallError } from "../callError.js";
import { onLiveEvent, useLiveEvents } from "./liveEvents.js";
import { createThrottle } from "./throttle.js";

export type LoadStatus = "idle" | "loading" | "ready" | "error";

export interface ResourceState<T> {
  data: T | null;
  status: LoadStatus;
  error: string | null;
  /**
   * Local Date.now() when `data` arrived; countdowns subtract the time elapsed since then. It is
   * browser time, so only ever compare it with browser time, never with an instant the server sent
   * (under --test-clock the server's clock runs ahead).
   */
  loadedAt: number;
  reload(): Promise<void>;
}

export interface LiveResource<T> {
  use: UseBoundStore<StoreApi<ResourceState<T>>>;
  /** Loads now and keeps the data fresh until the returned function is called. */
  watch(): () => void;
}

export function errorText(err: unknown): string {
  if (err instanceof ContractCallError) return err.message;
  return err instanceof Error ? err.message : String(err);
}

export interface LiveResourceOptions {
  /**
   * Least time between two loads caused by events (0: none). For reads that every request makes
   * stale: a burst of traffic then costs one load per interval, not one per request.
   */
  minReloadIntervalMs?: number;
}

export function createLiveResource<T>(load: () => Promise<T>, affects: (event: SwitchyardEvent) => boolean, options: LiveResourceOptions = {}): LiveResource<T> {
  let inFlight: Promise<void> | null = null;
  let again = false;
  const minReloadIntervalMs = options.minReloadIntervalMs ?? 0;
  const throttle = createThrottle(() => void use.getState().reload(), minReloadIntervalMs);

  const use = create<ResourceState<T>>()((set) => ({
    data: null,
    status: "idle",
    error: null,
    loadedAt: 0,
    reload() {
      if (inFlight) {
        // A change arrived while fetching: fetch once more afterwards instead of racing.
        again = true;
        return inFlight;
      }
      inFlight = (async () => {
        try {
          do {
            again = false;
            set((s) => ({ status: s.status === "ready" ? "ready" : "loading" }));
            throttle.ran();
            try {
              const data = await load();
              set({ data, status: "ready", error: null, loadedAt: Date.now() });
            } catch (err) {
              set({ status: "error", error: errorText(err) });
            }
          } while (again);
        } finally {
          inFlight = null;
        }
      })();
      return inFlight;
    },
  }));

  // Several pages may watch one resource; they share one subscription.
  let watchers = 0;
  let stop: (() => void) | null = null;

  function watch(): () => void {
    watchers += 1;
    const { reload } = use.getState();
    if (watchers === 1) {
      const offEvent = onLiveEvent((event) => {
        if (!affects(event)) return;
        if (minReloadIntervalMs > 0) throttle.request();
        else void reload();
      });
      // Events sent before the stream (re)opened are lost, so a reopen means "reload".
      const offReopen = useLiveEvents.subscribe((state, previous) => {
        if (state.openCount > previous.openCount) void reload();
      });
      stop = () => {
        offEvent();
        offReopen();
        throttle.cancel();
      };
    }
    void reload();
    return () => {
      watchers -= 1;
      if (watchers === 0) {
        stop?.();
        stop = null;
      }
    };
  }

  return { use, watch };
}
