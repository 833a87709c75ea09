// R22.3: the reasoning-provenance book across restarts (table reasoning_provenance): which
// connection issued each reasoning artifact Switchyard relayed, by the artifact's digest (the
// book's mark) — never the artifact, never a secret. Read once at start-up into the gateway's
// book, which answers every lookup from memory. Entries are written behind, in one transaction a
// moment after the first, and on close: a thinking stream must not wait for a commit. A crash
// loses at most that moment's entries, whose artifacts are then stripped like a stranger's (the
// conversation goes on without that reasoning; nothing is refused).
import type Database from "better-sqlite3";

export interface ProvenanceRow {
  mark: string;
  connectionId: string;
  at: number;
}

export interface ProvenanceRepo {
  /** The entries kept, oldest first, after dropping those past the bounds. */
  loadAll(): ProvenanceRow[];
  /** Keeps one entry (the latest per mark); written behind. */
  keep(entry: ProvenanceRow): void;
  /** Writes the entries waiting to be written. */
  flush(): void;
  /** Drops the entries past the bounds; how many went. */
  prune(): number;
}

export interface ProvenanceBounds {
  /** Entries issued longer ago than this are dropped. */
  maxAgeMs: number;
  /** Beyond this many entries the oldest are dropped. */
  maxRows: number;
}

// A week outlives any prompt cache and a resumed session's working days; 50,000 rows (~5 MB) match the in-memory book's cap.
export const PROVENANCE_BOUNDS: ProvenanceBounds = { maxAgeMs: 7 * 24 * 3_600_000, maxRows: 50_000 };
/** An entry is written this long after it was remembered at most (what a crash can lose). */
const PROVENANCE_FLUSH_DELAY_MS = 1_000;
/** The bounds are enforced at start-up and again after this many entries were written. */
const PRUNE_EVERY_WRITES = 1_000;

interface Row {
  mark: string;
  connection_id: string;
  issued_at: number;
}

export function createProvenanceRepo(
  db: Database.Database,
  now: () => number,
  onError: (err: Error) => void = () => {},
  bounds: ProvenanceBounds = PROVENANCE_BOUNDS,
): ProvenanceRepo {
  const selectAll = db.prepare<[], Row>("SELECT mark, connection_id, issued_at FROM reasoning_provenance ORDER BY issued_at, rowid");
  const upsert = db.prepare<[string, string, number]>(
    `INSERT INTO reasoning_provenance (mark, connection_id, issued_at) VALUES (?, ?, ?)
     ON CONFLICT (mark) DO UPDATE SET connection_id = excluded.connection_id, issued_at = excluded.issued_at`,
  );
  const deleteOlder = db.prepare<[number]>("DELETE FROM reasoning_provenance WHERE issued_at < ?");
  const deleteBeyondCap = db.prepare<[number]>(
    "DELETE FROM reasoning_provenance WHERE rowid IN (SELECT rowid FROM reasoning_provenance ORDER BY issued_at DESC, rowid DESC LIMIT -1 OFFSET ?)",
  );

  const pending = new Map<string, ProvenanceRow>();
  let timer: NodeJS.Timeout | null = null;
  let writtenSincePrune = 0;

  const prune = (): number => {
    if (!db.open) return 0;
    return db.transaction(() => deleteOlder.run(now() - bounds.maxAgeMs).changes + deleteBeyondCap.run(bounds.maxRows).changes).immediate();
  };
  const writePending = db.transaction((rows: ProvenanceRow[]) => {
    for (const r of rows) upsert.run(r.mark, r.connectionId, r.at);
  });
  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (!pending.size || !db.open) return;
    const rows = [...pending.values()];
    pending.clear();
    writePending.immediate(rows);
    writtenSincePrune += rows.length;
    if (writtenSincePrune < PRUNE_EVERY_WRITES) return;
    writtenSincePrune = 0;
    prune();
  };
  const flushInBackground = (): void => {
    try {
      flush();
    } catch (err) {
      onError(err instanceof Error ? err : new Error(String(err)));
    }
  };

  return {
    loadAll() {
      flush();
      prune();
      writtenSincePrune = 0;
      return selectAll.all().map((r) => ({ mark: r.mark, connectionId: r.connection_id, at: r.issued_at }));
    },
    keep(entry) {
      pending.delete(entry.mark);
      pending.set(entry.mark, entry);
      if (timer) return;
      timer = setTimeout(flushInBackground, PROVENANCE_FLUSH_DELAY_MS);
      // A pending write must never keep a finished process alive.
      timer.unref();
    },
    flush,
    prune,
  };
}
