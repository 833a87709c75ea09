// Request log concern (R15.1): the newest entries for the current filters. The server filters the
// first page; afterwards each `request` event that matches the filters is prepended at once, so
// the log grows live without re-reading it.
import { create } from "zustand";
import type { RequestLogEntry } from "../../../shared/types.js";
import { call } from "../transport.js";
import { errorText, type LoadStatus } from "./liveResource.js";
import { onLiveEvent, useLiveEvents } from "./liveEvents.js";

export const LOG_PAGE_SIZE = 200;

export interface LogFilters {
  provider: string;
  model: string;
  status: string;
}

export const NO_FILTERS: LogFilters = { provider: "", model: "", status: "" };

interface RequestLogState {
  filters: LogFilters;
  entries: RequestLogEntry[];
  status: LoadStatus;
  error: string | null;
  setFilters(filters: LogFilters): Promise<void>;
  reload(): Promise<void>;
}

/** Same semantics as GET /api/logs: exact provider, exact model, exact status; empty = any. */
export function matchesFilters(entry: RequestLogEntry, filters: LogFilters): boolean {
  if (filters.provider && entry.provider !== filters.provider) return false;
  if (filters.model && entry.model !== filters.model) return false;
  if (filters.status.trim() && entry.status !== Number(filters.status.trim())) return false;
  return true;
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
    const { filters } = get();
    set((s) => ({ status: s.status === "ready" ? "ready" : "loading" }));
    try {
      const query: Record<string, unknown> = { limit: LOG_PAGE_SIZE };
      if (filters.provider) query.provider = filters.provider;
      if (filters.model.trim()) query.model = filters.model.trim();
      if (filters.status.trim()) query.status = filters.status.trim();
      const entries = await call("listLogs", query);
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
