// Issue 26: the order a target's connections are tried in — priority, connection weight (item 7)
// and the R4.10 p2c signal among connections of one provider (item 2) — on a seeded random.
import { describe, expect, it } from "vitest";
import { connectionTryOrder, type ConnectionChoice } from "../../../main/engine/connectionOrder.js";
import { RoutingStatsBook } from "../../../main/engine/strategies/routingStatsBook.js";
import type { Connection } from "../../../shared/types.js";
import { connection, harness } from "./fixtures.js";
import { seeded } from "./strategies/fixtures.js";

const NOW = 1_900_000_000_000;
const conn = (id: string, priority = 0, weight = 1): Connection => connection({ id, priority, weight });
const ids = (order: Iterable<Connection>): string[] => [...order].map((c) => c.id);
const byWeight = (seed = 1): ConnectionChoice => ({ random: seeded(seed), latency: null });

/** How often each connection leads over `n` requests. */
function leaders(list: Connection[], choice: ConnectionChoice, n: number, model = "m"): Record<string, number> {
  const counts: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    const first = ids(connectionTryOrder(list, model, choice, NOW))[0];
    counts[first] = (counts[first] ?? 0) + 1;
  }
  return counts;
}

/** A p2c combo's book where `ttfb` gives each connection's samples (5 each, all ok) for model "m". */
function bookWith(ttfb: Record<string, number>, model: string | null = "m"): RoutingStatsBook {
  const book = new RoutingStatsBook();
  for (const [id, ms] of Object.entries(ttfb)) {
    for (let i = 0; i < 5; i++) book.settled(`p/${model ?? "other"}`, id, { ok: true, ttfbMs: ms }, NOW - 1_000 * (i + 1), model ?? "other");
  }
  return book;
}

describe("connection try order (R11.2, issue 26 item 7: weight)", () => {
  it("R11.2 equal weights keep priority, then the order given, and hand back the list itself", () => {
    const sorted = [conn("a"), conn("b"), conn("c", 1)];
    expect(connectionTryOrder(sorted, "m", byWeight(), NOW)).toBe(sorted);
    expect(ids(connectionTryOrder([conn("z", 2), conn("y", 0), conn("x", 1), conn("w", 0)], "m", byWeight(), NOW))).toEqual(["y", "w", "x", "z"]);
  });

  it("R11.2 weights 1:3 at one priority: over 10 000 seeded requests the heavier leads about 75 %", () => {
    const counts = leaders([conn("light", 0, 1), conn("heavy", 0, 3)], byWeight(7), 10_000);
    expect(counts["heavy"] / 10_000).toBeGreaterThan(0.73);
    expect(counts["heavy"] / 10_000).toBeLessThan(0.77);
  });

  it("R11.2 the same seed gives the same orders: the weighted choice is deterministic in tests", () => {
    const list = [conn("a", 0, 1), conn("b", 0, 2), conn("c", 0, 5), conn("d", 1, 1)];
    const run = (seed: number) => Array.from({ length: 20 }, (_, i) => ids(connectionTryOrder(list, "m", { random: seeded(seed + i), latency: null }, NOW)).join(""));
    expect(run(3)).toEqual(run(3));
    expect(new Set(run(3)).size).toBeGreaterThan(1);
    // Failover walks every connection once, the lower priority last.
    for (const order of run(3)) expect([...order].sort().join("")).toBe("abcd");
    for (const order of run(3)) expect(order.endsWith("d")).toBe(true);
  });

  it("R11.2 weight picks only among the lowest priority: a heavy connection of priority 1 never leads a priority-0 one", () => {
    const counts = leaders([conn("first", 0, 1), conn("heavy", 1, 1_000)], byWeight(), 2_000);
    expect(counts).toEqual({ first: 2_000 });
  });

  it("R11.2 weight 0 is a standby: after every positive weight, even one of a higher priority value", () => {
    const list = [conn("standby", 0, 0), conn("b", 0, 1), conn("later", 5, 1), conn("standby2", 1, 0)];
    expect(ids(connectionTryOrder(list, "m", byWeight(), NOW))).toEqual(["b", "later", "standby", "standby2"]);
    // Only standbys: by priority, in the order given.
    expect(ids(connectionTryOrder([conn("s2", 1, 0), conn("s1", 0, 0)], "m", byWeight(), NOW))).toEqual(["s1", "s2"]);
  });

  it("R11.2 through the engine facade: connectionOrder weighs on the engine's clock", () => {
    const h = harness();
    const counts: Record<string, number> = {};
    const choice = byWeight(11);
    for (let i = 0; i < 1_000; i++) {
      const first = ids(h.engine.connectionOrder([conn("a", 0, 1), conn("b", 0, 0), conn("c", 0, 2)], "m", choice))[0];
      counts[first] = (counts[first] ?? 0) + 1;
    }
    expect(Object.keys(counts).sort()).toEqual(["a", "c"]);
  });
});

