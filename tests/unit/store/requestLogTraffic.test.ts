// The request log's R20 fields (migration 9): the traffic class in its own column, the cache move,
// the wait-or-switch decisions and the provenance mark in `details`, the cache-read share derived on
// read; and the usage rollups' trafficClass dimension, which adds up to a re-count of the rows,
// rows written before the migration included (as "unknown").
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RequestLogEntry, TrafficClass } from "../../../shared/types.js";
import { createFileKeyCipher, createStore, type Store } from "../../../main/store/index.js";
import { MIGRATIONS, readSchemaVersion, runMigrations } from "../../../main/store/migrations.js";
import { logEntry, makeTempHome, openHarness, type StoreHarness } from "./storeFixture.js";

const T0 = 1_700_000_000_000;
let n = 0;
function entry(over: Partial<RequestLogEntry> = {}, time = T0): RequestLogEntry {
  n += 1;
  return logEntry({ id: `t-${n}`, time, ...over });
}

const marked = (over: Partial<RequestLogEntry> = {}) =>
  entry({
    trafficClass: "subagent",
    inputTokens: 3_000,
    cacheReadTokens: 2_000,
    cacheWriteTokens: 0,
    outputTokens: 50,
    cacheMove: { fromConnectionId: "c1", toConnectionId: "c2", resentTokens: 2_950 },
    waitOrSwitch: [
      { choice: "wait", reason: "hint_within_wait", connectionId: "c1", hintMs: 2_000, waitedMs: 2_004, maxWaitMs: 8_000 },
      { choice: "switch", reason: "hint_too_long", connectionId: "c1", hintMs: 60_000, waitedMs: 0, maxWaitMs: 8_000 },
    ],
    provenance: { removed: 2, plain: 1 },
    ...over,
  });

/** The report by class, as {key: requests}, and its totals. */
function byClass(store: Store, from = T0 - 86_400_000, to = T0 + 86_400_000) {
  const report = store.usage.report({ from, to, groupBy: "trafficClass", bucket: "hour" });
  const requests = Object.fromEntries(report.series.map((s) => [s.key, s.points.reduce((a, p) => a + p.requests, 0)]));
  return { requests, report };
}

describe("request log R20 fields (migration 9)", () => {
  let h: StoreHarness;
  afterEach(() => h?.cleanup());

  for (const writer of ["thread", "worker"] as const) {
    it(`R20.3 R20.2 every new field round-trips (${writer} writer); the cache-read share is derived, rounded to 4 places`, () => {
      h = openHarness({ logWriter: writer });
      // A share the gateway computed is not stored: the one read back comes from the token counts.
      const e = marked({ cacheReadShare: 0.1 });
      h.store.logs.append(e);
      const back = h.store.logs.get(e.id)!;
      expect(back).toEqual({ ...e, cacheReadShare: 0.6667 });
      expect(h.raw().prepare("SELECT traffic_class FROM request_log WHERE id = ?").get(e.id)).toEqual({ traffic_class: "subagent" });
      expect(h.store.logs.list({})[0]).toEqual(back);
    });
  }

  it("R20.2 a row without the new fields reads as before; no move, no decision and nothing removed are not kept", () => {
    h = openHarness();
    const plain = entry({ inputTokens: 10, cacheReadTokens: 0 });
    const empty = entry({ trafficClass: "main", cacheMove: null, waitOrSwitch: [], provenance: null, inputTokens: 0, cacheReadTokens: 0 });
    const unstated = entry({ trafficClass: "count", inputTokens: 500 });
    for (const e of [plain, empty, unstated]) h.store.logs.append(e);
    const got = (id: string) => h.store.logs.get(id)!;
    expect(got(plain.id).cacheReadShare).toBe(0);
    for (const key of ["trafficClass", "cacheMove", "waitOrSwitch", "provenance"]) expect(got(plain.id)).not.toHaveProperty(key);
    // Input 0: no share to speak of.
    expect(got(empty.id)).toMatchObject({ trafficClass: "main", cacheReadShare: null });
    for (const key of ["cacheMove", "waitOrSwitch", "provenance"]) expect(got(empty.id)).not.toHaveProperty(key);
    // The usual row's details stay the same short text whatever its class.
    const details = h.raw().prepare<[string, string], { details: string }>("SELECT details FROM request_log WHERE id IN (?, ?)").all(plain.id, empty.id);
    expect(details.map((d) => d.details)).toEqual(["{}", "{}"]);
    expect(got(unstated.id)).toMatchObject({ trafficClass: "count", cacheReadShare: null });
  });

  it("R26.1 a WebSocket turn's row keeps transport websocket; an HTTP row reads http and its details stay the short text", () => {
    h = openHarness();
    const socketTurn = entry({ transport: "websocket" });
    const post = entry({ transport: "http" });
    for (const e of [socketTurn, post]) h.store.logs.append(e);
    expect(h.store.logs.get(socketTurn.id)!.transport).toBe("websocket");
    expect(h.store.logs.get(post.id)!.transport).toBe("http");
    expect(h.store.logs.list({}).map((e) => e.transport)).toEqual(["http", "websocket"]);
    const details = h.raw().prepare<[string], { details: string }>("SELECT details FROM request_log WHERE id = ?").get(post.id)!;
    expect(details.details).toBe("{}");
  });

  it("R20.3 R18.2 the rollups by class equal a re-count of the rows; rows without a class are 'unknown'", () => {
    h = openHarness();
    const classes: Array<TrafficClass | undefined> = ["main", "main", "background", "subagent", undefined, "compaction", "count", "main"];
    classes.forEach((trafficClass, i) => h.store.logs.append(entry({ trafficClass, inputTokens: 100 + i, outputTokens: i, costUsd: 0.001 * i }, T0 + i * 1_800_000)));
    const { requests, report } = byClass(h.store);
    const recount = h
      .raw()
      .prepare<[], { k: string; n: number; input: number }>("SELECT COALESCE(traffic_class, 'unknown') AS k, COUNT(*) AS n, SUM(input_tokens) AS input FROM request_log GROUP BY k")
      .all();
    expect(requests).toEqual(Object.fromEntries(recount.map((r) => [r.k, r.n])));
    expect(requests).toEqual({ main: 3, background: 1, subagent: 1, unknown: 1, compaction: 1, count: 1 });
    for (const r of recount) expect(report.series.find((s) => s.key === r.k)!.points.reduce((a, p) => a + p.inputTokens, 0)).toBe(r.input);
    const byProvider = h.store.usage.report({ from: T0 - 86_400_000, to: T0 + 86_400_000, groupBy: "provider", bucket: "day" });
    // Cost sums floats in another order: equal to the last few bits.
    expect({ ...report.totals, costUsd: 0 }).toEqual({ ...byProvider.totals, costUsd: 0 });
    expect(report.totals.costUsd).toBeCloseTo(byProvider.totals.costUsd, 12);
  });
});

