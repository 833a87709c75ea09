// R13.5 throughput watchdog: after a warm-up and one full rolling window, an attempt whose useful
// output (UTF-8 bytes of text deltas) falls below the minimum rate is aborted. Tool-call and
// reasoning activity suspend it (the window restarts), and usage-only or empty events count zero.

export interface ThroughputSettings {
  enabled: boolean;
  warmupMs: number;
  windowMs: number;
  minBytesPerSec: number;
  /** Below this much output in the window there is nothing to measure (the stall watchdog's job). */
  minBytes: number;
}

export interface ThroughputWatchdog {
  record(now: number, bytes: number): void;
  suspend(now: number): void;
  tooSlow(now: number): boolean;
  /** When the next verdict can change (a timer wakes the relay then). */
  nextCheckAt(now: number): number;
}

export function createThroughputWatchdog(settings: ThroughputSettings, startedAt: number): ThroughputWatchdog {
  const samples: Array<{ at: number; bytes: number }> = [];
  let windowStart = startedAt + settings.warmupMs;
  const prune = (now: number) => {
    while (samples.length && samples[0].at < now - settings.windowMs) samples.shift();
  };
  return {
    record(now, bytes) {
      if (bytes > 0) samples.push({ at: now, bytes });
      prune(now);
    },
    suspend(now) {
      samples.length = 0;
      windowStart = Math.max(windowStart, now);
    },
    tooSlow(now) {
      if (now < windowStart + settings.windowMs) return false;
      prune(now);
      const bytes = samples.reduce((sum, s) => sum + s.bytes, 0);
      if (bytes < settings.minBytes) return false;
      return bytes / (settings.windowMs / 1000) < settings.minBytesPerSec;
    },
    nextCheckAt(now) {
      const earliest = windowStart + settings.windowMs;
      return earliest > now ? earliest : now + Math.max(250, Math.floor(settings.windowMs / 4));
    },
  };
}
