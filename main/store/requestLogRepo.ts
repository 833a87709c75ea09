// Request log (R15.1): appends are buffered in memory and written in one
// transaction per batch, off the request path (a timer, or a full batch), so a request
// never waits on SQLite. Each batch trims the table to the newest `retention` rows. In the
// gateway the batches are committed by the log's writer thread (requestLogSink.ts); every read
// first waits until what was appended before it is in the table.
import type Database from "better-sqlite3";
import { createLogSink, type LogSinkOptions, type LogWriterKind } from "./requestLogSink.js";
import type { RequestLogRepo, RequestStatsRow } from "./types.js";
import { COLUMNS, RequestLogRow, toEntry, toValues, ROW_COLUMNS, rollupSql, ID_INDEX } from "./requestLogRows.js";

/** R15.1 bounded retention: rows kept when the caller does not say otherwise. */
export const DEFAULT_REQUEST_LOG_RETENTION = 10_000;
// Large batches: a flush's cost is mostly per transaction, not per row (issue 12).
const FLUSH_BATCH_SIZE = 1_000;
const DEFAULT_LIST_LIMIT = 100;
const MAX_LIST_LIMIT = 1_000;

export interface RequestLogOptions {
  retention: number;
  /** Receives failures of background flushes, which have no caller to throw to. */
  onError: (err: Error) => void;
  /** The store's clock: logged prompts older than their retention are erased against it. */
  now?: () => number;
  /** Who commits the batches: the calling thread (the default) or the log's writer thread. */
  writer?: LogWriterKind;
  /** Test seams for the writer thread: its script, and how long a read waits for it. */
  writerThread?: Pick<LogSinkOptions, "workerUrl" | "settleLimitMs">;
}

export interface BufferedRequestLog extends RequestLogRepo {
  /** Flushes what is buffered and refuses later appends. */
  close(): void;
}

const ERASE_PROMPTS_BEFORE = "UPDATE request_log SET prompt_text = NULL WHERE prompt_text IS NOT NULL AND time < ?";

function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_LIST_LIMIT;
  return Math.min(MAX_LIST_LIMIT, Math.max(1, Math.floor(limit)));
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

