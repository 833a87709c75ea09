// Request log concern (R15.1): the newest entries for the current filters. The server filters the
// first page; afterwards each `request` event that matches the filters is prepended at once, so
// the log grows live without re-reading it.
import { create } from "zustand";
import type { ClientKind, RequestLogEntry } from "../../../shared/types.js";
import { call } from "../transport.js";
import { errorText, type LoadStatus } from "./liveResource.js";
import { onLiveEvent, useLiveEvents } from "./liveEvents.js";

export const LOG_PAGE_SIZE = 200;

/** How far back the log looks; "" = the whole retained log. */
export const LOG_WINDOWS = { "": 0, "15m": 15 * 60_000, "1h": 3_600_000, "24h": 86_400_000 } as const;
export type LogWindow = keyof typeof LOG_WINDOWS;

export interface LogFilters {
  provider: string;
  model: string;
  status: string;
  combo: string;
  client: ClientKind | "";
  window: LogWindow;
}

export const NO_FILTERS: LogFilters = { provider: "", model: "", status: "", combo: "", client: "", window: "" };

interface RequestLogState {
  filters: LogFilters;
  entries: RequestLogEntry[];
  status: LoadStatus;
  error: string | null;
  setFilters(filters: LogFilters): Promise<void>;
  reload(): Promise<void>;
}

export function isFiltered(filters: LogFilters): boolean {
  return Object.values(filters).some((v) => v !== "");
}

/** Same semantics as GET /api/logs: exact provider, model, status, combo and client; empty = any. */
export function matchesFilters(entry: RequestLogEntry, filters: LogFilters, now = Date.now()): boolean {
  if (filters.provider && entry.provider !== filters.provider) return false;
  if (filters.model.trim() && entry.model !== filters.model.trim()) return false;
  if (filters.status.trim() && entry.status !== Number(filters.status.trim())) return false;
  if (filters.combo && entry.combo !== filters.combo) return false;
  if (filters.client && entry.clientKind !== filters.client) return false;
  if (filters.window && entry.time < now - LOG_WINDOWS[filters.window]) return false;
  return true;
}

/** The GET /api/logs query of a set of filters. */
export function logQuery(filters: LogFilters, now = Date.now()): Record<string, unknown> {
  const query: Record<string, unknown> = { limit: LOG_PAGE_SIZE };
  if (filters.provider) query.provider = filters.provider;
  if (filters.model.trim()) query.model = filters.model.trim();
  if (filters.status.trim()) query.status = filters.status.trim();
  if (filters.combo) query.combo = filters.combo;
  if (filters.client) query.client = filters.client;
  if (filters.window) query.since = now - LOG_WINDOWS[filters.window];
  return query;
}

/** Newest first, no duplicates (an event may race the first page), at most one page long. */
export function prependEntry(entries: readonly RequestLogEntry[], entry: RequestLogEntry, limit = LOG_PAGE_SIZE): RequestLogEntry[] {
  return [entry, ...entries.filter((e) => e.id !== entry.id)].sort((a, b) => b.time - a.time).slice(0, limit);
}

let generation = 0;

export const useRequestLog = create<RequestLogState>()((set, get) => ({
  filters: NO_FILTERS,
  entries: [],
  status: "idle",
  error: null,
  setFilters(filters) {
    set({ filters });
    return get().reload();
  },
  async reload() {
    // Filters may change while a page is in flight: only the newest request may write.
    const mine = ++generation;
    set((s) => ({ status: s.status === "ready" ? "ready" : "loading" }));
    try {
      const entries = await call("listLogs", logQuery(get().filters));
      if (mine === generation) set({ entries, status: "ready", error: null });
    } catch (err) {
      if (mine === generation) set({ status: "error", error: errorText(err) });
    }
  },
}));

export function watchRequestLog(): () => void {
  void useRequestLog.getState().reload();
  const offEvent = onLiveEvent((event) => {
    if (event.type !== "request") return;
    const { filters, entries } = useRequestLog.getState();
    if (matchesFilters(event.entry, filters)) useRequestLog.setState({ entries: prependEntry(entries, event.entry) });
  });
  const offReopen = useLiveEvents.subscribe((state, previous) => {
    if (state.openCount > previous.openCount) void useRequestLog.getState().reload();
  });
  return () => {
    offEvent();
    offReopen();
  };
}
