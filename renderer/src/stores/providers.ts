// Providers & connections concern: the lists, their breaker states, and a reload that collapses
// bursts of events into one fetch while never leaving the view older than the last event.
import { create } from "zustand";
import type { BreakerState, Connection, Provider } from "../../../shared/types.js";
import { isRecord } from "../callError.js";
import { call, ContractCallError } from "../transport.js";
import { affectsProviders, onLiveEvent, useLiveEvents } from "./liveEvents.js";

export type LoadStatus = "idle" | "loading" | "ready" | "error";

interface ProvidersState {
  providers: Provider[];
  connections: Connection[];
  /** provider id -> breaker state; empty when health could not be read. */
  breakers: Record<string, BreakerState>;
  status: LoadStatus;
  error: string | null;
  reload(): Promise<void>;
}

let inFlight: Promise<void> | null = null;
let again = false;

export const useProviders = create<ProvidersState>()((set) => ({
  providers: [],
  connections: [],
  breakers: {},
  status: "idle",
  error: null,
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
          try {
            const [providers, connections, breakers] = await Promise.all([
              call<Provider[]>("listProviders"),
              call<Connection[]>("listConnections"),
              readBreakers(),
            ]);
            set({ providers, connections, breakers, status: "ready", error: null });
          } catch (err) {
            set({ status: "error", error: err instanceof Error ? err.message : String(err) });
          }
        } while (again);
      } finally {
        // Cleared in the same microtask as the last `again` check, so no event can slip between.
        inFlight = null;
      }
    })();
    return inFlight;
  },
}));

/** Breaker states are a bonus on this page: a failing health call must not hide the lists. */
async function readBreakers(): Promise<Record<string, BreakerState>> {
  try {
    const health = await call<unknown>("monitoringHealth");
    const out: Record<string, BreakerState> = {};
    const list = isRecord(health) && Array.isArray(health.providerBreakers) ? health.providerBreakers : [];
    for (const item of list) {
      if (isRecord(item) && typeof item.provider === "string" && typeof item.state === "string") {
        out[item.provider] = item.state as BreakerState;
      }
    }
    return out;
  } catch (err) {
    if (err instanceof ContractCallError && err.status === 401) throw err;
    return {};
  }
}

/** Keeps the store fresh while a page shows it: reload on relevant events and after reconnects. */
export function watchProviders(): () => void {
  const { reload } = useProviders.getState();
  void reload();
  const offEvent = onLiveEvent((event) => {
    if (affectsProviders(event)) void reload();
  });
  // Events sent before the stream (re)opened are lost, including while the first fetch ran.
  const offReopen = useLiveEvents.subscribe((state, previous) => {
    if (state.openCount > previous.openCount) void reload();
  });
  return () => {
    offEvent();
    offReopen();
  };
}
