// Per-provider request, error and latency series over the last hour, computed in the page from
// the request log (R14.2 Health charts). Pure, so the bucketing is unit-tested.
import type { RequestLogEntry } from "../../../../shared/types.js";

export const WINDOW_MS = 3_600_000;
export const BUCKET_MS = 300_000;

export interface ProviderSeries {
  provider: string;
  requests: number[];
  errors: number[];
  /** Mean latency per bucket in ms; null where the bucket had no request. */
  latency: Array<number | null>;
}

/** Which provider a request counts for: the one that answered, else the last one tried, else its address. */
export function providerOfEntry(entry: RequestLogEntry): string {
  if (entry.provider) return entry.provider;
  const last = entry.attempts[entry.attempts.length - 1];
  if (last?.provider) return last.provider;
  const slash = entry.model.indexOf("/");
  return slash > 0 ? entry.model.slice(0, slash) : "unrouted";
}

/**
 * Buckets the entries of the hour ending at `end` (oldest bucket first). `end` is the later of
 * now and the newest entry: the engine clock may run ahead of this machine's (the test clock).
 */
export function providerSeries(entries: readonly RequestLogEntry[], now: number, windowMs = WINDOW_MS, bucketMs = BUCKET_MS): { end: number; series: ProviderSeries[] } {
  const end = Math.max(now, ...entries.map((e) => e.time));
  const start = end - windowMs;
  const count = Math.ceil(windowMs / bucketMs);
  const byProvider = new Map<string, { requests: number[]; errors: number[]; latencySum: number[] }>();
  for (const entry of entries) {
    if (entry.time <= start || entry.time > end) continue;
    const index = Math.min(count - 1, Math.floor((entry.time - start - 1) / bucketMs));
    const key = providerOfEntry(entry);
    let row = byProvider.get(key);
    if (!row) {
      row = { requests: new Array(count).fill(0), errors: new Array(count).fill(0), latencySum: new Array(count).fill(0) };
      byProvider.set(key, row);
    }
    row.requests[index]! += 1;
    if (entry.status >= 400) row.errors[index]! += 1;
    row.latencySum[index]! += entry.latencyMs;
  }
  const series = [...byProvider.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([provider, row]) => ({
      provider,
      requests: row.requests,
      errors: row.errors,
      latency: row.requests.map((n, i) => (n === 0 ? null : Math.round(row.latencySum[i]! / n))),
    }));
  return { end, series };
}

/** A round axis maximum at or above `max` (1, 2, 5 × 10^n), at least 1. */
export function niceMax(max: number): number {
  if (max <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}
