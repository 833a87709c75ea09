// Usage reports (R18.2) from the rollups the request log's batch writer keeps (requestLogWrites.js):
// a query reads a few rows per bucket and group, never the log itself. Every read first waits
// until what was appended before it is committed, so a report includes the request just answered.
import type Database from "better-sqlite3";
import type { UsageBucket, UsageCounts, UsageGroupBy, UsageReport } from "../../shared/apiTypes.js";
import { addCounts, emptyCounts } from "../../shared/usageCounts.js";

/** The rollup dimension each grouping reads (requestLogWrites.js writes one row set per dimension). */
const GROUP_DIM: Record<UsageGroupBy, string> = {
  provider: "provider",
  connection: "connection",
  model: "model",
  client: "client",
  key: "key",
  trafficClass: "trafficClass",
};

/** What an unknown dimension ('' in the rollups: no provider answered, no key presented) is called. */
export const UNKNOWN_GROUP = "(none)";
/** R20.3: a row without a class was written before classes were kept; "(none)" would read as a class of its own. */
export const UNKNOWN_TRAFFIC_CLASS = "unknown";

const COUNTS = `requests, input_tokens AS inputTokens, output_tokens AS outputTokens, cache_read_tokens AS cacheReadTokens,
  cache_write_tokens AS cacheWriteTokens, reasoning_tokens AS reasoningTokens, cost_usd AS costUsd`;

const BUCKET_MS: Record<UsageBucket, number> = { hour: 3_600_000, day: 86_400_000 };

interface SumRow extends UsageCounts {
  t: number;
  key: string;
}

export interface UsageReportQuery {
  from: number;
  to: number;
  groupBy: UsageGroupBy;
  bucket: UsageBucket;
}

export interface UsageRepo {
  report(query: UsageReportQuery): UsageReport;
  /** A key's or connection's tokens and cost since `since` (a budget period's start, a day boundary). */
  usedSince(scope: "key" | "connection", id: string, since: number): { costUsd: number; tokens: number };
}

export function createUsageRepo(db: Database.Database, settle: () => void): UsageRepo {
  // One row per bucket and value: the primary key (bucket, dim, t, value) serves the range in order.
  const select = db.prepare<[string, string, number, number], SumRow>(
    `SELECT t, value AS key, ${COUNTS} FROM usage_rollup WHERE bucket = ? AND dim = ? AND t >= ? AND t < ? ORDER BY t, value`,
  );
  // Budget periods start on UTC day boundaries, so the day buckets add up to them exactly.
  const used = db.prepare<[string, number, string], { cost: number | null; tokens: number | null }>(
    "SELECT SUM(cost_usd) AS cost, SUM(input_tokens + output_tokens) AS tokens FROM usage_rollup WHERE bucket = 'day' AND dim = ? AND t >= ? AND value = ?",
  );

  return {
    report({ from, to, groupBy, bucket }) {
      settle();
      const size = BUCKET_MS[bucket];
      const rows = select.all(bucket, GROUP_DIM[groupBy], Math.floor(from / size) * size, to);
      const series = new Map<string, UsageReport["series"][number]>();
      const totals = emptyCounts();
      const unknown = groupBy === "trafficClass" ? UNKNOWN_TRAFFIC_CLASS : UNKNOWN_GROUP;
      for (const { t, key, ...counts } of rows) {
        const name = key === "" ? unknown : key;
        let s = series.get(name);
        if (!s) series.set(name, (s = { key: name, points: [] }));
        s.points.push({ t, ...counts });
        addCounts(totals, counts);
      }
      return { from, to, bucket, groupBy, series: [...series.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)), totals };
    },
    usedSince(scope, id, since) {
      settle();
      const row = used.get(scope, since, id);
      return { costUsd: row?.cost ?? 0, tokens: row?.tokens ?? 0 };
    },
  };
}
