// The Usage page's numbers (R18.6) and the budget editor's body (R18.4): buckets filled across
// the range, series merged past eight, today's / 7 days' / 30 days' totals, cache-hit ratio,
// quota shares and the words the page and the tray use.
import { describe, expect, it } from "vitest";
import type { UsagePoint, UsageReport } from "../../../shared/apiTypes.js";
import { cacheHitRatio, formatCompact, formatPercent, formatUsd, nearestQuota, quotaUsedPercent } from "../../../shared/usageText.js";
import { niceTicks, timeTicks } from "../../../renderer/src/components/chartScale.js";
import { budgetFromDraft, budgetLimitText, budgetPercent, budgetUseText, draftFromBudget } from "../../../renderer/src/budget.js";
import { chartData, costSummary, HOUR_MS, MAX_SERIES, OTHERS, seriesLabeler, startOfDay, tokensSummary, windowTotals } from "../../../renderer/src/pages/usage/usageData.js";

function point(t: number, over: Partial<UsagePoint> = {}): UsagePoint {
  return { t, requests: 1, inputTokens: 100, outputTokens: 50, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, costUsd: 0.01, ...over };
}

function report(series: UsageReport["series"], over: Partial<UsageReport> = {}): UsageReport {
  const totals = { requests: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, costUsd: 0 };
  for (const s of series) for (const p of s.points) for (const k of Object.keys(totals) as Array<keyof typeof totals>) totals[k] += p[k];
  return { from: 10 * HOUR_MS + 1_000, to: 13 * HOUR_MS + 5_000, bucket: "hour", groupBy: "provider", series, totals, ...over };
}

describe("usage charts", () => {
  it("R18.6 every bucket of the range is a row (quiet hours are zeros) with tokens and cost per series", () => {
    const data = chartData(
      report([
        { key: "sim", points: [point(11 * HOUR_MS), point(13 * HOUR_MS, { inputTokens: 10, outputTokens: 5, costUsd: 0.5 })] },
        { key: "b", points: [point(10 * HOUR_MS, { inputTokens: 1_000 })] },
      ]),
    );
    expect(data.keys).toEqual(["b", "sim"]);
    expect(data.tokens.map((r) => r.t)).toEqual([10, 11, 12, 13].map((h) => h * HOUR_MS));
    expect(data.tokens.map((r) => r.sim)).toEqual([0, 150, 0, 15]);
    expect(data.cost.map((r) => r.sim)).toEqual([0, 0.01, 0, 0.5]);
    expect(tokensSummary(data, (k) => k)).toBe("b 1,050 tokens, sim 165 tokens");
    expect(costSummary(data, (k) => k.toUpperCase())).toBe("B $0.01, SIM $0.51");
  });

  it("R18.6 past eight series the smallest are added up as 'others'", () => {
    const series = Array.from({ length: 10 }, (_, i) => ({ key: `p${i}`, points: [point(11 * HOUR_MS, { inputTokens: (i + 1) * 100 })] }));
    const data = chartData(report(series));
    expect(data.keys).toHaveLength(MAX_SERIES);
    expect(data.keys.slice(0, 2)).toEqual(["p9", "p8"]);
    expect(data.keys.at(-1)).toBe(OTHERS);
    expect(data.totals.get(OTHERS)!.inputTokens).toBe(100 + 200 + 300);
    expect(data.tokens[1][OTHERS]).toBe(600 + 150);
    expect(chartData(report([])).keys).toEqual([]);
  });

  it("R18.6 today (since local midnight), the last 7 days and the last 30 days from one hourly report", () => {
    const now = new Date(2030, 4, 20, 15, 30).getTime();
    const midnight = startOfDay(now);
    const hourly = report([
      { key: "sim", points: [point(midnight - 3 * 86_400_000), point(midnight + HOUR_MS, { cacheReadTokens: 25 }), point(midnight - 20 * 86_400_000)] },
      { key: "b", points: [point(midnight + 2 * HOUR_MS, { costUsd: 1 })] },
    ]);
    const totals = windowTotals(hourly, now);
    expect(totals.today).toMatchObject({ requests: 2, inputTokens: 200, cacheReadTokens: 25, costUsd: 1.01 });
    expect(totals.week.requests).toBe(3);
    expect(totals.month.requests).toBe(4);
    expect(formatPercent(cacheHitRatio(totals.today))).toBe("13 %");
    expect(cacheHitRatio({ inputTokens: 0, cacheReadTokens: 0 })).toBeNull();
  });

  it("R18.6 series are named: ids become names, the rollups' (none) is said in words", () => {
    const names = new Map([["c-1", "Work key"]]);
    expect(seriesLabeler("connection", names)("c-1")).toBe("Work key");
    expect(seriesLabeler("connection", names)("c-2")).toBe("c-2");
    expect(seriesLabeler("key", names)("(none)")).toBe("no key");
    expect(seriesLabeler("client", names)("(none)")).toBe("unknown client");
  });
});

