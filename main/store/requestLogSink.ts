// Where the request log's batches go (R15.1, issue 12): committed on the gateway's own thread, or
// handed to the writer thread (requestLogWorker.js), which commits them beside the event loop.
// Reads must still see every row appended before them: `settle()` waits, synchronously, until the
// writer thread has committed everything handed over. When the thread cannot start, dies or stops
// answering, the batches it had not committed are written here instead and the log goes on
// in-thread: a row is never dropped silently.
import type Database from "better-sqlite3";
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from "node:worker_threads";
import { WRITER_STATE, createBatchWriter, type LogBatch, type LogWriteSql } from "./requestLogWrites.js";

export type { LogBatch, LogWriteSql };

export interface LogSink {
  /** How long appends are buffered before they are handed over as a batch (or 1000 rows, sooner). */
  readonly batchDelayMs: number;
  /** Hands a batch over: committed now (in-thread) or queued to the writer thread. */
  write(batch: LogBatch): void;
  /** Returns once every batch handed over is in the table. */
  settle(): void;
  /** Settles, then stops the writer thread. */
  close(): void;
}

export type LogWriterKind = "thread" | "worker";

export interface LogSinkOptions {
  onError: (err: Error) => void;
  /** How long a read may wait for the writer thread before the log writes in-thread. */
  settleLimitMs?: number;
  /** Test seam: the writer thread's script. */
  workerUrl?: URL;
}

const { COMMITTED, PHASE, GONE } = WRITER_STATE;
/** Between two looks at whether the writer thread is still there. */
const WAIT_SLICE_MS = 50;
const DEFAULT_SETTLE_LIMIT_MS = 10_000;
// In-thread, each transaction costs the event loop a pause, so batches are large. Handing over
// costs little, and a row buffered briefly dies young instead of being promoted by a scavenge.
const THREAD_BATCH_DELAY_MS = 250;
const WORKER_BATCH_DELAY_MS = 50;
const WORKER_URL = new URL("./requestLogWorker.js", import.meta.url);
const WRITER_HEAP_LIMITS = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 48 };

interface WriteResult {
  seq: number;
  duplicates: string[];
  error: string | null;
}

function reportDuplicates(duplicates: string[], onError: (err: Error) => void): void {
  if (duplicates.length > 0) onError(new Error(`request log: duplicate entry ids not stored: ${duplicates.join(", ")}`));
}

/** The log's batches committed on the calling thread. */
export function threadSink(db: Database.Database, sql: LogWriteSql, onError: (err: Error) => void): LogSink {
  const writer = createBatchWriter(db, sql);
  return {
    batchDelayMs: THREAD_BATCH_DELAY_MS,
    write: (batch) => reportDuplicates(writer.write(batch), onError),
    settle: () => {},
    close: () => {},
  };
}

/** The writer thread for a file database; an in-memory one has no file to share, so it writes in-thread. */
export function createLogSink(kind: LogWriterKind, db: Database.Database, sql: LogWriteSql, opts: LogSinkOptions): LogSink {
  if (kind === "thread" || db.memory) return threadSink(db, sql, opts.onError);
  return workerSink(db, sql, opts);
}

function workerSink(db: Database.Database, sql: LogWriteSql, opts: LogSinkOptions): LogSink {
  const { onError } = opts;
  const settleLimitMs = opts.settleLimitMs ?? DEFAULT_SETTLE_LIMIT_MS;
  const state = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
  const channel = new MessageChannel();
  const results: MessagePort = channel.port1;
  // Batches handed over and not yet known to be committed: rewritten here if the thread goes.
  const pending = new Map<number, LogBatch>();
  let seq = 0;
  let fallback: LogSink | null = null;
  let closing = false;

  const report = (r: WriteResult) => {
    if (r.error !== null) onError(new Error(`request log: the writer thread could not store a batch: ${r.error}`));
    reportDuplicates(r.duplicates, onError);
  };
  const drainResults = () => {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- this port only carries what requestLogWorker.js posts: WriteResults
    for (let m = receiveMessageOnPort(results); m; m = receiveMessageOnPort(results)) report(m.message as WriteResult);
  };
  const forgetCommitted = () => {
    const committed = Atomics.load(state, COMMITTED);
    for (const s of pending.keys()) {
      if (s > committed) break;
      pending.delete(s);
    }
  };

  const worker = new Worker(opts.workerUrl ?? WORKER_URL, {
    workerData: { dbPath: db.name, sql, state: state.buffer, results: channel.port2 },
    transferList: [channel.port2],
    // A batch is at most 1000 rows: a small heap is plenty, and V8's defaults would let this
    // thread's young generation alone grow to 32 MB of RSS. Past the limit the thread stops and
    // the log goes on in-thread, like any other failure of the thread.
    resourceLimits: WRITER_HEAP_LIMITS,
  });
  // The log never keeps a finished process alive; close() settles what matters first.
  worker.unref();
  results.unref();
  results.on("message", report);

  const failOver = (why: string): LogSink => {
    if (fallback) return fallback;
    fallback = threadSink(db, sql, onError);
    drainResults();
    forgetCommitted();
    if (pending.size > 0 || why !== "closed") onError(new Error(`request log: ${why}; writing in the gateway's thread from now on`));
    for (const batch of pending.values()) fallback.write(batch);
    pending.clear();
    void worker.terminate();
    return fallback;
  };
  worker.on("error", (err) => failOver(`the writer thread failed (${err.message})`));
  worker.on("exit", () => {
    if (!closing) failOver("the writer thread stopped");
  });

  const settle = () => {
    if (fallback) return;
    const deadline = Date.now() + settleLimitMs;
    for (;;) {
      const committed = Atomics.load(state, COMMITTED);
      if (committed >= seq) break;
      if (Atomics.load(state, PHASE) === GONE) return void failOver("the writer thread stopped");
      const left = deadline - Date.now();
      if (left <= 0) return void failOver(`the writer thread did not answer within ${settleLimitMs} ms`);
      Atomics.wait(state, COMMITTED, committed, Math.min(WAIT_SLICE_MS, left));
    }
    drainResults();
    forgetCommitted();
  };

  return {
    batchDelayMs: WORKER_BATCH_DELAY_MS,
    write(batch) {
      if (fallback) return fallback.write(batch);
      forgetCommitted();
      seq += 1;
      pending.set(seq, batch);
      worker.postMessage({ kind: "batch", seq, batch });
    },
    settle,
    close() {
      if (closing) return;
      settle();
      closing = true;
      if (fallback) return;
      worker.postMessage({ kind: "close" });
      // The thread closes its connection before this one goes (the last one out checkpoints the WAL).
      const deadline = Date.now() + settleLimitMs;
      while (Atomics.load(state, PHASE) !== GONE && Date.now() < deadline) Atomics.wait(state, PHASE, Atomics.load(state, PHASE), WAIT_SLICE_MS);
      drainResults();
      results.close();
    },
  };
}
