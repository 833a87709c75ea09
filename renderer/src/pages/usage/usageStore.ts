// What the Usage page reads (R18.6), kept fresh by the event stream: the reports (every answered
// request makes them stale, so bursts collapse into one load per interval), the quota windows and
// the keys and connections that carry budgets. Ranges are measured on the server's clock (under
// --test-clock it runs ahead of the browser's): a first small report says what "now" is there.
import { create } from "zustand";
import type { UsageBucket, UsageGroupBy, UsageReport } from "../../../../shared/apiTypes.js";
import type { SwitchyardEvent } from "../../../../shared/types.js";
import { createLiveResource } from "../../stores/liveResource.js";
import { call } from "../../transport.js";
import { DAY_MS } from "./usageData.js";

export type UsageRange = "24h" | "7d" | "30d";

export const RANGES: ReadonlyArray<{ value: UsageRange; label: string; ms: number; bucket: UsageBucket }> = [
  { value: "24h", label: "Last 24 hours", ms: DAY_MS, bucket: "hour" },
  { value: "7d", label: "Last 7 days", ms: 7 * DAY_MS, bucket: "hour" },
  { value: "30d", label: "Last 30 days", ms: 30 * DAY_MS, bucket: "day" },
];

export interface UsageQueryState {
  groupBy: UsageGroupBy;
  range: UsageRange;
  bucket: UsageBucket;
}

export const useUsageQuery = create<UsageQueryState>()(() => ({ groupBy: "provider", range: "24h", bucket: "hour" }));

/** Picking a range also picks its usual bucket; the bucket can still be changed on its own. */
export function chooseRange(range: UsageRange): void {
  useUsageQuery.setState({ range, bucket: RANGES.find((r) => r.value === range)!.bucket });
}

export interface UsageView {
  /** The chosen range, grouping and bucket. */
  chart: UsageReport;
  /** The last 30 days by hour: today's, 7 days' and 30 days' totals. */
  summary: UsageReport;
  /** The server's clock when the reports were made, and the browser's when they arrived. */
  serverNow: number;
  localAt: number;
}

const REPORT_RELOAD_MS = 2_000; // at most one reload per 2 s during traffic

async function loadUsage(): Promise<UsageView> {
  const { groupBy, range, bucket } = useUsageQuery.getState();
  const probe = await call("getUsage", { groupBy: "provider", bucket: "day" });
  const serverNow = probe.to;
  const localAt = Date.now();
  const rangeMs = RANGES.find((r) => r.value === range)!.ms;
  const [chart, summary] = await Promise.all([
    call("getUsage", { groupBy, bucket, from: serverNow - rangeMs, to: serverNow }),
    call("getUsage", { groupBy: "provider", bucket: "hour", from: serverNow - 30 * DAY_MS, to: serverNow }),
  ]);
  return { chart, summary, serverNow, localAt };
}

const afterRequest = (e: SwitchyardEvent) => e.type === "request";
const isConfigOf = (e: SwitchyardEvent, entity: "key" | "connection") => e.type === "config" && e.entity === entity;

export const usageReports = createLiveResource(loadUsage, afterRequest, { minReloadIntervalMs: REPORT_RELOAD_MS });

/** Quota headers arrive with responses, so each answered request may have moved a meter. */
export const usageQuotas = createLiveResource(async () => (await call("listQuotas")).items, afterRequest, { minReloadIntervalMs: REPORT_RELOAD_MS });

/** Keys and connections with their budgets and what the period has used, plus names for the charts. */
export const budgetHolders = createLiveResource(
  async () => {
    const [keys, connections] = await Promise.all([call("listKeys"), call("listConnections")]);
    return { keys, connections };
  },
  (e) => afterRequest(e) || e.type === "budget" || isConfigOf(e, "key") || isConfigOf(e, "connection"),
  { minReloadIntervalMs: REPORT_RELOAD_MS },
);
