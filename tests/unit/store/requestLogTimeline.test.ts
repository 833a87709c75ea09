// The request log's issue-14 columns (migration 4): client kind, what was skipped before dispatch,
// the combo's waits and the prompt text with its retention, stored and read back; rows written
// before the migration read as they always did.
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RequestLogEntry } from "../../../shared/types.js";
import { createFileKeyCipher, createStore } from "../../../main/store/index.js";
import { MIGRATIONS, readSchemaVersion, runMigrations } from "../../../main/store/migrations.js";
import { logEntry, makeTempHome, openHarness, type StoreHarness } from "./storeFixture.js";

let n = 0;
function entry(over: Partial<RequestLogEntry> = {}, time = 1_700_000_000_000): RequestLogEntry {
  n += 1;
  return logEntry({ id: `r-${n}`, time, ...over });
}

describe("request log timeline columns (issue 14)", () => {
  let h: StoreHarness;
  afterEach(() => h?.cleanup());

  it("R15.1 keeps the client kind, the skipped connections and the combo's waits, and finds a row by id", () => {
    h = openHarness();
    const skipped = [{ provider: "p", target: "p/m", connectionId: "c1", reason: "unavailable", remainingMs: 9_000 }];
    const e = entry({ clientKind: "aider", skipped, comboWaits: { count: 1, waitedMs: 250 } });
    h.store.logs.append(e);
    expect(h.store.logs.get(e.id)).toEqual(e);
    expect(h.store.logs.get("missing")).toBeNull();
  });

  it("R15.1 the newest row of each client kind, rows without a kind left out", () => {
    h = openHarness();
    const logs = h.store.logs;
    logs.append(entry({ clientKind: "curl" }, 1));
    logs.append(entry({ clientKind: "aider" }, 2));
    logs.append(entry({ clientKind: "curl" }, 3));
    logs.append(entry({}, 4));
    expect(
      logs
        .latestPerClient()
        .map((e) => [e.clientKind, e.time])
        .sort(),
    ).toEqual([
      ["aider", 2],
      ["curl", 3],
    ]);
    expect(logs.list({ client: "curl" }).map((e) => e.time)).toEqual([3, 1]);
    expect(logs.list({ since: 2, until: 4 }).map((e) => e.time)).toEqual([3, 2]);
  });

  it("R15.1 prompts older than their retention are erased at the next write; no retention (off) erases them all", () => {
    h = openHarness();
    const logs = h.store.logs;
    const now = h.clock.now();
    logs.setPromptRetention(3_600_000);
    logs.append(entry({ promptText: "old" }, now - 3_600_001));
    logs.append(entry({ promptText: "new" }, now - 10));
    logs.flush();
    expect(logs.list({}).map((e) => e.promptText)).toEqual(["new", undefined]);
    logs.setPromptRetention(null);
    expect(logs.list({}).map((e) => e.promptText)).toEqual([undefined, undefined]);
  });

  it("R0.3 migration 4 upgrades a version-2 log in place and can run again without change", () => {
    const home = makeTempHome();
    const dbPath = path.join(home, "switchyard.db");
    try {
      const db = new Database(dbPath);
      runMigrations(
        db,
        MIGRATIONS.filter((m) => m.version <= 2),
      );
      db.prepare(
        `INSERT INTO request_log (id, time, client_format, model, status, latency_ms, stream, attempts)
        VALUES ('old', 5, 'openai', 'm', 200, 1, 0, '[]')`,
      ).run();
      runMigrations(db);
      expect(readSchemaVersion(db)).toBeGreaterThanOrEqual(4);
      const before = db.prepare("PRAGMA table_info(request_log)").all();
      MIGRATIONS.find((m) => m.version === 4)!.up(db);
      expect(db.prepare("PRAGMA table_info(request_log)").all()).toEqual(before);
      db.close();
      const store = createStore({ dbPath, cipher: createFileKeyCipher(home) });
      const old = store.logs.get("old")!;
      store.close();
      expect(old).toMatchObject({ id: "old", time: 5, attempts: [] });
      expect(old.clientKind).toBeUndefined();
      expect(old.skipped).toBeUndefined();
      expect(old.promptText).toBeUndefined();
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
