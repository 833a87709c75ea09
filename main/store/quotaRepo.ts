// R18.3: the quota windows upstream headers announced, per connection and window (table
// usage_quotas, read back whole at start-up). The latest reading of each window is kept in memory
// and answers every read; SQLite is written behind, off the request path. A window whose values
// changed (not its seenAt alone) is queued, and the queue is written in one transaction at most
// QUOTA_FLUSH_DELAY_MS after the first change, and on close: a busy connection whose remaining
// count moves on every answer costs one row write per window and flush, not one per request. A
// window only seen again is rewritten once its stored seenAt is QUOTA_SEEN_REWRITE_MS old, so
// after a restart seenAt is at most that stale. A crash loses at most the last flush delay.
// R21.6/R21.7: a window with a length ("5h", "7d"…) also keeps its burn (quotaBurn.ts): each
// response's rise charged to its session and traffic class (table usage_quota_sessions, written with
// the window; only the charges that moved), and the thresholds its period has announced.
import type Database from "better-sqlite3";
import type { UsageQuotaItem } from "../../shared/apiTypes.js";
import { windowLengthMs } from "../../shared/quotaPace.js";
import { burnReading, chargeKey, isNewPeriod, newBurn, thresholdOf, topSessions, type Burner, type QuotaThreshold, type WindowBurn } from "./quotaBurn.js";

/** What one response said about one window (the repo adds connection, provider and seenAt). */
export type QuotaWindowReading = Omit<UsageQuotaItem, "connectionId" | "provider" | "seenAt">;

/** A window of a connection that reached a threshold first in its period (R21.7). */
export interface QuotaCrossing {
  window: string;
  percent: QuotaThreshold;
}

/** A response nobody is known to have sent is charged as a main-class request of no session. */
export const UNKNOWN_BURNER: Burner = { session: null, trafficClass: "main" };

export interface QuotaRepo {
  /**
   * Keeps what a response of this connection said about its windows, its rises charged to `who`
   * (R21.6); cheap, writes behind. Answers the thresholds this response made a window reach.
   */
  record(connectionId: string, provider: string, readings: readonly QuotaWindowReading[], seenAt: number, who?: Burner | null): QuotaCrossing[];
  /** Every window of every connection that still exists, by connection then window, with `windowMs` and `sessions` (not `pace`: that is read against a clock). */
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

interface SessionRow {
  connection_id: string;
  window: string;
  session: string;
  traffic_class: string;
  period_reset_at: number | null;
  used_percent: number;
  requests: number;
}

interface Entry {
  item: UsageQuotaItem;
  /** The seenAt the table holds for this window; null = not written yet. */
  storedSeenAt: number | null;
  /** R21.6: a window with a length (quotaPace.windowLengthMs) keeps its period's burn; null otherwise. */
  burn: WindowBurn | null;
  /** Charges (chargeKey) changed since the last flush. */
  dirtyCharges: Set<string>;
  /** The period changed: the stored charges go before the dirty ones are written. */
  clearCharges: boolean;
}

/** The table's '' is "no session named" (a key is never blank, sessionKey.ts). */
const sessionOfRow = (s: string): string | null => (s === "" ? null : s);

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
  const selectSessions = db.prepare<[], SessionRow>(
    `SELECT connection_id, "window" AS window, session, traffic_class, period_reset_at, used_percent, requests FROM usage_quota_sessions ORDER BY rowid`,
  );
  const upsertCharge = db.prepare(
    `INSERT INTO usage_quota_sessions (connection_id, "window", session, traffic_class, period_reset_at, used_percent, requests)
     VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (connection_id, "window", session, traffic_class) DO UPDATE SET period_reset_at = excluded.period_reset_at,
       used_percent = excluded.used_percent, requests = excluded.requests`,
  );
  const removeWindowCharges = db.prepare<[string, string]>(`DELETE FROM usage_quota_sessions WHERE connection_id = ? AND "window" = ?`);
  const removeConnectionCharges = db.prepare<[string]>("DELETE FROM usage_quota_sessions WHERE connection_id = ?");
  const connectionIds = db.prepare<[], string>("SELECT id FROM connections").pluck();

  const byConnection = new Map<string, Map<string, Entry>>();
  const pending = new Set<Entry>();
  let timer: NodeJS.Timeout | null = null;

