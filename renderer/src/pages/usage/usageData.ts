// The Usage page's numbers (R18.6) from GET /api/usage reports: the charts' rows with every bucket
// of the range present (a quiet hour is a zero, not a missing point), the totals for today, 7 and
// 30 days, per-series totals, and the figures' text summaries. Pure, so it is unit-tested.
import type { UsageBucket, UsageCounts, UsageGroupBy, UsageReport } from "../../../../shared/apiTypes.js";
import { formatCount, formatUsd } from "../../../../shared/usageText.js";
import { addCounts, emptyCounts } from "../../../../shared/usageCounts.js";

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
const BUCKET_MS: Record<UsageBucket, number> = { hour: HOUR_MS, day: DAY_MS };

/** More lines than this stop being readable: the smallest are added up as one. */
export const MAX_SERIES = 8;
export const OTHERS = "others";

export type ChartRow = Record<string, number>;

export interface UsageChartData {
  /** Series keys, largest first (by tokens), then `others` when some were merged. */
  keys: string[];
  tokens: ChartRow[];
  cost: ChartRow[];
  /** Per key, over the whole range. */
  totals: Map<string, UsageCounts>;
}

export { addCounts, emptyCounts };

/** Prompt and generated tokens (cache reads and reasoning are already inside them). */
export const totalTokens = (c: Pick<UsageCounts, "inputTokens" | "outputTokens">) => c.inputTokens + c.outputTokens;

/** Every bucket start from the one holding `from` to the one holding `to`. */
export function bucketStarts(from: number, to: number, bucket: UsageBucket): number[] {
  const size = BUCKET_MS[bucket];
  const out: number[] = [];
  for (let t = Math.floor(from / size) * size; t <= to; t += size) out.push(t);
  return out;
}

export function chartData(report: UsageReport): UsageChartData {
  const totals = new Map<string, UsageCounts>();
  for (const s of report.series)
    totals.set(
      s.key,
      s.points.reduce((sum, p) => addCounts(sum, p), emptyCounts()),
    );
  const ranked = [...totals.keys()].sort((a, b) => totalTokens(totals.get(b)!) - totalTokens(totals.get(a)!) || a.localeCompare(b));
  const shown = ranked.length > MAX_SERIES ? ranked.slice(0, MAX_SERIES - 1) : ranked;
  const lineOf = (key: string) => (shown.includes(key) ? key : OTHERS);
  const keys = shown.length < ranked.length ? [...shown, OTHERS] : shown;
  if (keys.includes(OTHERS)) {
    const merged = emptyCounts();
    for (const key of ranked.slice(shown.length)) addCounts(merged, totals.get(key)!);
    totals.set(OTHERS, merged);
  }
  const starts = bucketStarts(report.from, report.to, report.bucket);
  const index = new Map(starts.map((t, i) => [t, i]));
  const blank = () => Object.fromEntries(keys.map((k) => [k, 0]));
  const tokens: ChartRow[] = starts.map((t) => ({ t, ...blank() }));
  const cost: ChartRow[] = starts.map((t) => ({ t, ...blank() }));
  for (const s of report.series) {
    const line = lineOf(s.key);
    for (const p of s.points) {
      const i = index.get(p.t);
      if (i === undefined) continue;
      tokens[i][line] += totalTokens(p);
      cost[i][line] += p.costUsd;
    }
  }
  return { keys, tokens, cost, totals };
}

export interface WindowTotals {
  today: UsageCounts;
  week: UsageCounts;
  month: UsageCounts;
}

/** Local midnight of the day `now` falls in (the viewer's "today"). */
export function startOfDay(now: number): number {
  const d = new Date(now);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

/** From an hourly report of the last 30 days: what today, the last 7 days and all 30 add up to. */
export function windowTotals(hourly: UsageReport, now: number): WindowTotals {
  const todayFrom = startOfDay(now);
  const weekFrom = Math.floor((now - 7 * DAY_MS) / HOUR_MS) * HOUR_MS;
  const today = emptyCounts();
  const week = emptyCounts();
  for (const s of hourly.series) {
    for (const p of s.points) {
      if (p.t >= todayFrom) addCounts(today, p);
      if (p.t >= weekFrom) addCounts(week, p);
    }
  }
  return { today, week, month: { ...hourly.totals } };
}

/** "sim 1,234 tokens, sim-b 56 tokens" — what a figure shows, for those who cannot see it. */
export function tokensSummary(data: UsageChartData, label: (key: string) => string): string {
  if (data.keys.length === 0) return "no usage in this range";
  return data.keys.map((k) => `${label(k)} ${formatCount(totalTokens(data.totals.get(k)!))} tokens`).join(", ");
}

export function costSummary(data: UsageChartData, label: (key: string) => string): string {
  if (data.keys.length === 0) return "no usage in this range";
  return data.keys.map((k) => `${label(k)} ${formatUsd(data.totals.get(k)!.costUsd)}`).join(", ");
}

export const GROUP_LABELS: Record<UsageGroupBy, string> = {
  provider: "Provider",
  connection: "Connection",
  model: "Model",
  client: "Client",
  key: "API key",
  trafficClass: "Traffic class", // R20.3
};

/** Names for ids (connections, keys); the rollups' "(none)" said in words. */
export function seriesLabeler(groupBy: UsageGroupBy, names: ReadonlyMap<string, string>): (key: string) => string {
  return (key) => {
    if (key === "(none)") return groupBy === "key" ? "no key" : groupBy === "client" ? "unknown client" : "none";
    if (key === OTHERS) return OTHERS;
    return names.get(key) ?? key;
  };
}
