// Per-provider request, error and latency series for the Health charts (R14.2), read from
// GET /api/monitoring/stats, which the backend aggregates over the whole request log. Pure, so
// the sliding of the window is unit-tested.
import type { RequestStats } from "../../../../shared/apiTypes.js";

export interface ProviderSeries {
  provider: string;
  requests: number[];
  errors: number[];
  /** Mean latency per bucket in ms; null where the bucket had no request. */
  latency: Array<number | null>;
}

/**
 * The series as of `elapsedMs` (local time) after the stats were computed. The backend aligns
 * buckets to multiples of bucketMs, so once a boundary has passed the window slides by whole
 * buckets here: the oldest fall out and empty ones come in, which is exact because a request in
 * between would have reloaded the stats. Providers left without any request are dropped.
 */
export function seriesFromStats(stats: RequestStats, elapsedMs: number): ProviderSeries[] {
  const { bucketMs } = stats;
  const count = Math.max(1, Math.round(stats.windowMs / bucketMs));
  const now = stats.until + Math.max(0, elapsedMs);
  const since = Math.floor(now / bucketMs) * bucketMs - (count - 1) * bucketMs;
  const series: ProviderSeries[] = [];
  for (const { provider, buckets } of stats.providers) {
    const requests = new Array<number>(count).fill(0);
    const errors = new Array<number>(count).fill(0);
    const latency = new Array<number | null>(count).fill(null);
    for (const bucket of buckets) {
      const index = Math.round((bucket.start - since) / bucketMs);
      if (index < 0 || index >= count) continue;
      requests[index] = bucket.requests;
      errors[index] = bucket.errors;
      latency[index] = bucket.meanLatencyMs;
    }
    if (requests.some((n) => n > 0)) series.push({ provider, requests, errors, latency });
  }
  return series;
}

/** A round axis maximum at or above `max` (1, 2, 5 × 10^n), at least 1. */
export function niceMax(max: number): number {
  if (max <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}
