// The request log's write transaction (R15.1), in plain JavaScript because two threads run it:
// the log's writer thread (requestLogWorker.js, which node starts from a file, so it cannot be
// TypeScript) and, where no writer thread can run (an in-memory database, a thread that failed),
// the main thread itself. One batch is one transaction: its rows, then the trim to the newest
// `retention` rows, then the erasure of prompts past their retention.

/**
 * The statements, built by requestLogRepo.ts from its column list.
 * @typedef {object} LogWriteSql
 * @property {string} insert   INSERT of one row, values bound by position.
 * @property {string} count    SELECT COUNT(*) AS n.
 * @property {string} cutoff   The newest row beyond the retention bound: (time, seq), OFFSET ?.
 * @property {string} prune    DELETE of that row and everything older: (time, time, seq).
 * @property {string} erasePromptsBefore  UPDATE clearing prompts older than ?.
 * @property {number} idIndex  Where the id is in a row's values (for reporting duplicates).
 * @property {RollupSql} rollup  The usage rollups kept as rows commit (R18.2).
 */

/**
 * @typedef {object} RollupSql
 * @property {string} upsert  INSERT … ON CONFLICT adding one bucket's sums for one dimension's value:
 *   (bucket, dim, t, value, requests, input, output, cacheRead, cacheWrite, reasoning, cost).
 * @property {string} pruneHours  DELETE of one dimension's hour buckets older than ?: (dim, t).
 * @property {Record<"time"|"provider"|"connection"|"model"|"client"|"key"|"trafficClass"|"input"|"output"|"cacheRead"|"cacheWrite"|"reasoning"|"cost", number>} at
 *   Where each input is in a row's values.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Hour buckets are kept this long; day buckets for ever (a few rows per day). */
const HOUR_BUCKETS_KEPT_MS = 90 * DAY_MS;
/** The groupings a report offers; each is rolled up on its own (usageRepo.ts reads one). */
export const ROLLUP_DIMS = /** @type {const} */ (["provider", "connection", "model", "client", "key", "trafficClass"]);
const SUMS = ["input", "output", "cacheRead", "cacheWrite", "reasoning", "cost"];

/**
 * A batch's rows added up per bucket, dimension and value, so each is one upsert.
 * @param {RollupSql["at"]} at
 * @param {unknown[][]} rows
 * @returns {Map<string, unknown[]>}
 */
function rollupRows(at, rows) {
  /** @type {Map<string, unknown[]>} */
  const sums = new Map();
  for (const values of rows) {
    const time = /** @type {number} */ (values[at.time]);
    for (const [bucket, size] of /** @type {const} */ ([
      ["hour", HOUR_MS],
      ["day", DAY_MS],
    ])) {
      const t = Math.floor(time / size) * size;
      for (const dim of ROLLUP_DIMS) {
        // Dimension columns (provider, connection_id, served_model…) hold text or NULL.
        const value = /** @type {string | null} */ (values[at[dim]]) ?? "";
        const key = `${bucket}\u0000${dim}\u0000${t}\u0000${value}`;
        let row = sums.get(key);
        if (!row) sums.set(key, (row = [bucket, dim, t, value, 0, 0, 0, 0, 0, 0, 0]));
        row[4] = /** @type {number} */ (row[4]) + 1;
        SUMS.forEach((name, i) => {
          const v = values[at[/** @type {keyof RollupSql["at"]} */ (name)]];
          if (typeof v === "number") row[5 + i] = /** @type {number} */ (row[5 + i]) + v;
        });
      }
    }
  }
  return sums;
}

/**
 * One batch: rows in column order, the retention bound, and the time before which logged prompts
 * go (null: prompt logging keeps no retention limit).
 * @typedef {object} LogBatch
 * @property {unknown[][]} rows
 * @property {number} retention
 * @property {number | null} promptCutoff
 */

/**
 * @typedef {object} BatchWriter
 * @property {(batch: LogBatch) => string[]} write  Commits the batch; returns the ids not stored
 *   because they were already in the table (the rest of the batch is stored).
 */

/** @param {unknown} err */
function isDuplicateId(err) {
  const code = /** @type {{ code?: unknown } | null} */ (err)?.code;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}

/**
 * The writer thread's shared state (an Int32Array over a SharedArrayBuffer), as both sides read it:
 * word COMMITTED holds the last committed batch's seq, word PHASE the thread's phase.
 */
export const WRITER_STATE = Object.freeze({ COMMITTED: 0, PHASE: 1, STARTING: 0, READY: 1, GONE: 2 });

/**
 * @param {import("better-sqlite3").Database} db
 * @param {LogWriteSql} sql
 * @returns {BatchWriter}
 */
export function createBatchWriter(db, sql) {
  const insert = db.prepare(sql.insert);
  const countRows = db.prepare(sql.count);
  const selectCutoff = db.prepare(sql.cutoff);
  const pruneFrom = db.prepare(sql.prune);
  const erasePromptsBefore = db.prepare(sql.erasePromptsBefore);
  const upsertRollup = db.prepare(sql.rollup.upsert);
  const pruneHours = db.prepare(sql.rollup.pruneHours);
  let newest = 0;
  // Rows in the table; only this writer adds or trims them, so the count is kept, not queried.
  let rows = /** @type {{ n: number }} */ (countRows.get()).n;

  const transaction = db.transaction(
    /** @param {LogBatch} batch */ (batch) => {
      /** @type {string[]} */
      const duplicates = [];
      /** @type {unknown[][]} */
      const stored = [];
      for (const values of batch.rows) {
        try {
          insert.run(values);
          stored.push(values);
        } catch (err) {
          // A constraint failure undoes only this statement; the rest of the batch still commits.
          if (!isDuplicateId(err)) throw err;
          duplicates.push(String(values[sql.idIndex]));
        }
      }
      // The rollups commit with their rows: a usage query never counts a row twice or misses one.
      for (const row of rollupRows(sql.rollup.at, stored).values()) upsertRollup.run(row);
      const latest = stored.reduce((m, v) => Math.max(m, /** @type {number} */ (v[sql.rollup.at.time])), newest);
      if (Math.floor(latest / DAY_MS) > Math.floor(newest / DAY_MS)) for (const dim of ROLLUP_DIMS) pruneHours.run(dim, latest - HOUR_BUCKETS_KEPT_MS);
      newest = latest;
      rows += batch.rows.length - duplicates.length;
      if (rows > batch.retention) {
        const cutoff = /** @type {{ time: number; seq: number } | undefined} */ (selectCutoff.get(rows - batch.retention - 1));
        if (cutoff) rows -= pruneFrom.run(cutoff.time, cutoff.time, cutoff.seq).changes;
      }
      if (batch.promptCutoff !== null) erasePromptsBefore.run(batch.promptCutoff);
      return duplicates;
    },
  );
  // IMMEDIATE: the write lock is taken at BEGIN, so a second writer on the file waits for it
  // (busy_timeout) instead of failing on a snapshot another thread's commit made stale.
  return { write: (batch) => transaction.immediate(batch) };
}
