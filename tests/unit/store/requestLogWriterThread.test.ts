// The request log's writer thread (issue 12): the gateway hands its batches to a thread with its
// own SQLite connection, every read still sees what was appended before it, and a thread that
// cannot start, dies or stops answering costs no row: the log goes on in the caller's thread.
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RequestLogEntry } from "../../../shared/types.js";
import { openDatabase } from "../../../main/store/database.js";
import { createRequestLogRepo } from "../../../main/store/requestLogRepo.js";
import { logEntry, makeTempHome, openHarness, type StoreHarness } from "./storeFixture.js";

let n = 0;
function entry(over: Partial<RequestLogEntry> = {}): RequestLogEntry {
  n += 1;
  const attempts = [{ provider: "p", connectionId: "c", model: "m", status: 200, verdict: null, latencyMs: 4 }];
  return logEntry({ id: `w-${n}`, time: 1_700_000_000_000 + n, inputTokens: 1, outputTokens: 2, attempts, ...over });
}

const storedIds = (dbPath: string): string[] => {
  const db = new Database(dbPath, { readonly: true });
  try {
    return (db.prepare("SELECT id FROM request_log ORDER BY seq").all() as Array<{ id: string }>).map((r) => r.id);
  } finally {
    db.close();
  }
};

describe("request log writer thread (issue 12)", () => {
  let h: StoreHarness | null = null;
  const cleanups: Array<() => void> = [];
  const errors: Error[] = [];
  afterEach(() => {
    h?.cleanup();
    h = null;
    for (const c of cleanups.splice(0)) c();
    errors.length = 0;
  });

  const openWorkerStore = (logRetention?: number) => {
    h = openHarness({ logWriter: "worker", logRetention, onLogError: (err) => errors.push(err) });
    return h;
  };

  /** A repo over its own file, written by the given thread script. */
  const repoWith = (workerUrl: URL, settleLimitMs = 10_000, readonlyMain = false) => {
    const home = makeTempHome();
    const dbPath = path.join(home, "switchyard.db");
    openDatabase(dbPath).close();
    const db = readonlyMain ? new Database(dbPath, { readonly: true }) : openDatabase(dbPath);
    const logs = createRequestLogRepo(db, { retention: 10_000, onError: (err) => errors.push(err), writer: "worker", writerThread: { workerUrl, settleLimitMs } });
    cleanups.push(() => {
      logs.close();
      db.close();
      fs.rmSync(home, { recursive: true, force: true });
    });
    return { logs, dbPath };
  };

  it("R15.1 every read sees the entries appended just before it, written by the thread", () => {
    const { store } = openWorkerStore();
    const first = entry({ clientKind: "aider", egressIp: "10.0.0.7" });
    store.logs.append(first);
    expect(store.logs.get(first.id)).toEqual(first);
    const second = entry({ clientKind: "curl", status: 429, errorCode: "rate_limited" });
    store.logs.append(second);
    expect(store.logs.list({}).map((e) => e.id)).toEqual([second.id, first.id]);
    store.logs.append(entry({ clientKind: "curl" }));
    expect(
      store.logs
        .latestPerClient()
        .map((e) => e.clientKind)
        .sort(),
    ).toEqual(["aider", "curl"]);
    expect(store.logs.stats({ since: 0, bucketMs: 1e13 })).toEqual([expect.objectContaining({ requests: 3, errors: 1 })]);
    expect(store.logs.lastEgressIps(0)).toEqual(new Map([["c", "10.0.0.7"]]));
  });

  it("R15.1 appends reach the table without a read: handed over after a short delay", async () => {
    const harness = openWorkerStore();
    const e = entry();
    harness.store.logs.append(e);
    const started = Date.now();
    while (!storedIds(harness.dbPath).includes(e.id) && Date.now() - started < 5_000) await new Promise((r) => setTimeout(r, 20));
    expect(storedIds(harness.dbPath)).toEqual([e.id]);
  });

  it("R15.1 the gateway thread only hands batches over: its own connection may even be read-only", () => {
    const { logs, dbPath } = repoWith(new URL("../../../main/store/requestLogWorker.js", import.meta.url), 10_000, true);
    const appended = Array.from({ length: 1_200 }, () => entry());
    for (const e of appended) logs.append(e);
    logs.flush();
    expect(storedIds(dbPath)).toEqual(appended.map((e) => e.id));
    expect(logs.list({ limit: 1 })[0].id).toBe(appended.at(-1)!.id);
    expect(errors).toEqual([]);
  });

  it("R15.1 keeps only the newest logRetention rows and reports a duplicate id once", () => {
    const harness = openWorkerStore(5);
    const appended = Array.from({ length: 12 }, () => entry());
    for (const e of appended) harness.store.logs.append(e);
    harness.store.logs.append({ ...appended[11], model: "again" });
    harness.store.logs.flush();
    expect(storedIds(harness.dbPath)).toEqual(appended.slice(-5).map((e) => e.id));
    expect(errors.map((e) => e.message)).toEqual([`request log: duplicate entry ids not stored: ${appended[11].id}`]);
  });

  it("R15.1 prompts past their retention are erased against the store's clock, buffered rows included", () => {
    const harness = openWorkerStore();
    const { logs } = harness.store;
    logs.setPromptRetention(60_000);
    const old = entry({ promptText: "old question" });
    old.time = harness.clock.now() - 120_000;
    const fresh = entry({ promptText: "new question" });
    fresh.time = harness.clock.now();
    logs.append(old);
    logs.append(fresh);
    expect(logs.get(old.id)!.promptText).toBeUndefined();
    expect(logs.get(fresh.id)!.promptText).toBe("new question");
    logs.append(entry({ promptText: "still buffered" }));
    logs.setPromptRetention(null);
    expect(logs.list({}).filter((e) => e.promptText !== undefined)).toEqual([]);
  });

  it("R15.1 close writes what is buffered and closes the thread's connection before the store's", () => {
    const harness = openWorkerStore();
    const e = entry();
    harness.store.logs.append(e);
    harness.store.close();
    // The last connection out checkpoints the WAL and removes it: the thread's was closed first.
    expect(fs.existsSync(`${harness.dbPath}-wal`)).toBe(false);
    expect(storedIds(harness.dbPath)).toEqual([e.id]);
    expect(harness.reopen().logs.list({})).toEqual([e]);
  });

  it("R15.1 a thread that cannot start costs no row: its batches are written in the caller's thread", async () => {
    const { logs, dbPath } = repoWith(new URL("data:text/javascript,throw new Error('no database here')"));
    const appended = Array.from({ length: 1_000 }, () => entry());
    for (const e of appended) logs.append(e);
    // The thread's failure arrives as an event; the batch it held is rewritten then, without a read.
    await new Promise((r) => setTimeout(r, 500));
    expect(storedIds(dbPath)).toEqual(appended.map((e) => e.id));
    expect(errors.map((e) => e.message)).toEqual([expect.stringContaining("the writer thread failed (no database here)")]);
    const later = entry();
    logs.append(later);
    expect(logs.get(later.id)).toEqual(later);
  });

  it("R15.1 a thread that stops answering holds a read up for settleLimitMs at most, then the log writes in-thread", () => {
    const silent = new URL(`data:text/javascript,${encodeURIComponent('import { parentPort } from "node:worker_threads"; parentPort.on("message", () => {});')}`);
    const { logs, dbPath } = repoWith(silent, 300);
    const e = entry();
    logs.append(e);
    const started = performance.now();
    expect(logs.list({}).map((x) => x.id)).toEqual([e.id]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    expect(errors.map((x) => x.message)).toEqual([expect.stringContaining("did not answer within 300 ms")]);
    logs.append(entry());
    logs.flush();
    expect(storedIds(dbPath)).toHaveLength(2);
  });
});
