// "Last request seen from each kind of client" (issue 14): read once from GET /api/clients, then
// kept current by the live `request` events, so the page shows the moment a tool connects.
import { create } from "zustand";
import type { ClientActivity } from "../../../../shared/apiTypes.js";
import type { RequestLogEntry } from "../../../../shared/types.js";
import { errorText } from "../../stores/liveResource.js";
import { onLiveEvent, useLiveEvents } from "../../stores/liveEvents.js";
import { call } from "../../transport.js";

interface ActivityState {
  items: ClientActivity[];
  error: string | null;
}

export const useClientActivity = create<ActivityState>()(() => ({ items: [], error: null }));

/** The newest request per kind wins; an older one (a late event) changes nothing. */
export function withEntry(items: readonly ClientActivity[], entry: RequestLogEntry): ClientActivity[] {
  if (!entry.clientKind) return [...items];
  const current = items.find((i) => i.kind === entry.clientKind);
  if (current && current.lastSeenAt > entry.time) return [...items];
  const next: ClientActivity = { kind: entry.clientKind, lastSeenAt: entry.time, requestId: entry.id, model: entry.model, status: entry.status, clientFormat: entry.clientFormat };
  return [next, ...items.filter((i) => i.kind !== entry.clientKind)].sort((a, b) => b.lastSeenAt - a.lastSeenAt);
}

async function load(): Promise<void> {
  try {
    const { items } = await call("listClientActivity");
    useClientActivity.setState({ items, error: null });
  } catch (err) {
    useClientActivity.setState({ error: errorText(err) });
  }
}

export function watchClientActivity(): () => void {
  void load();
  const offEvent = onLiveEvent((event) => {
    if (event.type === "request") useClientActivity.setState((s) => ({ items: withEntry(s.items, event.entry) }));
  });
  const offReopen = useLiveEvents.subscribe((state, previous) => {
    if (state.openCount > previous.openCount) void load();
  });
  return () => {
    offEvent();
    offReopen();
  };
}