  const writeEntries = db.transaction((entries: Entry[]) => {
    for (const e of entries) {
      upsert.run(...toRow(e.item));
      e.storedSeenAt = e.item.seenAt;
      if (e.clearCharges) removeWindowCharges.run(e.item.connectionId, e.item.window);
      e.clearCharges = false;
      for (const key of e.dirtyCharges) {
        const c = e.burn?.charges.get(key);
        if (c) upsertCharge.run(e.item.connectionId, e.item.window, c.session ?? "", c.trafficClass, e.burn!.periodResetAt, c.usedPercent, c.requests);
      }
      e.dirtyCharges.clear();
    }
  });

  function deleteConnection(connectionId: string): void {
    for (const e of byConnection.get(connectionId)?.values() ?? []) pending.delete(e);
    byConnection.delete(connectionId);
    if (!db.open) return;
    removeConnection.run(connectionId);
    removeConnectionCharges.run(connectionId);
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

  function put(item: UsageQuotaItem, storedSeenAt: number | null, burn: WindowBurn | null = null): Entry {
    let windows = byConnection.get(item.connectionId);
    if (!windows) byConnection.set(item.connectionId, (windows = new Map()));
    const entry: Entry = { item, storedSeenAt, burn, dirtyCharges: new Set(), clearCharges: false };
    windows.set(item.window, entry);
    return entry;
  }

  // A restart resumes each period where the stored reading left it: its share is the high-water
  // mark and the thresholds it passed count as announced (R21.7: once per period).
  for (const row of selectAll.all()) {
    const item = fromRow(row);
    const burn = windowLengthMs(item.window) === null ? null : newBurn(item.resetAt, item.usedPercent, thresholdOf(item.usedPercent));
    put(item, row.seen_at, burn);
  }
  for (const row of selectSessions.all()) {
    const burn = byConnection.get(row.connection_id)?.get(row.window)?.burn;
    // Charges of an earlier period (a crash between the window's write and theirs) are not this period's.
    if (!burn || isNewPeriod(burn.periodResetAt, row.period_reset_at)) continue;
    const charge = { session: sessionOfRow(row.session), trafficClass: row.traffic_class, usedPercent: row.used_percent, requests: row.requests };
    burn.charges.set(chargeKey(charge), charge);
  }
  pruneVanished();

  /** R21.6: charges the reading's rise to `who` (or starts a period), marking what must be written; the threshold reached, if any. */
  function burn(entry: Entry, r: QuotaWindowReading, who: Burner): QuotaThreshold | null {
    const hadCharges = (entry.burn?.charges.size ?? 0) > 0;
    const step = burnReading(entry.burn, r, who);
    entry.burn = step.burn;
    if (step.newPeriod) {
      entry.dirtyCharges.clear();
      if (hadCharges) entry.clearCharges = true;
    }
    if (step.charged) entry.dirtyCharges.add(chargeKey(step.charged));
    if (step.newPeriod ? hadCharges : step.charged !== null) pending.add(entry);
    return step.threshold;
  }

  return {
    record(connectionId, provider, readings, seenAt, who) {
      const crossings: QuotaCrossing[] = [];
      const note = (entry: Entry, r: QuotaWindowReading) => {
        if (windowLengthMs(r.window) === null) return;
        const percent = burn(entry, r, who ?? UNKNOWN_BURNER);
        if (percent !== null) crossings.push({ window: r.window, percent });
      };
      for (const r of readings) {
        const entry = byConnection.get(connectionId)?.get(r.window);
        if (!entry) {
          const created = put({ connectionId, provider, ...r, status: r.status ?? null, seenAt }, null);
          pending.add(created);
          note(created, r);
          continue;
        }
        const changed = !sameValues(entry.item, provider, r);
        if (changed) entry.item = { connectionId, provider, ...r, status: r.status ?? null, seenAt };
        else entry.item.seenAt = seenAt;
        if (changed || entry.storedSeenAt === null || seenAt - entry.storedSeenAt >= QUOTA_SEEN_REWRITE_MS) pending.add(entry);
        note(entry, r);
      }
      if (pending.size > 0 && !timer) {
        timer = setTimeout(flushInBackground, QUOTA_FLUSH_DELAY_MS);
        timer.unref();
      }
      return crossings;
    },
    list() {
      if (db.open) pruneVanished();
      const items: UsageQuotaItem[] = [];
      for (const id of [...byConnection.keys()].sort(byName)) {
        const windows = byConnection.get(id)!;
        for (const w of [...windows.keys()].sort(byName)) {
          const entry = windows.get(w)!;
          items.push({ ...entry.item, windowMs: windowLengthMs(w), sessions: topSessions(entry.burn) });
        }
      }
      return items;
    },
    deleteConnection,
    flush,
  };
}
