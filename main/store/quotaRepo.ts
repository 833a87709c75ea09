// R18.3: the quota windows upstream headers announced, per connection and window (table
// usage_quotas, read back whole at start-up). The latest reading of each window is kept in memory
// and answers every read; SQLite is written behind, off the request path. A window whose values
// changed (not its seenAt alone) is queued, and the queue is written in one transaction at most
// QUOTA_FLUSH_DELAY_MS after the first change, and on close: a busy connection whose remaining
// count moves on every answer costs one row write per window and flush, not one per request. A
// window only seen again is rewritten once its stored seenAt is QUOTA_SEEN_REWRITE_MS old, so
// after a restart seenAt is at most that stale. A crash loses at most the last flush delay.
import type Database from "better-sqlite3";
import type { UsageQuotaItem } from "../../shared/apiTypes.js";

/** What one response said about one window (the repo adds connection, provider and seenAt). */
export type QuotaWindowReading = Omit<UsageQuotaItem, "connectionId" | "provider" | "seenAt">;

export interface QuotaRepo {
  /** Keeps what a response of this connection said about its windows; cheap, writes behind. */
  record(connectionId: string, provider: string, readings: readonly QuotaWindowReading[], seenAt: number): void;
  /** Every window of every connection that still exists, by connection then window. */
  list(): UsageQuotaItem[];
  /** Forgets a deleted connection's windows, in memory and in the table. */
  deleteConnection(connectionId: string): void;
  /** Writes the queued windows now. */
  flush(): void;
}

/** The longest a changed window waits in memory before it is written. */
export const QUOTA_FLUSH_DELAY_MS = 2_000;
/** A window seen again with the same values has its seenAt rewritten when the stored one is this old. */
export const QUOTA_SEEN_REWRITE_MS = 60_000;

interface QuotaRow {
  connection_id: string;
  window: string;
  provider: string;
  used_percent: number | null;
  remaining: number | null;
  limit_value: number | null;
  reset_at: number | null;
  source: string;
  status: string | null;
  seen_at: number;
}

interface Entry {
  item: UsageQuotaItem;
  /** The seenAt the table holds for this window; null = not written yet. */
  storedSeenAt: number | null;
}

function fromRow(r: QuotaRow): UsageQuotaItem {
  return {
    connectionId: r.connection_id,
    provider: r.provider,
    window: r.window,
    usedPercent: r.used_percent,
    remaining: r.remaining,
    limit: r.limit_value,
    resetAt: r.reset_at,
    source: r.source,
    seenAt: r.seen_at,
    status: r.status,
  };
}

function toRow(i: UsageQuotaItem): unknown[] {
  return [i.connectionId, i.window, i.provider, i.usedPercent, i.remaining, i.limit, i.resetAt, i.source, i.status ?? null, i.seenAt];
}

function sameValues(item: UsageQuotaItem, provider: string, r: QuotaWindowReading): boolean {
  return (
    item.provider === provider &&
    item.usedPercent === r.usedPercent &&
    item.remaining === r.remaining &&
    item.limit === r.limit &&
    item.resetAt === r.resetAt &&
    item.source === r.source &&
    (item.status ?? null) === (r.status ?? null)
  );
}

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function createQuotaRepo(db: Database.Database, onError: (err: Error) => void = () => {}): QuotaRepo {
  const selectAll = db.prepare<[], QuotaRow>(
    `SELECT connection_id, "window" AS window, provider, used_percent, remaining, limit_value, reset_at, source, status, seen_at FROM usage_quotas`,
  );
  const upsert = db.prepare(
    `INSERT INTO usage_quotas (connection_id, "window", provider, used_percent, remaining, limit_value, reset_at, source, status, seen_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (connection_id, "window") DO UPDATE SET provider = excluded.provider, used_percent = excluded.used_percent,
       remaining = excluded.remaining, limit_value = excluded.limit_value, reset_at = excluded.reset_at, source = excluded.source,
       status = excluded.status, seen_at = excluded.seen_at`,
  );
  const removeConnection = db.prepare<[string]>("DELETE FROM usage_quotas WHERE connection_id = ?");
  const connectionIds = db.prepare<[], string>("SELECT id FROM connections").pluck();

  const byConnection = new Map<string, Map<string, Entry>>();
  const pending = new Set<Entry>();
  let timer: NodeJS.Timeout | null = null;

  const writeEntries = db.transaction((entries: Entry[]) => {
    for (const e of entries) {
      upsert.run(...toRow(e.item));
      e.storedSeenAt = e.item.seenAt;
    }
  });

  function deleteConnection(connectionId: string): void {
    for (const e of byConnection.get(connectionId)?.values() ?? []) pending.delete(e);
    byConnection.delete(connectionId);
    if (db.open) removeConnection.run(connectionId);
  }

  /** Drops the windows of connections no longer in the store (a provider deleted with its connections, an import). */
  function pruneVanished(): void {
    const live = new Set(connectionIds.all());
    for (const id of [...byConnection.keys()]) if (!live.has(id)) deleteConnection(id);
  }

  function flush(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    if (!pending.size || !db.open) return;
    pruneVanished();
    const entries = [...pending];
    pending.clear();
    writeEntries.immediate(entries);
  }

  function flushInBackground(): void {
    try {
      flush();
    } catch (err) {
      onError(err instanceof Error ? err : new Error(String(err)));
    }
  }

  function put(item: UsageQuotaItem, storedSeenAt: number | null): Entry {
    let windows = byConnection.get(item.connectionId);
    if (!windows) byConnection.set(item.connectionId, (windows = new Map()));
    const entry: Entry = { item, storedSeenAt };
    windows.set(item.window, entry);
    return entry;
  }

  for (const row of selectAll.all()) put(fromRow(row), row.seen_at);
  pruneVanished();

  return {
    record(connectionId, provider, readings, seenAt) {
      for (const r of readings) {
        const entry = byConnection.get(connectionId)?.get(r.window);
        if (!entry) {
          pending.add(put({ connectionId, provider, ...r, status: r.status ?? null, seenAt }, null));
          continue;
        }
        const changed = !sameValues(entry.item, provider, r);
        if (changed) entry.item = { connectionId, provider, ...r, status: r.status ?? null, seenAt };
        else entry.item.seenAt = seenAt;
        if (changed || entry.storedSeenAt === null || seenAt - entry.storedSeenAt >= QUOTA_SEEN_REWRITE_MS) pending.add(entry);
      }
      if (pending.size > 0 && !timer) {
        timer = setTimeout(flushInBackground, QUOTA_FLUSH_DELAY_MS);
        timer.unref();
      }
    },
    list() {
      if (db.open) pruneVanished();
      const items: UsageQuotaItem[] = [];
      for (const id of [...byConnection.keys()].sort(byName)) {
        const windows = byConnection.get(id)!;
        for (const w of [...windows.keys()].sort(byName)) items.push({ ...windows.get(w)!.item });
      }
      return items;
    },
    deleteConnection,
    flush,
  };
}