describe("usage words", () => {
  it("R18.6 cost keeps its small digits, counts shorten for the tray and the axes", () => {
    expect([0, 0.0042, 0.0456, 0.42, 12.345, 1_234.5].map(formatUsd)).toEqual(["$0.00", "$0.0042", "$0.0456", "$0.42", "$12.35", "$1,235"]);
    expect([950, 12_345, 4_500_000, 123_456].map(formatCompact)).toEqual(["950", "12.3k", "4.5M", "123k"]);
    expect(formatPercent(0.004)).toBe("0.4 %");
    expect(formatPercent(null)).toBe("—");
  });

  it("R18.3 a quota's share comes from the header, else from remaining of limit; the fullest one is nearest its wall", () => {
    const q = (usedPercent: number | null, remaining: number | null, limit: number | null) => ({ usedPercent, remaining, limit });
    expect(quotaUsedPercent(q(42, null, null))).toBe(42);
    expect(quotaUsedPercent(q(null, 250, 1_000))).toBe(75);
    expect(quotaUsedPercent(q(null, 5, null))).toBeNull();
    expect(nearestQuota([q(10, null, null), q(null, 100, 1_000), q(null, null, null)])).toEqual(q(null, 100, 1_000));
    expect(nearestQuota([q(null, null, null)])).toBeNull();
  });
});

describe("budget editor", () => {
  it("R18.4 none is null; numbers go as typed and empty limits are left out", () => {
    expect(budgetFromDraft({ period: "none", maxCostUsd: "5", maxTokens: "" })).toBeNull();
    expect(budgetFromDraft({ period: "day", maxCostUsd: "5", maxTokens: "" })).toEqual({ period: "day", maxCostUsd: 5 });
    expect(budgetFromDraft({ period: "month", maxCostUsd: " ", maxTokens: "1000" })).toEqual({ period: "month", maxTokens: 1_000 });
    expect(budgetFromDraft({ period: "day", maxCostUsd: "x", maxTokens: "" })?.maxCostUsd).toBeNaN();
    expect(draftFromBudget({ period: "month", maxTokens: 10 })).toEqual({ period: "month", maxCostUsd: "", maxTokens: "10" });
    expect(draftFromBudget(null)).toEqual({ period: "none", maxCostUsd: "", maxTokens: "" });
  });

  it("R18.4 use against the limit: the limit nearest its end counts", () => {
    const budget = { period: "day" as const, maxCostUsd: 2, maxTokens: 1_000 };
    const used = { costUsd: 0.5, tokens: 900, resetAt: 0 };
    expect(budgetPercent(budget, used)).toBe(90);
    expect(budgetPercent(budget, null)).toBe(0);
    expect(budgetUseText(budget, used)).toBe("$0.50 of $2.00 and 900 of 1,000 tokens used today");
    expect(budgetUseText({ period: "month", maxTokens: 5 }, undefined)).toBe("0 of 5 tokens used this month");
    expect(budgetLimitText(budget)).toBe("$2.00 or 1,000 tokens per day");
  });
});

describe("chart axes", () => {
  it("R18.6 the value axis climbs in round steps to at least the peak; counts stay whole", () => {
    expect(niceTicks(0.022)).toEqual([0, 0.01, 0.02, 0.03]);
    expect(niceTicks(9_754, true)).toEqual([0, 2_500, 5_000, 7_500, 10_000]);
    expect(niceTicks(3, true)).toEqual([0, 1, 2, 3]);
    expect(niceTicks(0)).toEqual([0, 1]);
  });

  it("R18.6 time marks fall on round local hours, or on days counted back from the last", () => {
    const start = new Date(2030, 0, 1, 0, 0).getTime();
    const hours = Array.from({ length: 25 }, (_, i) => start + i * HOUR_MS);
    expect(timeTicks(hours, "hour").map((t) => new Date(t).getHours())).toEqual([0, 6, 12, 18, 0]);
    const week = Array.from({ length: 169 }, (_, i) => start + i * HOUR_MS);
    expect(timeTicks(week, "hour").every((t) => new Date(t).getHours() === 0)).toBe(true);
    expect(timeTicks(week, "hour").length).toBeLessThanOrEqual(7);
    const days = Array.from({ length: 31 }, (_, i) => start + i * 86_400_000);
    const marks = timeTicks(days, "day");
    expect(marks.at(-1)).toBe(days.at(-1));
    expect(marks.length).toBeLessThanOrEqual(7);
    expect(timeTicks(days.slice(0, 5), "day")).toEqual(days.slice(0, 5));
  });
});
