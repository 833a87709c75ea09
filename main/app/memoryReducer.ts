// A tray app lives for days, and a burst of traffic leaves its heap as large as the burst made it:
// V8 collects the garbage of a long burst (objects that outlived a few scavenges) only when the old
// generation next fills, which a quiet process may never do (issue 12: RSS after the bench's load).
// When the process has stayed quiet for a while and its heap is well above its size after the last
// full collection, one full collection gives the burst's pages back. It never runs while busy (a
// full collection pauses the event loop for some milliseconds), nor in the short gaps of bursty
// traffic: a heap shrunk there would only have to grow again (measured: 10–15 % more CPU per large
// request when it collected after every 2 s gap).
import { performance, type EventLoopUtilization } from "node:perf_hooks";
import v8 from "node:v8";
import vm from "node:vm";

export interface MemoryReducerOptions {
  /** How often the process is looked at. */
  everyMs?: number;
  /** Quiet: the event loop was busy less than this share of an interval. */
  quietBelow?: number;
  /** How many quiet intervals in a row make the process idle. */
  quietIntervals?: number;
  /** Worth it: the heap has grown this much beyond its size after the last full collection. */
  growthBytes?: number;
  /** Seams for tests; the defaults are node's own. */
  heapBytes?: () => { total: number; used: number };
  utilisation?: () => number;
  collect?: (() => void) | null;
}

export interface MemoryReducer {
  /** One look: collects when quiet and grown; true when it collected. */
  check(): boolean;
  stop(): void;
}

/** The full-collection function, without starting node with --expose-gc (null if V8 refuses). */
export function fullCollector(): (() => void) | null {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === "function") return exposed;
  try {
    // The flag applies to contexts created after it: a fresh context hands over its `gc`, and the
    // application's own global stays without one.
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as unknown;
    return typeof gc === "function" ? () => void gc() : null;
  } catch {
    return null;
  }
}

function loopUtilisation(): () => number {
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const share = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    return share;
  };
}

const heapOfProcess = () => {
  const s = v8.getHeapStatistics();
  return { total: s.total_heap_size, used: s.used_heap_size };
};

export function startMemoryReducer(options: MemoryReducerOptions = {}): MemoryReducer {
  const everyMs = options.everyMs ?? 5_000;
  const quietBelow = options.quietBelow ?? 0.25;
  const quietIntervals = options.quietIntervals ?? 3;
  const growthBytes = options.growthBytes ?? 24 * 1024 * 1024;
  const heap = options.heapBytes ?? heapOfProcess;
  const utilisation = options.utilisation ?? loopUtilisation();
  const collect = options.collect === undefined ? fullCollector() : options.collect;
  // The heap's size after the last full collection (or at start): what growth is measured from.
  let baseline = heap().total;
  let quietInARow = 0;
  // V8 keeps the young generation as large as the burst made it (up to 32 MB committed) and shrinks
  // it only at a collection made once its allocation rate has been low for some seconds: the first
  // collection, right after a burst, frees the old generation; one more on the next quiet look gives
  // the young generation back (measured: 125 → 93 MB RSS after a json load).
  let followUp = false;

  const collectNow = (): boolean => {
    collect!();
    baseline = heap().total;
    return true;
  };

  const check = (): boolean => {
    const quiet = utilisation() < quietBelow;
    quietInARow = quiet ? quietInARow + 1 : 0;
    if (!collect) return false;
    if (followUp) {
      followUp = false;
      // Busy again: the young generation is in use, and shrinking it would only make it grow back.
      if (quiet) return collectNow();
    }
    if (quietInARow < quietIntervals) return false;
    if (heap().total - baseline < growthBytes) return false;
    followUp = true;
    return collectNow();
  };
  const timer = setInterval(check, everyMs);
  timer.unref();
  return { check, stop: () => clearInterval(timer) };
}
