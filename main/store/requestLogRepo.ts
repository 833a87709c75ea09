// Request log (R15.1): appends are buffered in memory and written in one
// transaction per batch, off the request path (a timer, or a full batch), so a request
// never waits on SQLite. Each flush trims the table to the newest `retention` rows.
import type Database from "better-sqlite3";
import type { RequestLogEntry } from "../../shared/types.js";
import { isUniqueViolation } from "./errors.js";
import { fromFlag, fromJson, toFlag, toJson } from "./rows.js";
import type { RequestLogRepo, RequestStatsRow } from "./types.js";

/** R15.1 bounded retention: rows kept when the caller does not say otherwise. */
export const DEFAULT_REQUEST_LOG_RETENTION = 10_000;
// Large batches: a flush's cost is mostly per transaction, not per row (issue 12).
const FLUSH_BATCH_SIZE = 1_000;
const FLUSH_DELAY_MS = 250;
const DEFAULT_LIST_LIMIT = 100;
const MAX_LIST_LIMIT = 1_000;

export interface RequestLogOptions {
  retention: number;
  /** Receives failures of background flushes, which have no caller to throw to. */
  onError: (err: Error) => void;
}

export interface BufferedRequestLog extends RequestLogRepo {
  /** Flushes what is buffered and refuses later appends. */
  close(): void;
}

/** The row's columns, in one place: the INSERT and the SELECTs are built from this list. */
const COLUMNS = [
  "id", "time", "client_format", "model", "combo", "provider", "connection_id", "status", "error_code",
  "latency_ms", "ttfb_ms", "stream", "input_tokens", "output_tokens", "attempts",
] as const satisfies ReadonlyArray<keyof RequestLogRow>;

interface RequestLogRow {
  id: string;
  time: number;
  client_format: RequestLogEntry["clientFormat"];
  model: string;
  combo: string | null;
  provider: string | null;
  connection_id: string | null;
  status: number;
  error_code: string | null;
  latency_ms: number;
  ttfb_ms: number | null;
  stream: number;
  input_tokens: number | null;
  output_tokens: number | null;
  attempts: string;
}

function toEntry(row: RequestLogRow): RequestLogEntry {
  return {
    id: row.id,
    time: row.time,
    clientFormat: row.client_format,
    model: row.model,
    combo: row.combo,
    provider: row.provider,
    connectionId: row.connection_id,
    status: row.status,
    errorCode: row.error_code,
    latencyMs: row.latency_ms,
    ttfbMs: row.ttfb_ms,
    stream: fromFlag(row.stream),
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    attempts: fromJson(row.attempts),
  };
}

function toParams(e: RequestLogEntry): RequestLogRow {
  return {
    id: e.id,
    time: e.time,
    client_format: e.clientFormat,
    model: e.model,
    combo: e.combo,
    provider: e.provider,
    connection_id: e.connectionId,
    status: e.status,
    error_code: e.errorCode,
    latency_ms: e.latencyMs,
    ttfb_ms: e.ttfbMs,
    stream: toFlag(e.stream),
    input_tokens: e.inputTokens,
    output_tokens: e.outputTokens,
    attempts: toJson(e.attempts),
  };
}

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

  const insert = db.prepare(`INSERT INTO request_log (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map((c) => `@${c}`).join(", ")})`);
  // The newest of the rows beyond the retention bound, counted from the oldest end (so the scan
  // covers only the excess); it and everything older goes.
  const selectCutoff = db.prepare<[number], { time: number; seq: number }>(
    "SELECT time, seq FROM request_log ORDER BY time ASC, seq ASC LIMIT 1 OFFSET ?",
  );
  const countRows = db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM request_log");
  const pruneFrom = db.prepare<[number, number, number]>(
    "DELETE FROM request_log WHERE time < ? OR (time = ? AND seq <= ?)",
  );
  const select = db.prepare<[Record<string, unknown>], RequestLogRow>(
    `SELECT ${COLUMNS.join(", ")}
     FROM request_log
     WHERE (@provider IS NULL OR provider = @provider)
       AND (@model IS NULL OR model = @model)
       AND (@status IS NULL OR status = @status)
       AND (@combo IS NULL OR combo = @combo)
     ORDER BY time DESC, seq DESC
     LIMIT @limit`,
  );

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

  let buffer: RequestLogEntry[] = [];
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  // Rows in the table; only this module writes it, so the count is kept rather than queried.
  let rows = countRows.get()?.n ?? 0;

  const writeBatch = db.transaction((batch: RequestLogEntry[]): string[] => {
    const duplicates: string[] = [];
    for (const entry of batch) {
      try {
        insert.run(toParams(entry));
      } catch (err) {
        // A constraint failure undoes only this statement; the rest of the batch still commits.
        if (!isUniqueViolation(err)) throw err;
        duplicates.push(entry.id);
      }
    }
    rows += batch.length - duplicates.length;
    if (rows > retention) {
      const cutoff = selectCutoff.get(rows - retention - 1);
      if (cutoff) rows -= pruneFrom.run(cutoff.time, cutoff.time, cutoff.seq).changes;
    }
    return duplicates;
  });

  const flush = (): void => {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    if (buffer.length === 0) return;
    // Taken out before writing: a batch that cannot be written is reported once, not retried forever.
    const batch = buffer;
    buffer = [];
    const duplicates = writeBatch(batch);
    if (duplicates.length > 0) {
      onError(new Error(`request log: duplicate entry ids not stored: ${duplicates.join(", ")}`));
    }
  };

  const flushInBackground = (): void => {
    try {
      flush();
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
      buffer.push(entry);
      if (buffer.length >= FLUSH_BATCH_SIZE) {
        flushInBackground();
      } else if (!timer) {
        timer = setTimeout(flushInBackground, FLUSH_DELAY_MS);
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
          limit: clampLimit(query.limit),
        })
        .map(toEntry);
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
    close() {
      if (closed) return;
      closed = true;
      flush();
    },
  };
}
