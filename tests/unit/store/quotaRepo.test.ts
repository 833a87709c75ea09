// R18.3: quota windows kept per connection and window, read from memory, written behind to
// usage_quotas and read back after a restart.
import Database from "better-sqlite3";
import { afterEach, describe, expect, it, vi } from "vitest";
import { QUOTA_FLUSH_DELAY_MS, QUOTA_SEEN_REWRITE_MS, type QuotaWindowReading } from "../../../main/store/quotaRepo.js";
import { connectionInput, openHarness, providerInput, type StoreHarness } from "./storeFixture.js";

const reading = (window: string, over: Partial<QuotaWindowReading> = {}): QuotaWindowReading => ({
  window,
  usedPercent: null,
  remaining: null,
  limit: null,
  resetAt: null,
  source: "openai",
  status: null,
  ...over,
});

describe("quota repo (R18.3)", () => {
  let h: StoreHarness;
  afterEach(() => {
    vi.useRealTimers();
    h?.cleanup();
  });

  const rows = () => {
    const db = new Database(h.dbPath, { readonly: true });
    try {
      return db.prepare(`SELECT connection_id, "window" AS window, remaining, seen_at FROM usage_quotas ORDER BY connection_id, "window"`).all();
    } finally {
      db.close();
    }
  };

  function setUp(): void {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    h = openHarness();
    h.store.providers.create(providerInput("p"));
    h.store.connections.create(connectionInput("c1", "p"));
    h.store.connections.create(connectionInput("c2", "p"));
  }

  it("R18.3 reads answer from memory at once; changed values reach SQLite one flush delay later, all in one go", () => {
    setUp();
    const q = h.store.quotas;
    q.record("c1", "p", [reading("requests", { remaining: 9, limit: 10, usedPercent: 10 }), reading("tokens", { remaining: 100 })], 1_000);
    expect(q.list().map((i) => [i.connectionId, i.window, i.remaining, i.seenAt])).toEqual([
      ["c1", "requests", 9, 1_000],
      ["c1", "tokens", 100, 1_000],
    ]);
    expect(q.list()[0]).toEqual({
      connectionId: "c1",
      provider: "p",
      window: "requests",
      usedPercent: 10,
      remaining: 9,
      limit: 10,
      resetAt: null,
      source: "openai",
      status: null,
      seenAt: 1_000,
      windowMs: null,
      sessions: [],
    });
    expect(rows()).toEqual([]);
    q.record("c1", "p", [reading("requests", { remaining: 8, limit: 10 })], 1_500);
    vi.advanceTimersByTime(QUOTA_FLUSH_DELAY_MS);
    expect(rows()).toEqual([
      { connection_id: "c1", window: "requests", remaining: 8, seen_at: 1_500 },
      { connection_id: "c1", window: "tokens", remaining: 100, seen_at: 1_000 },
    ]);
  });

  it("R18.3 the same values seen again only move seenAt in memory until the stored one is a minute old", () => {
    setUp();
    const q = h.store.quotas;
    q.record("c1", "p", [reading("requests", { remaining: 5 })], 10_000);
    vi.advanceTimersByTime(QUOTA_FLUSH_DELAY_MS);
    q.record("c1", "p", [reading("requests", { remaining: 5 })], 20_000);
    vi.advanceTimersByTime(QUOTA_FLUSH_DELAY_MS);
    expect(q.list()[0].seenAt).toBe(20_000);
    expect(rows()).toEqual([{ connection_id: "c1", window: "requests", remaining: 5, seen_at: 10_000 }]);
    q.record("c1", "p", [reading("requests", { remaining: 5 })], 10_000 + QUOTA_SEEN_REWRITE_MS);
    vi.advanceTimersByTime(QUOTA_FLUSH_DELAY_MS);
    expect(rows()).toEqual([{ connection_id: "c1", window: "requests", remaining: 5, seen_at: 10_000 + QUOTA_SEEN_REWRITE_MS }]);
  });

  it("R18.3 a restart reads the windows back, including those written only by close", () => {
    setUp();
    h.store.quotas.record("c2", "p", [reading("5h", { usedPercent: 42, resetAt: 99_000, source: "anthropic-unified", status: "allowed" })], 3_000);
    const store = h.reopen();
    expect(store.quotas.list()).toEqual([
      {
        connectionId: "c2",
        provider: "p",
        window: "5h",
        usedPercent: 42,
        remaining: null,
        limit: null,
        resetAt: 99_000,
        source: "anthropic-unified",
        status: "allowed",
        seenAt: 3_000,
        windowMs: 5 * 3_600_000,
        sessions: [],
      },
    ]);
  });

  it("R21.6 a window's rises are charged to sessions, written behind and read back after a restart; a new period starts over", () => {
    setUp();
    const q = h.store.quotas;
    const fiveHour = (usedPercent: number, resetAt = 99_000_000) => [reading("5h", { usedPercent, resetAt, source: "anthropic-unified" })];
    q.record("c1", "p", fiveHour(10), 1_000, { session: "a", trafficClass: "main" });
    q.record("c1", "p", fiveHour(15), 2_000, { session: "a", trafficClass: "main" });
    q.record("c1", "p", fiveHour(18), 3_000, { session: "b", trafficClass: "subagent" });
    q.record("c1", "p", fiveHour(19), 4_000);
    const expected = [
      { session: "a", usedPercent: 5, requests: 1, byClass: { main: 5 } },
      { session: "b", usedPercent: 3, requests: 1, byClass: { subagent: 3 } },
      { session: null, usedPercent: 1, requests: 1, byClass: { main: 1 } },
    ];
    expect(q.list()[0].sessions).toEqual(expected);
    const store = h.reopen();
    expect(store.quotas.list()[0].sessions).toEqual(expected);
    // The next period: its first reading is the baseline, the old charges are gone, in the table too.
    store.quotas.record("c1", "p", fiveHour(1, 99_000_000 + 5 * 3_600_000), 5_000, { session: "b", trafficClass: "main" });
    expect(store.quotas.list()[0].sessions).toEqual([]);
    store.quotas.record("c1", "p", fiveHour(3, 99_000_000 + 5 * 3_600_000), 6_000, { session: "b", trafficClass: "main" });
    const again = h.reopen();
    expect(again.quotas.list()[0].sessions).toEqual([{ session: "b", usedPercent: 2, requests: 1, byClass: { main: 2 } }]);
  });

  it("R21.7 record answers the thresholds a window reached, once per period, also across a restart", () => {
    setUp();
    const who = { session: "a", trafficClass: "main" };
    const at = (q: typeof h.store.quotas, percent: number) =>
      q.record("c1", "p", [reading("5h", { usedPercent: percent, resetAt: 99_000_000 }), reading("requests", { usedPercent: percent })], 1_000, who);
    expect(at(h.store.quotas, 50)).toEqual([]);
    expect(at(h.store.quotas, 81)).toEqual([{ window: "5h", percent: 80 }]);
    expect(at(h.store.quotas, 85)).toEqual([]);
    const store = h.reopen();
    expect(at(store.quotas, 90)).toEqual([]);
    expect(at(store.quotas, 95)).toEqual([{ window: "5h", percent: 95 }]);
    expect(at(store.quotas, 100)).toEqual([{ window: "5h", percent: 100 }]);
    expect(at(store.quotas, 100)).toEqual([]);
  });

  it("R18.3 a deleted connection loses its windows, whether deleted through the repo or with its provider", () => {
    setUp();
    const q = h.store.quotas;
    q.record("c1", "p", [reading("requests", { remaining: 1 })], 1_000);
    q.record("c2", "p", [reading("requests", { remaining: 2 })], 1_000);
    q.flush();
    q.deleteConnection("c1");
    expect(q.list().map((i) => i.connectionId)).toEqual(["c2"]);
    expect(rows()).toEqual([{ connection_id: "c2", window: "requests", remaining: 2, seen_at: 1_000 }]);
    h.store.providers.delete("p");
    expect(q.list()).toEqual([]);
    expect(rows()).toEqual([]);
  });
});
