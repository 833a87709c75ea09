// Usage reports (R18.2) from the rollups the request log's batch writer keeps (requestLogWrites.js):
// a query reads a few rows per bucket and group, never the log itself. Every read first waits
// until what was appended before it is committed, so a report includes the request just answered.
import type Database from "better-sqlite3";
import type { UsageBucket, UsageCounts, UsageGroupBy, UsageReport } from "../../shared/apiTypes.js";

/** The rollup column each grouping reads: a fixed table, never text from the query. */
const GROUP_COLUMN: Record<UsageGroupBy, string> = {
  provider: "provider", connection: "connection_id", model: "model", client: "client_kind", key: "api_key_id",
};

/** What an unknown dimension ('' in the rollups: no provider answered, no key presented) is called. */
export const UNKNOWN_GROUP = "(none)";

const SUMS = `SUM(requests) AS requests, SUM(input_tokens) AS inputTokens, SUM(output_tokens) AS outputTokens,
  SUM(cache_read_tokens) AS cacheReadTokens, SUM(cache_write_tokens) AS cacheWriteTokens,
  SUM(reasoning_tokens) AS reasoningTokens, SUM(cost_usd) AS costUsd`;

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

function emptyCounts(): UsageCounts {
  return { requests: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, costUsd: 0 };
}

function addTo(total: UsageCounts, row: UsageCounts): void {
  total.requests += row.requests;
  total.inputTokens += row.inputTokens;
  total.outputTokens += row.outputTokens;
  total.cacheReadTokens += row.cacheReadTokens;
  total.cacheWriteTokens += row.cacheWriteTokens;
  total.reasoningTokens += row.reasoningTokens;
  total.costUsd += row.costUsd;
}

export function createUsageRepo(db: Database.Database, settle: () => void): UsageRepo {
  const byGroup = new Map(
    Object.entries(GROUP_COLUMN).map(([groupBy, column]) => [
      groupBy,
      db.prepare<[string, number, number], SumRow>(
        `SELECT t, ${column} AS key, ${SUMS} FROM usage_rollup WHERE bucket = ? AND t >= ? AND t < ? GROUP BY t, ${column} ORDER BY ${column}, t`,
      ),
    ]),
  );
  // Budget periods start on UTC day boundaries, so the day buckets add up to them exactly.
  const usedBy = {
    key: db.prepare<[number, string], { cost: number | null; tokens: number | null }>(
      "SELECT SUM(cost_usd) AS cost, SUM(input_tokens + output_tokens) AS tokens FROM usage_rollup WHERE bucket = 'day' AND t >= ? AND api_key_id = ?",
    ),
    connection: db.prepare<[number, string], { cost: number | null; tokens: number | null }>(
      "SELECT SUM(cost_usd) AS cost, SUM(input_tokens + output_tokens) AS tokens FROM usage_rollup WHERE bucket = 'day' AND t >= ? AND connection_id = ?",
    ),
  };

  return {
    report({ from, to, groupBy, bucket }) {
      settle();
      const size = BUCKET_MS[bucket];
      const rows = byGroup.get(groupBy)!.all(bucket, Math.floor(from / size) * size, to);
      const series = new Map<string, UsageReport["series"][number]>();
      const totals = emptyCounts();
      for (const { t, key, ...counts } of rows) {
        const name = key === "" ? UNKNOWN_GROUP : key;
        let s = series.get(name);
        if (!s) series.set(name, (s = { key: name, points: [] }));
        s.points.push({ t, ...counts });
        addTo(totals, counts);
      }
      return { from, to, bucket, groupBy, series: [...series.values()], totals };
    },
    usedSince(scope, id, since) {
      settle();
      const row = usedBy[scope].get(since, id);
      return { costUsd: row?.cost ?? 0, tokens: row?.tokens ?? 0 };
    },
  };
}
