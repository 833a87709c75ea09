// The in-memory book behind RoutingStats, driven the way the plan stage will drive it.
import { describe, expect, it } from "vitest";
import { order as leastUsed } from "../../../../main/engine/strategies/least-used.js";
import { order as lkgp } from "../../../../main/engine/strategies/lkgp.js";
import { latencyErrorPoints } from "../../../../main/engine/strategies/p2c.js";
import { RoutingStatsBook } from "../../../../main/engine/strategies/routingStatsBook.js";
import { cand, keys, NOW, targets } from "./fixtures.js";

const facts = { estimatedInputTokens: null, cacheHint: false, previousCandidateKey: null };

describe("RoutingStatsBook (R11.1, R4.10)", () => {
  it("R11.1 counts requests and in-flight attempts; an ending without a verdict only frees the slot", () => {
    const book = new RoutingStatsBook();
    book.dispatched("a");
    book.dispatched("a");
    book.settled("a", null, { ok: true, ttfbMs: 120 }, NOW);
    book.settled("a", null, null, NOW + 5);
    book.settled("a", null, null, NOW + 6);
    const a = book.view(facts, 0).candidates.get("a");
    expect(a).toEqual({ requests: 2, inFlight: 0, lastSuccessAt: NOW, lastFailureAt: null, samples: [{ at: NOW, ttfbMs: 120, ok: true }] });
  });

  it("R4.10 keeps only the last 20 samples per target and per connection", () => {
    const book = new RoutingStatsBook();
    for (let i = 0; i < 25; i++) {
      book.dispatched("p/m@c1");
      book.settled("p/m@c1", "c1", { ok: i >= 5, ttfbMs: 100 + i }, NOW + i);
    }
    const view = book.view(facts, 20);
    expect(view.candidates.get("p/m@c1")?.samples.map((s) => s.ttfbMs)).toEqual(Array.from({ length: 20 }, (_, i) => 105 + i));
    expect(view.connections.get("c1")).toHaveLength(20);
    expect(view.connections.get("c1")?.every((s) => s.ok)).toBe(true);
  });

  it("R4.10 keeps a window per connection+model next to the one per connection (issue 26: they rank a provider's connections)", () => {
    const book = new RoutingStatsBook();
    book.settled("p/a", "c1", { ok: true, ttfbMs: 100 }, NOW, "a");
    book.settled("p/b", "c1", { ok: false, ttfbMs: 300 }, NOW + 1, "b");
    book.settled("p/a", null, { ok: true, ttfbMs: 50 }, NOW + 2, "a");
    expect(book.connectionWindow("c1", "a")).toEqual([{ at: NOW, ttfbMs: 100, ok: true }]);
    expect(book.connectionWindow("c1", "b")).toEqual([{ at: NOW + 1, ttfbMs: 300, ok: false }]);
    expect(book.connectionWindow("c1", null)?.map((s) => s.ttfbMs)).toEqual([100, 300]);
    expect(book.connectionWindow("c2", "a")).toBeUndefined();
  });

  it("R11.1 D11 least-used over the book: 9 000 dispatches split exactly 3 000 each", () => {
    const book = new RoutingStatsBook();
    const abc = targets("a", "b", "c");
    for (let i = 0; i < 9_000; i++) book.dispatched(leastUsed(abc, book.view(facts, 0))[0].key);
    expect(keys(abc).map((k) => book.view(facts, 0).candidates.get(k)?.requests)).toEqual([3_000, 3_000, 3_000]);
  });

  it("R11.1 D11 lkgp over the book: a failure on 'a' and a success on 'b' put 'b' first", () => {
    const book = new RoutingStatsBook();
    book.settled("a", null, { ok: false, ttfbMs: 50 }, NOW);
    book.settled("b", null, { ok: true, ttfbMs: 80 }, NOW + 1);
    expect(keys(lkgp(targets("a", "b", "c"), book.view(facts, 0)))).toEqual(["b", "a", "c"]);
  });

  it("R4.10 p2c reads the book's connection windows for pinned targets", () => {
    const book = new RoutingStatsBook();
    for (let i = 0; i < 3; i++) {
      book.settled("p/x@c1", "c1", { ok: true, ttfbMs: 400 }, NOW - i);
      book.settled("p/y@c2", "c2", { ok: true, ttfbMs: 100 }, NOW - i);
    }
    const [slow, fast] = [cand("p/z@c1", 0, { connectionId: "c1" }), cand("p/z@c2", 1, { connectionId: "c2" })];
    expect(latencyErrorPoints(slow, fast, book.view(facts, 10), NOW)).toEqual([5, 0]);
  });
});
