// The request log's writer thread (issue 12). The gateway's event loop only buffers a row per
// request and hands batches over; this thread holds its own connection to the same SQLite file
// and commits them, so the inserts, the index updates, the trim and the WAL writes (a tenth of the
// CPU per request, and a pause of 10–25 ms per batch for every request in flight) run beside the
// gateway instead of inside it. Plain JavaScript: node starts a worker from a file.
//
// Protocol (requestLogSink.ts is the other side):
// - workerData: { dbPath, sql, state: SharedArrayBuffer (Int32Array, words WRITER_STATE names), results: MessagePort }
// - messages in: { kind: "batch", seq, batch } and { kind: "close" }
// - after each batch, committedSeq = seq (then notify), whether the batch was stored or failed;
//   duplicates and failures go to `results` as { seq, duplicates, error }.
// - phase: STARTING, READY, GONE (closed or failed); the main thread waits on these words.
import Database from "better-sqlite3";
import { parentPort, workerData } from "node:worker_threads";
import { WRITER_STATE, createBatchWriter } from "./requestLogWrites.js";

const { COMMITTED, PHASE, READY, GONE } = WRITER_STATE;

const { dbPath, sql, results } = workerData;
const state = new Int32Array(workerData.state);

function setPhase(phase) {
  Atomics.store(state, PHASE, phase);
  Atomics.notify(state, PHASE);
}

// However this thread ends (closed, or an error nobody caught), the main thread must stop waiting.
process.on("exit", () => setPhase(GONE));

const db = new Database(dbPath);
// The main thread writes the same file (settings, pins): each side waits for the other's lock.
db.pragma("busy_timeout = 5000");
db.pragma("synchronous = NORMAL");
const writer = createBatchWriter(db, sql);
setPhase(READY);

parentPort.on("message", (msg) => {
  if (msg.kind === "close") {
    db.close();
    parentPort.close();
    results.close();
    return;
  }
  let duplicates = [];
  let error = null;
  try {
    duplicates = writer.write(msg.batch);
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
  }
  if (duplicates.length > 0 || error !== null) results.postMessage({ seq: msg.seq, duplicates, error });
  Atomics.store(state, COMMITTED, msg.seq);
  Atomics.notify(state, COMMITTED);
});
