// The idle memory reducer (issue 12): one full collection once a burst is over, never while busy,
// never when the heap has not grown; and the real collector it uses does free a dropped heap.
import { afterEach, describe, expect, it } from "vitest";
import { fullCollector, startMemoryReducer, type MemoryReducer } from "../../../main/app/memoryReducer.js";

const MB = 1024 * 1024;

describe("memory reducer", () => {
  let reducer: MemoryReducer | null = null;
  afterEach(() => reducer?.stop());

  /**
   * A process the reducer watches, started with a 40 MB heap: the test sets its load and heap, and a
   * collection counts itself and leaves a 50 MB heap.
   */
  function watch(quietIntervals: number, busy: number) {
    const p = { busy, heap: { total: 40 * MB, used: 20 * MB }, collected: 0 };
    reducer = startMemoryReducer({
      everyMs: 60_000,
      quietBelow: 0.25,
      quietIntervals,
      growthBytes: 24 * MB,
      heapBytes: () => p.heap,
      utilisation: () => p.busy,
      collect: () => {
        p.collected++;
        p.heap = { total: 50 * MB, used: 22 * MB };
      },
    });
    return { p, reducer };
  }

  it("R15 collects when the process has stayed quiet and its heap grew past the threshold, and only then", () => {
    const { p, reducer } = watch(2, 0.9);
    p.heap = { total: 120 * MB, used: 90 * MB };
    expect(reducer.check()).toBe(false); // a burst is still running
    p.busy = 0.05;
    expect(reducer.check()).toBe(false); // one quiet interval: a gap between bursts
    p.busy = 0.5;
    expect(reducer.check()).toBe(false);
    p.busy = 0.05;
    expect(reducer.check()).toBe(false);
    expect(p.collected).toBe(0);
    expect(reducer.check()).toBe(true); // quiet twice in a row
    expect(p.collected).toBe(1);
    expect(reducer.check()).toBe(true); // the follow-up that gives the young generation back
    expect(p.collected).toBe(2);
    expect(reducer.check()).toBe(false); // nothing grew since
    p.heap = { total: 60 * MB, used: 30 * MB };
    expect(reducer.check()).toBe(false); // grew, but less than the threshold
    p.heap = { total: 80 * MB, used: 40 * MB };
    expect(reducer.check()).toBe(true);
    expect(p.collected).toBe(3);
  });

  it("R15 the follow-up collection is skipped when the process is busy again by then", () => {
    const { p, reducer } = watch(1, 0.05);
    p.heap = { total: 120 * MB, used: 90 * MB };
    expect(reducer.check()).toBe(true);
    p.busy = 0.9;
    expect(reducer.check()).toBe(false); // a new burst: no follow-up
    p.busy = 0.05;
    expect(reducer.check()).toBe(false); // and none later, since nothing grew
    expect(p.collected).toBe(1);
  });

  it("R15 without a collector it never collects", () => {
    let total = 20 * MB;
    reducer = startMemoryReducer({ everyMs: 60_000, quietIntervals: 1, heapBytes: () => ({ total, used: 10 * MB }), utilisation: () => 0, collect: null });
    total = 500 * MB;
    expect(reducer.check()).toBe(false);
  });

  it("R15 the collector is V8's full collection, obtained without --expose-gc", () => {
    const gc = fullCollector();
    expect(typeof gc).toBe("function");
    let junk: Array<{ n: number; s: string }> | null = Array.from({ length: 300_000 }, (_, n) => ({ n, s: `item ${n}` }));
    const held = process.memoryUsage().heapUsed;
    expect(junk.length).toBe(300_000);
    junk = null;
    gc!();
    expect(process.memoryUsage().heapUsed).toBeLessThan(held - 10 * MB);
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  });
});