describe("migration 9 over an older database (R0.3)", () => {
  const homes: string[] = [];
  afterEach(() => {
    for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
  });

  it("R0.3 R20.3 keeps version-8 rows readable and counts their rollups under 'unknown', once, even if run again", () => {
    const home = makeTempHome();
    homes.push(home);
    const dbPath = path.join(home, "switchyard.db");
    const open = () => createStore({ dbPath, cipher: createFileKeyCipher(home) });
    // Rows and rollups as a version-8 store writes them (the rollups were kept then too).
    const db = new Database(dbPath);
    runMigrations(
      db,
      MIGRATIONS.filter((m) => m.version <= 8),
    );
    db.close();
    const rows = [entry({ inputTokens: 400, cacheReadTokens: 300, outputTokens: 7 }, T0), entry({ provider: "q", inputTokens: 20, outputTokens: 1 }, T0 + 5_000_000)];
    const v8 = new Database(dbPath);
    const insertOld = v8.prepare(
      `INSERT INTO request_log (id, time, client_format, model, provider, connection_id, status, latency_ms, stream, input_tokens, output_tokens, cache_read_tokens, attempts)
       VALUES (@id, @time, 'openai', 'm', @provider, 'c', 200, 5, 0, @inputTokens, @outputTokens, @cacheReadTokens, '[]')`,
    );
    const rollup = v8.prepare(
      `INSERT INTO usage_rollup VALUES (@bucket, @dim, @t, @value, 1, @inputTokens, @outputTokens, @cacheReadTokens, 0, 0, 0)
       ON CONFLICT DO UPDATE SET requests = requests + 1, input_tokens = input_tokens + excluded.input_tokens,
         output_tokens = output_tokens + excluded.output_tokens, cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens`,
    );
    for (const r of rows) {
      insertOld.run({ ...r, cacheReadTokens: r.cacheReadTokens ?? null });
      for (const [bucket, size] of [
        ["hour", 3_600_000],
        ["day", 86_400_000],
      ] as const) {
        for (const [dim, value] of [
          ["provider", r.provider],
          ["model", ""],
        ] as const) {
          rollup.run({
            bucket,
            dim,
            t: Math.floor(r.time / size) * size,
            value,
            inputTokens: r.inputTokens,
            outputTokens: r.outputTokens,
            cacheReadTokens: r.cacheReadTokens ?? 0,
          });
        }
      }
    }
    expect(readSchemaVersion(v8)).toBe(8);
    v8.close();

    let store = open();
    const old = store.logs.get(rows[0].id)!;
    expect(old).toMatchObject({ id: rows[0].id, inputTokens: 400, cacheReadShare: 0.75 });
    for (const key of ["trafficClass", "cacheMove", "waitOrSwitch", "provenance"]) expect(old).not.toHaveProperty(key);
    expect(byClass(store).requests).toEqual({ unknown: 2 });
    expect(byClass(store).report.totals).toMatchObject({ requests: 2, inputTokens: 420, outputTokens: 8, cacheReadTokens: 300 });
    // A new row with a class adds to its own key beside the old ones.
    store.logs.append(entry({ trafficClass: "main", inputTokens: 1 }, T0 + 10_000));
    store.close();

    const again = new Database(dbPath);
    MIGRATIONS.find((m) => m.version === 9)!.up(again);
    again.close();
    store = open();
    expect(byClass(store).requests).toEqual({ unknown: 2, main: 1 });
    const day = store.usage.report({ from: T0 - 86_400_000, to: T0 + 86_400_000, groupBy: "trafficClass", bucket: "day" });
    expect(day.totals.requests).toBe(3);
    store.close();
  });
});