describe("p2c among one provider's connections (R4.10, issue 26 item 2)", () => {
  const p2c = (book: RoutingStatsBook, weight = 10, seed = 5): ConnectionChoice => ({ random: seeded(seed), latency: { weight, windows: book } });

  it("R4.10 the faster connection (≥ 3 samples each) leads every request, though it was created second", () => {
    const book = bookWith({ slow: 800, fast: 100 });
    expect(leaders([conn("slow"), conn("fast")], p2c(book), 1_000)).toEqual({ fast: 1_000 });
    // Today's order without the signal: the first connection.
    expect(leaders([conn("slow"), conn("fast")], p2c(book, 0), 1_000)).toEqual({ slow: 1_000 });
  });

  it("R4.10 among three, the slowest never leads: it loses every duel it is drawn into", () => {
    const book = bookWith({ a: 900, b: 100, c: 120 });
    const counts = leaders([conn("a"), conn("b"), conn("c")], p2c(book), 3_000);
    expect(counts["a"]).toBeUndefined();
    expect(counts["b"] + counts["c"]).toBe(3_000);
  });

  it("R4.10 per connection+model first; per connection (across models) when that window is too small", () => {
    const perModel = bookWith({ x: 100, y: 900 }, "m");
    for (let i = 0; i < 5; i++) perModel.settled("p/other", "x", { ok: true, ttfbMs: 5_000 }, NOW - 100 - i, "other");
    // x is slower over all models but faster for "m": the model's window decides.
    expect(leaders([conn("y"), conn("x")], p2c(perModel), 500, "m")).toEqual({ x: 500 });
    // For a model neither has samples of, the connection windows decide: y is faster over all.
    expect(leaders([conn("x"), conn("y")], p2c(perModel), 500, "unseen")).toEqual({ y: 500 });
  });

  it("R4.10 too few samples leave the order given; priorities and standbys still come first", () => {
    const book = new RoutingStatsBook();
    book.settled("p/m", "fast", { ok: true, ttfbMs: 1 }, NOW - 10, "m");
    expect(leaders([conn("slow"), conn("fast")], p2c(book), 200)).toEqual({ slow: 200 });
    const faster = bookWith({ lowPriority: 10, first: 900, standby: 1 });
    expect(ids(connectionTryOrder([conn("standby", 0, 0), conn("first", 0), conn("lowPriority", 1)], "m", p2c(faster), NOW))).toEqual(["first", "lowPriority", "standby"]);
  });

  it("R4.10 samples older than 15 minutes do not count", () => {
    const book = bookWith({ slow: 800, fast: 100 });
    expect(leaders([conn("slow"), conn("fast")], { random: seeded(1), latency: { weight: 10, windows: book } }, 10)).toEqual({ fast: 10 });
    const later = NOW + 16 * 60_000;
    expect(ids(connectionTryOrder([conn("slow"), conn("fast")], "m", p2c(book), later))[0]).toBe("slow");
  });
});
