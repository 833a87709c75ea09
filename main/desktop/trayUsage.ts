// What the tray says about usage (R18.6, R18.4): today's tokens and cost and the quota window
// nearest its wall, read through the contract handlers like everything else the tray shows and
// re-read a few seconds after traffic; and the words of a budget notification. Plain Node.
import type { ContractCallArgs, ContractMethod, ContractOutput } from "../../shared/contract.js";
import type { SwitchyardEvent } from "../../shared/types.js";
import type { UsageQuotaItem } from "../../shared/apiTypes.js";
import { formatCount, formatUsd, nearestQuota, quotaUsedPercent } from "../../shared/usageText.js";
import { TRAY_WINDOWS, type TrayUsage, type TrayWindow } from "./trayMenu.js";

/** Traffic re-reads today's use at most this often. */
export const TRAY_USAGE_REFRESH_MS = 5_000;

type Invoke = <M extends ContractMethod>(method: M, ...args: ContractCallArgs<M>) => Promise<ContractOutput<M>>;

export interface TrayUsageReader {
  /** The last reading; null until one succeeded. */
  current(): TrayUsage | null;
  read(): Promise<void>;
  /** Reads once TRAY_USAGE_REFRESH_MS from now (a burst of requests is one read), then calls `changed`. */
  soon(changed: () => void): void;
  dispose(): void;
}

export function createTrayUsageReader(invoke: Invoke, now: () => number): TrayUsageReader {
  let usage: TrayUsage | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;

  async function read(): Promise<void> {
    const today = new Date(now());
    today.setHours(0, 0, 0, 0);
    const [report, quotas, connections] = await Promise.all([
      invoke("getUsage", { from: today.getTime(), groupBy: "provider", bucket: "hour" }).catch(() => null),
      invoke("listQuotas").catch(() => null),
      invoke("listConnections").catch(() => null),
    ]);
    // A failed read keeps the last one.
    if (!report) return;
    const nearest = quotas ? nearestQuota(quotas.items) : null;
    const nameOf = (id: string) => connections?.find((c) => c.id === id)?.name ?? id;
    usage = {
      todayTokens: report.totals.inputTokens + report.totals.outputTokens,
      todayCostUsd: report.totals.costUsd,
      quota: nearest ? { label: `${nameOf(nearest.connectionId)} ${nearest.window}`, usedPercent: quotaUsedPercent(nearest) ?? 0, resetAt: nearest.resetAt } : null,
      windows: quotas ? trayWindows(quotas.items, nameOf) : [],
    };
  }

  return {
    current: () => usage,
    read,
    soon(changed) {
      timer ??= setTimeout(() => {
        timer = null;
        void read().then(changed);
      }, TRAY_USAGE_REFRESH_MS);
    },
    dispose() {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}

/** R21.6: the fullest 5-hour and the fullest weekly window of all accounts (the first of equals), in that order. */
export function trayWindows(items: readonly UsageQuotaItem[], nameOf: (connectionId: string) => string): TrayWindow[] {
  const out: TrayWindow[] = [];
  for (const window of TRAY_WINDOWS) {
    const fullest = nearestQuota(items.filter((q) => q.window === window && q.usedPercent !== null));
    if (!fullest) continue;
    out.push({ window, name: nameOf(fullest.connectionId), usedPercent: fullest.usedPercent!, resetAt: fullest.resetAt, pace: fullest.pace ?? null, seenAt: fullest.seenAt });
  }
  return out;
}

/** R21.7: the notification of a window reaching 80, 95 or 100 % in its period. */
export function quotaThresholdNotice(event: Extract<SwitchyardEvent, { type: "quota.threshold" }>, name: string): { title: string; body: string } {
  const what = `${name}'s ${event.window} window`;
  if (event.percent >= 100) return { title: `${event.window} window used up`, body: `${what} is used up; Switchyard moves its requests to other accounts until it resets.` };
  return { title: `${event.window} window ${event.percent} % used`, body: `${what} has used ${event.percent} % of this period.` };
}

/** R21.5/R21.7: the notifications of a billing-crossing episode's start and end. */
export function billingNotice(event: Extract<SwitchyardEvent, { type: "billing.crossed" | "billing.returned" }>, nameOf: (id: string) => string): { title: string; body: string } {
  if (event.type === "billing.crossed") {
    return {
      title: "Now billed per use",
      body: `${nameOf(event.fromConnectionId)}'s subscription window is used up: ${event.trafficClass} requests go to ${nameOf(event.toConnectionId)}, which is billed per use.`,
    };
  }
  return { title: "Back on the subscription", body: `${nameOf(event.connectionId)} serves again; requests are back on the subscription.` };
}

/** The notification of a budget crossing 80 % or 100 % (R18.4). */
export function budgetNotice(event: Extract<SwitchyardEvent, { type: "budget" }>): { title: string; body: string } {
  const what = event.scope === "key" ? `API key "${event.name}"` : `Connection "${event.name}"`;
  const used = `${formatUsd(event.usedCostUsd)} and ${formatCount(event.usedTokens)} tokens used`;
  const consequence = event.scope === "key" ? "its requests are refused" : "it is skipped";
  const body =
    event.percent >= 100
      ? `${what} is over its budget (${used}): ${consequence} until ${new Date(event.resetAt).toLocaleString()}.`
      : `${what} has used 80 % of its budget (${used}).`;
  return { title: `Budget ${event.percent} % used`, body };
}
