// R25.1: the context windows Switchyard learned, kept across restarts (table model_windows): per
// provider and model, the window context refusals taught and the largest input a success carried.
// Read once at start-up into the engine's ContextWindows, which answers every lookup from memory.
// Changes are written behind, the latest per model, in one transaction a moment after the first
// (a growing conversation proves a larger input on nearly every turn), and on close.
import type Database from "better-sqlite3";
import type { ModelWindowRow } from "../engine/contextWindows.js";

export interface ModelWindowRepo {
  loadAll(): ModelWindowRow[];
  /** Keeps the row (the book's own object, read as it stands when written); written behind. */
  keep(row: ModelWindowRow): void;
  /** Writes the rows waiting to be written. */
  flush(): void;
}

/** A change is written this long after it was made at most (what a crash can lose). */
const FLUSH_DELAY_MS = 1_000;

interface Row {
  provider: string;
  model: string;
  learned_window: number | null;
  proven_input: number;
  updated_at: number;
}

export function createModelWindowRepo(db: Database.Database, onError: (err: Error) => void = () => {}): ModelWindowRepo {
  const selectAll = db.prepare<[], Row>("SELECT provider, model, learned_window, proven_input, updated_at FROM model_windows");
  const upsert = db.prepare<[string, string, number | null, number, number]>(
    `INSERT INTO model_windows (provider, model, learned_window, proven_input, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (provider, model) DO UPDATE SET learned_window = excluded.learned_window, proven_input = excluded.proven_input, updated_at = excluded.updated_at`,
  );
  // The book's own rows, which it keeps changing in place: the write reads them as they then stand.
  const pending = new Set<ModelWindowRow>();
  let timer: NodeJS.Timeout | null = null;
  const writePending = db.transaction((rows: ModelWindowRow[]) => {
    for (const r of rows) upsert.run(r.provider, r.model, r.learnedWindow, r.provenInput, r.updatedAt);
  });
  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (!pending.size || !db.open) return;
    const rows = [...pending.values()];
    pending.clear();
    writePending.immediate(rows);
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
      return selectAll.all().map((r) => ({ provider: r.provider, model: r.model, learnedWindow: r.learned_window, provenInput: r.proven_input, updatedAt: r.updated_at }));
    },
    keep(row) {
      pending.add(row);
      if (timer) return;
      timer = setTimeout(flushInBackground, FLUSH_DELAY_MS);
      // A pending write must never keep a finished process alive.
      timer.unref();
    },
    flush,
  };
}
