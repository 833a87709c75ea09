// Usage (R18.6): tokens and cost over time by provider, connection, model, client, key or traffic class (drawn
// with the charting library), the cache-hit ratio, totals for today, 7 and 30 days, the quota
// meters with their reset countdowns, budgets with what they have used, and a CSV export. Every
// answered request reloads it (throttled); nothing polls.
import { useEffect, useState } from "react";
import type { UsageCounts } from "../../../../shared/apiTypes.js";
import { cacheHitRatio, formatCount, formatPercent, formatUsd } from "../../../../shared/usageText.js";
import { DataTable } from "../../components/DataTable.js";
import { errorText } from "../../stores/liveResource.js";
import { call } from "../../transport.js";
import { BudgetsCard, type BudgetHolder } from "./BudgetsCard.js";
import { QuotaMeters } from "./QuotaMeters.js";
import { seriesLabeler, windowTotals } from "./usageData.js";
import { budgetHolders, usageQuotas, usageReports, useUsageQuery, type UsageView } from "./usageStore.js";
import { UsageControls, UsageOverTime } from "./UsageOverTime.js";

/** The server's clock at a browser instant, from when the last report arrived (the browser's own without one). */
function serverClock(view: UsageView | null): (local: number) => number {
  return (local) => (view ? view.serverNow + (local - view.localAt) : local);
}

export function UsagePage() {
  useEffect(() => usageReports.watch(), []);
  useEffect(() => usageQuotas.watch(), []);
  useEffect(() => budgetHolders.watch(), []);
  // A new grouping, range or bucket is loaded at once.
  useEffect(() => useUsageQuery.subscribe(() => void usageReports.use.getState().reload()), []);
  const reports = usageReports.use();
  const quotas = usageQuotas.use();
  const holders = budgetHolders.use();
  const view = reports.data;
  const serverNowAt = serverClock(view);
  const connections = holders.data?.connections ?? [];
  const keys = holders.data?.keys ?? [];
  const names = new Map<string, string>(view?.chart.groupBy === "key" ? keys.map((k) => [k.id, k.name]) : connections.map((c) => [c.id, c.name]));
  const label = seriesLabeler(view?.chart.groupBy ?? "provider", names);
  const connectionName = (id: string) => connections.find((c) => c.id === id)?.name ?? id;
  const budgetList: BudgetHolder[] | null = holders.data
    ? [...keys.map((k) => ({ ...k, kind: "API key" as const })), ...connections.map((c) => ({ ...c, kind: "Connection" as const }))]
    : null;
  const subscriptions = connections.filter((c) => c.subscription).map((c) => c.name);

  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Usage</h1>
          <p className="muted">
            Tokens and cost of every request, from the rollups kept as requests finish; prices from each provider&apos;s model info, else the shipped catalogue.
          </p>
        </div>
      </header>
      {reports.error && (
        <p role="alert" className="error-banner">
          Could not load usage: {reports.error}
        </p>
      )}
      <TotalsCard view={view} subscriptions={subscriptions} />
      <section className="card" aria-labelledby="over-time-title">
        <header className="card-header">
          <h2 id="over-time-title">Over time</h2>
          <span className="spacer" />
          <CsvExport view={view} />
        </header>
        <UsageControls />
        {view ? <UsageOverTime report={view.chart} label={label} /> : reports.status === "loading" && <p aria-live="polite">Loading…</p>}
      </section>
      <QuotaMeters
        items={quotas.data}
        error={quotas.error}
        loadedAt={quotas.loadedAt}
        reload={() => void quotas.reload()}
        serverNowAt={serverNowAt}
        connectionName={connectionName}
      />
      <BudgetsCard holders={budgetList} error={holders.error} serverNowAt={serverNowAt} />
    </div>
  );
}

function TotalsCard({ view, subscriptions }: { view: UsageView | null; subscriptions: string[] }) {
  const totals = view ? windowTotals(view.summary, view.serverNow) : null;
  const rows: Array<[string, UsageCounts | undefined]> = [
    ["Today", totals?.today],
    ["Last 7 days", totals?.week],
    ["Last 30 days", totals?.month],
  ];
  return (
    <section className="card" aria-labelledby="totals-title">
      <h2 id="totals-title">Totals</h2>
      <DataTable
        caption="Usage today, in the last 7 days and in the last 30 days"
        columns={[
          "Period",
          { label: "Requests", numeric: true },
          { label: "Prompt tokens", numeric: true },
          { label: "Output tokens", numeric: true },
          { label: "Cache-hit ratio", numeric: true },
          { label: "Cost", numeric: true },
        ]}
      >
        {rows.map(([name, c]) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td className="num">{c ? formatCount(c.requests) : "—"}</td>
            <td className="num">{c ? formatCount(c.inputTokens) : "—"}</td>
            <td className="num">{c ? formatCount(c.outputTokens) : "—"}</td>
            <td className="num">{c ? formatPercent(cacheHitRatio(c)) : "—"}</td>
            <td className="num">{c ? formatUsd(c.costUsd) : "—"}</td>
          </tr>
        ))}
      </DataTable>
      <p className="field-hint">
        Cache-hit ratio: prompt tokens read from the upstream&apos;s cache, of all prompt tokens.
        {subscriptions.length > 0 && ` Cost of flat-rate subscriptions (${subscriptions.join(", ")}) is notional: what their tokens would cost.`}
      </p>
    </section>
  );
}

function CsvExport({ view }: { view: UsageView | null }) {
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  async function download() {
    if (!view) return;
    const { groupBy, bucket, from, to } = view.chart;
    try {
      const out = await call("getUsageCsv", { groupBy, bucket, from, to });
      const file = `switchyard-usage-${groupBy}-${bucket}.csv`;
      const link = document.createElement("a");
      link.href = URL.createObjectURL(new Blob([out.body], { type: "text/csv" }));
      link.download = file;
      link.click();
      URL.revokeObjectURL(link.href);
      const rows = out.body.split("\n").filter((line) => line !== "").length - 1;
      setOutcome({ ok: true, text: `Downloaded ${file}: ${rows} row${rows === 1 ? "" : "s"}.` });
    } catch (err) {
      setOutcome({ ok: false, text: `Could not export: ${errorText(err)}` });
    }
  }
  return (
    <>
      {outcome && (
        <span role={outcome.ok ? "status" : "alert"} className={outcome.ok ? "field-hint" : "field-error"}>
          {outcome.text}
        </span>
      )}
      <button type="button" className="secondary small" disabled={!view} onClick={() => void download()}>
        Export CSV
      </button>
    </>
  );
}