export function createRequestLogRepo(db: Database.Database, options: RequestLogOptions): BufferedRequestLog {
  const { onError } = options;
  const checkRetention = (value: number): number => {
    if (!Number.isInteger(value) || value < 0) {
      throw new RangeError(`request log retention must be a non-negative integer (got ${value})`);
    }
    return value;
  };
  let retention = checkRetention(options.retention);

  const sink = createLogSink(
    options.writer ?? "thread",
    db,
    {
      insert: `INSERT INTO request_log (${ROW_COLUMNS}) VALUES (${COLUMNS.map(() => "?").join(", ")})`,
      count: "SELECT COUNT(*) AS n FROM request_log",
      // The newest of the rows beyond the retention bound, counted from the oldest end (so the scan
      // covers only the excess); it and everything older goes.
      cutoff: "SELECT time, seq FROM request_log ORDER BY time ASC, seq ASC LIMIT 1 OFFSET ?",
      prune: "DELETE FROM request_log WHERE time < ? OR (time = ? AND seq <= ?)",
      erasePromptsBefore: ERASE_PROMPTS_BEFORE,
      idIndex: ID_INDEX,
      rollup: rollupSql(),
    },
    { onError, ...options.writerThread },
  );
  const select = db.prepare<[Record<string, unknown>], RequestLogRow>(
    `SELECT ${ROW_COLUMNS}
     FROM request_log
     WHERE (@provider IS NULL OR provider = @provider)
       AND (@model IS NULL OR model = @model)
       AND (@status IS NULL OR status = @status)
       AND (@combo IS NULL OR combo = @combo)
       AND (@client IS NULL OR client_kind = @client)
       AND (@since IS NULL OR time >= @since)
       AND (@until IS NULL OR time < @until)
     ORDER BY time DESC, seq DESC
     LIMIT @limit`,
  );
  const selectOne = db.prepare<[string], RequestLogRow>(`SELECT ${ROW_COLUMNS} FROM request_log WHERE id = ?`);
  // The newest row of each client kind: the connect page's "last request seen".
  const selectLatestPerClient = db.prepare<[], RequestLogRow>(
    `SELECT ${ROW_COLUMNS} FROM request_log
     WHERE seq IN (SELECT MAX(seq) FROM request_log WHERE client_kind IS NOT NULL GROUP BY client_kind)`,
  );
  const erasePromptsBefore = db.prepare<[number]>(ERASE_PROMPTS_BEFORE);
  const erasePrompts = db.prepare("UPDATE request_log SET prompt_text = NULL WHERE prompt_text IS NOT NULL");
  const now = options.now ?? Date.now;
  let promptRetentionMs: number | null = null;

  // One pass over the time range; the range is served by the request_log_newest (time, seq) index,
  // so a large retention costs only the rows in the window. CAST keeps the bucket index an integer
  // whatever type the bound numbers get.
  const selectStats = db.prepare<[{ since: number; until: number; bucketMs: number }], RequestStatsRow>(
    `SELECT @since + CAST((time - @since) / @bucketMs AS INTEGER) * @bucketMs AS bucketStart,
       provider,
       COUNT(*) AS requests,
       SUM(CASE WHEN status >= 400 OR error_code IS NOT NULL THEN 1 ELSE 0 END) AS errors,
       SUM(latency_ms) AS latencyMsSum
     FROM request_log
     WHERE time >= @since AND time < @until
     GROUP BY bucketStart, provider
     ORDER BY bucketStart, provider`,
  );

  // SQLite returns the bare columns of the row that holds MAX(time): each connection's newest IP.
  const selectEgress = db.prepare<[number], { connection_id: string; egress_ip: string; time: number }>(
    `SELECT connection_id, egress_ip, MAX(time) AS time FROM request_log
     WHERE egress_ip IS NOT NULL AND connection_id IS NOT NULL AND time >= ? GROUP BY connection_id`,
  );

  // Rows as their bound values: the entry objects (attempts, timelines) are let go at once, so a
  // buffered batch under load is a few strings per request for the garbage collector to carry.
  let buffer: unknown[][] = [];
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  // Taken out before it is handed over: a batch that cannot be written is reported once, not retried forever.
  const handOver = (): void => {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    if (buffer.length === 0) return;
    const rows = buffer;
    buffer = [];
    sink.write({ rows, retention, promptCutoff: promptRetentionMs === null ? null : now() - promptRetentionMs });
  };

  /** Everything appended so far is in the table when this returns. */
  const flush = (): void => {
    try {
      handOver();
    } finally {
      sink.settle();
    }
  };

  const flushInBackground = (): void => {
    try {
      handOver();
    } catch (err) {
      onError(asError(err));
    }
  };

  return {
    setRetention(value) {
      retention = checkRetention(value);
    },
    append(entry) {
      if (closed) {
        onError(new Error(`request log is closed; entry ${entry.id} not stored`));
        return;
      }
      buffer.push(toValues(entry));
      if (buffer.length >= FLUSH_BATCH_SIZE) {
        flushInBackground();
      } else if (!timer) {
        timer = setTimeout(flushInBackground, sink.batchDelayMs);
        // A pending log write must never keep a finished process alive.
        timer.unref();
      }
    },
    flush,
    list(query) {
      flush();
      return select
        .all({
          provider: query.provider ?? null,
          model: query.model ?? null,
          status: query.status ?? null,
          combo: query.combo ?? null,
          client: query.client ?? null,
          since: query.since ?? null,
          until: query.until ?? null,
          limit: clampLimit(query.limit),
        })
        .map(toEntry);
    },
    get(id) {
      flush();
      const row = selectOne.get(id);
      return row ? toEntry(row) : null;
    },
    latestPerClient() {
      flush();
      return selectLatestPerClient.all().map(toEntry);
    },
    setPromptRetention(ms) {
      // Off (null): nothing may keep a prompt, so what was logged goes now, buffered rows included.
      flush();
      promptRetentionMs = ms;
      if (ms === null) erasePrompts.run();
      else erasePromptsBefore.run(now() - ms);
    },
    stats({ since, bucketMs, until }) {
      if (!Number.isInteger(bucketMs) || bucketMs <= 0) {
        throw new RangeError(`request stats bucketMs must be a positive integer (got ${bucketMs})`);
      }
      if (!Number.isFinite(since) || (until !== undefined && !Number.isFinite(until))) {
        throw new RangeError("request stats since and until must be finite numbers");
      }
      // Buffered appends are requests already answered; a chart without them would lag behind the log.
      flush();
      return selectStats.all({ since, bucketMs, until: until ?? Number.MAX_SAFE_INTEGER });
    },
    lastEgressIps(since) {
      flush();
      return new Map(selectEgress.all(since).map((r) => [r.connection_id, r.egress_ip]));
    },
    close() {
      if (closed) return;
      closed = true;
      try {
        flush();
      } finally {
        sink.close();
      }
    },
  };
}
