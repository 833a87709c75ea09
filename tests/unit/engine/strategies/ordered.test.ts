// Strategies whose order follows from metadata or counters alone (no randomness).
import { describe, expect, it } from "vitest";
import { order as contextOptimized } from "../../../../main/engine/strategies/context-optimized.js";
import { order as costOptimized } from "../../../../main/engine/strategies/cost-optimized.js";
import { order as fillFirstOrder } from "../../../../main/engine/strategies/fill-first.js";
import { order as leastUsed } from "../../../../main/engine/strategies/least-used.js";
import { order as lkgp } from "../../../../main/engine/strategies/lkgp.js";
import { order as pipeline } from "../../../../main/engine/strategies/pipeline.js";
import { order as priority } from "../../../../main/engine/strategies/priority.js";
import { order as roundRobin } from "../../../../main/engine/strategies/round-robin.js";
import { createStrategyState } from "../../../../main/engine/strategies/types.js";
import { cand, keys, leads, NOW, seeded, statsView, targets } from "./fixtures.js";

describe("ordering strategies (R11.1, D11)", () => {
  it("R11.1 D11 priority: every one of 1 000 requests gets the combo order, whatever the input order", () => {
    const shuffled = [cand("c", 2), cand("a", 0), cand("b", 1)];
    const orders = new Set(Array.from({ length: 1_000 }, () => keys(priority(shuffled)).join(",")));
    expect([...orders]).toEqual(["a,b,c"]);
  });

  it("R11.1 D11 round-robin: a, b, c, a, b, c …, each order continuing around the ring", () => {
    const state = createStrategyState();
    const abc = targets("a", "b", "c");
    expect(leads(roundRobin, abc, 7, { state })).toEqual(["a", "b", "c", "a", "b", "c", "a"]);
    expect(keys(roundRobin(abc, statsView(), NOW, seeded(1), state))).toEqual(["b", "c", "a"]);
    const counts = leads(roundRobin, abc, 9_999).reduce<Record<string, number>>((m, k) => ({ ...m, [k]: (m[k] ?? 0) + 1 }), {});
    expect(counts).toEqual({ a: 3_333, b: 3_333, c: 3_333 });
  });

  it("R11.1 D11 least-used: fewest requests first, ties in combo order", () => {
    const stats = statsView({ candidates: { a: { requests: 5 }, b: { requests: 2 }, c: { requests: 2 } } });
    expect(keys(leastUsed(targets("a", "b", "c", "d"), stats))).toEqual(["d", "b", "c", "a"]);
  });

  it("R11.1 D11 least-used: with counts updated per dispatch, 9 000 requests split 3 000 each", () => {
    const abc = targets("a", "b", "c");
    const counts: Record<string, { requests: number }> = { a: { requests: 0 }, b: { requests: 0 }, c: { requests: 0 } };
    for (let i = 0; i < 9_000; i++) counts[leastUsed(abc, statsView({ candidates: counts }))[0].key].requests++;
    expect(counts).toEqual({ a: { requests: 3_000 }, b: { requests: 3_000 }, c: { requests: 3_000 } });
  });

  it("R11.1 D11 cost-optimized: cheapest input price first, output price breaks ties, unpriced last in combo order", () => {
    const list = [
      cand("unpriced-1", 0),
      cand("dear", 1, { inputPricePerMTok: 15, outputPricePerMTok: 75 }),
      cand("cheap-out-dear", 2, { inputPricePerMTok: 0.5, outputPricePerMTok: 8 }),
      cand("cheap-out-cheap", 3, { inputPricePerMTok: 0.5, outputPricePerMTok: 2 }),
      cand("unpriced-2", 4),
    ];
    expect(keys(costOptimized(list))).toEqual(["cheap-out-cheap", "cheap-out-dear", "dear", "unpriced-1", "unpriced-2"]);
  });

  it("R11.1 D11 context-optimized: largest context window first, unknown windows last in combo order", () => {
    const list = [cand("x", 0), cand("small", 1, { contextWindow: 32_000 }), cand("big", 2, { contextWindow: 1_000_000 }), cand("y", 3)];
    expect(keys(contextOptimized(list))).toEqual(["big", "small", "x", "y"]);
  });

  it("R11.1 D11 lkgp: the last success leads, the rest in combo order; before any success it is priority", () => {
    const abc = targets("a", "b", "c");
    expect(keys(lkgp(abc, statsView()))).toEqual(["a", "b", "c"]);
    const stats = statsView({ candidates: { a: { lastSuccessAt: NOW - 60_000 }, c: { lastSuccessAt: NOW - 1_000 }, b: { lastFailureAt: NOW } } });
    expect(keys(lkgp(abc, stats))).toEqual(["c", "a", "b"]);
  });

  it("R11.1 D11 fill-first: stays on the first target until its quota is exhausted, then the next; back after reset", () => {
    const first = cand("first", 0, { quota: { remaining: 3, limit: 100, resetAt: NOW + 60_000 } });
    const list = [first, cand("second", 1)];
    expect(leads(fillFirstOrder, list, 100)).toEqual(Array(100).fill("first"));
    const exhausted = [{ ...first, quota: { remaining: 0, limit: 100, resetAt: NOW + 60_000 } }, cand("second", 1)];
    expect(keys(fillFirstOrder(exhausted, statsView(), NOW))).toEqual(["second", "first"]);
    expect(keys(fillFirstOrder(exhausted, statsView(), NOW + 60_000))).toEqual(["first", "second"]);
  });

  it("R11.1 pipeline: fewest in flight first, so three concurrent requests land on three targets", () => {
    const abc = targets("a", "b", "c");
    const inFlight: Record<string, { inFlight: number }> = { a: { inFlight: 0 }, b: { inFlight: 0 }, c: { inFlight: 0 } };
    const firsts: string[] = [];
    for (let i = 0; i < 3; i++) {
      const lead = pipeline(abc, statsView({ candidates: inFlight }))[0].key;
      firsts.push(lead);
      inFlight[lead].inFlight++;
    }
    expect(firsts).toEqual(["a", "b", "c"]);
    expect(keys(pipeline(abc, statsView()))).toEqual(["a", "b", "c"]);
  });
});
