// GET /api/monitoring/stats (R14.2, R15.1): requests, errors and mean latency per provider in
// time buckets, aggregated by the store over the whole request log. The Health charts used to
// bucket the newest 1 000 log entries in the renderer, which undercounted a busy gateway.
import type { RequestStats, RequestStatsBucket } from "../../shared/apiTypes.js";
import { NO_PROVIDER, type RequestStatsQuery } from "../../shared/schemas/monitoring.js";
import type { HandlersFor } from "./handlerTypes.js";
import type { StorePorts } from "./ports.js";
import type { Clock } from "../engine/ports.js";
import type { RequestStatsRow } from "../store/types.js";

/** The bucket bounds of a window ending at `now`, aligned to multiples of bucketMs. */
export function statsWindow(query: RequestStatsQuery, now: number): { since: number; end: number; count: number } {
  const count = query.windowMs / query.bucketMs;
  // Aligned buckets keep their bounds from one answer to the next, so a chart can slide its
  // window locally as time passes instead of refetching.
  const currentStart = Math.floor(now / query.bucketMs) * query.bucketMs;
  return { since: currentStart - (count - 1) * query.bucketMs, end: currentStart + query.bucketMs, count };
}

/** Spreads the store's sparse rows into one dense, oldest-first series per provider. */
export function toRequestStats(rows: readonly RequestStatsRow[], query: RequestStatsQuery, now: number): RequestStats {
  const { since, count } = statsWindow(query, now);
  const byProvider = new Map<string, RequestStatsBucket[]>();
  for (const row of rows) {
    const index = Math.round((row.bucketStart - since) / query.bucketMs);
    if (index < 0 || index >= count) continue;
    const provider = row.provider ?? NO_PROVIDER;
    let buckets = byProvider.get(provider);
    if (!buckets) {
      buckets = Array.from({ length: count }, (_, i) => ({ start: since + i * query.bucketMs, requests: 0, errors: 0, latencyMsSum: 0, meanLatencyMs: null }));
      byProvider.set(provider, buckets);
    }
    const bucket = buckets[index];
    bucket.requests += row.requests;
    bucket.errors += row.errors;
    bucket.latencyMsSum += row.latencyMsSum;
    bucket.meanLatencyMs = Math.round(bucket.latencyMsSum / bucket.requests);
  }
  const providers = [...byProvider.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([provider, buckets]) => ({ provider, buckets }));
  return { windowMs: query.windowMs, bucketMs: query.bucketMs, since, until: now, providers };
}

export function createMonitoringHandlers(deps: { store: StorePorts<"logs">; clock: Clock }): HandlersFor<"requestStats"> {
  const { store, clock } = deps;
  return {
    requestStats: (query) => {
      // The engine clock, like every other "now" the management API answers with (--test-clock moves it).
      const now = clock.now();
      const { since, end } = statsWindow(query, now);
      return toRequestStats(store.logs.stats({ since, bucketMs: query.bucketMs, until: end }), query, now);
    },
  };
}
