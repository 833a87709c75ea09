// The idle memory reducer (issue 12): one full collection once a burst is over, never while busy,
// never when the heap has not grown; and the real collector it uses does free a dropped heap.
import { afterEach, describe, expect, it } from "vitest";
import { fullCollector, startMemoryReducer, type MemoryReducer } from "../../../main/app/memoryReducer.js";

const MB = 1024 * 1024;

describe("memory reducer", () => {
  let reducer: MemoryReducer | null = null;
  afterEach(() => reducer?.stop());

  it("R15 collects when the process has stayed quiet and its heap grew past the threshold, and only then", () => {
    let busy = 0.9;
    let heap = { total: 40 * MB, used: 20 * MB };
    let collected = 0;
    reducer = startMemoryReducer({
      everyMs: 60_000, quietBelow: 0.25, quietIntervals: 2, growthBytes: 24 * MB,
      heapBytes: () => heap, utilisation: () => busy,
      collect: () => {
        collected++;
        heap = { total: 50 * MB, used: 22 * MB };
      },
    });
    heap = { total: 120 * MB, used: 90 * MB };
    expect(reducer.check()).toBe(false); // a burst is still running
    busy = 0.05;
    expect(reducer.check()).toBe(false); // one quiet interval: a gap between bursts
    busy = 0.5;
    expect(reducer.check()).toBe(false);
    busy = 0.05;
    expect(reducer.check()).toBe(false);
    expect(collected).toBe(0);
    expect(reducer.check()).toBe(true); // quiet twice in a row
    expect(collected).toBe(1);
    expect(reducer.check()).toBe(true); // the follow-up that gives the young generation back
    expect(collected).toBe(2);
    expect(reducer.check()).toBe(false); // nothing grew since
    heap = { total: 60 * MB, used: 30 * MB };
    expect(reducer.check()).toBe(false); // grew, but less than the threshold
    heap = { total: 80 * MB, used: 40 * MB };
    expect(reducer.check()).toBe(true);
    expect(collected).toBe(3);
  });

  it("R15 the follow-up collection is skipped when the process is busy again by then", () => {
    let busy = 0.05;
    let heap = { total: 40 * MB, used: 20 * MB };
    let collected = 0;
    reducer = startMemoryReducer({
      everyMs: 60_000, quietBelow: 0.25, quietIntervals: 1, growthBytes: 24 * MB,
      heapBytes: () => heap, utilisation: () => busy,
      collect: () => {
        collected++;
        heap = { total: 50 * MB, used: 22 * MB };
      },
    });
    heap = { total: 120 * MB, used: 90 * MB };
    expect(reducer.check()).toBe(true);
    busy = 0.9;
    expect(reducer.check()).toBe(false); // a new burst: no follow-up
    busy = 0.05;
    expect(reducer.check()).toBe(false); // and none later, since nothing grew
    expect(collected).toBe(1);
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
