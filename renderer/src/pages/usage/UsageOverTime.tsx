// Tokens and cost over time (R18.6), by provider, connection, model, client, key or traffic class: the chosen
// grouping's lines, a legend, and a table of each series' totals with its cache-hit ratio.
import type { UsageBucket, UsageReport } from "../../../../shared/apiTypes.js";
import { keysOf } from "../../../../shared/records.js";
import { cacheHitRatio, formatCompact, formatCount, formatPercent, formatUsd } from "../../../../shared/usageText.js";
import { DataTable } from "../../components/DataTable.js";
import { SelectField } from "../../components/Field.js";
import { niceTicks, timeTicks } from "../../components/chartScale.js";
import { seriesColor, SeriesChart, type SeriesRow } from "../../components/SeriesChart.js";
import { chartData, costSummary, GROUP_LABELS, tokensSummary, totalTokens } from "./usageData.js";
import { chooseRange, RANGES, useUsageQuery, type UsageRange } from "./usageStore.js";

const GROUP_OPTIONS = keysOf(GROUP_LABELS).map((value) => ({ value, label: GROUP_LABELS[value] }));
const BUCKET_OPTIONS: ReadonlyArray<{ value: UsageBucket; label: string }> = [
  { value: "hour", label: "Per hour" },
  { value: "day", label: "Per day" },
];

function timeFormatter(report: UsageReport): (t: number) => string {
  if (report.bucket === "day") return (t) => new Date(t).toLocaleDateString("en-US", { month: "short", day: "numeric" });
  if (report.to - report.from > 86_400_000 + 3_600_000) {
    return (t) => new Date(t).toLocaleString("en-US", { weekday: "short", hour: "2-digit", minute: "2-digit", hour12: false });
  }
  return (t) => new Date(t).toLocaleTimeString("en-US", { hour: "2-digit", minute: "2-digit", hour12: false });
}

export function UsageControls() {
  const { groupBy, range, bucket } = useUsageQuery();
  return (
    <form className="form-grid" aria-label="What the usage charts show" onSubmit={(e) => e.preventDefault()}>
      <SelectField label="Group by" value={groupBy} onChange={(g) => useUsageQuery.setState({ groupBy: g })} options={GROUP_OPTIONS} />
      <SelectField label="Range" value={range} onChange={(r: UsageRange) => chooseRange(r)} options={RANGES.map((r) => ({ value: r.value, label: r.label }))} />
      <SelectField label="Bucket" value={bucket} onChange={(b) => useUsageQuery.setState({ bucket: b })} options={BUCKET_OPTIONS} />
    </form>
  );
}

export function UsageOverTime({ report, label }: { report: UsageReport; label: (key: string) => string }) {
  const data = chartData(report);
  const per = report.bucket === "day" ? "day" : "hour";
  const series = data.keys.map((key) => ({ key, name: label(key) }));
  const formatT = timeFormatter(report);
  const group = GROUP_LABELS[report.groupBy];
  const xTicks = timeTicks(
    data.tokens.map((r) => r.t),
    report.bucket,
  );
  const peak = (rows: SeriesRow[]) => Math.max(0, ...rows.flatMap((r) => data.keys.map((k) => r[k] ?? 0)));
  if (data.keys.length === 0) return <p className="muted">No requests in this range. Charts of tokens and cost appear as soon as clients send traffic.</p>;
  return (
    <>
      <ul className="legend" aria-label="Series in the usage charts">
        {series.map((s, i) => (
          <li key={s.key}>
            <span className="swatch" style={{ background: seriesColor(i) }} aria-hidden="true" />
            {s.name}
          </li>
        ))}
      </ul>
      <div className="chart-grid">
        <SeriesChart
          title={`Tokens per ${per}`}
          summary={tokensSummary(data, label)}
          rows={data.tokens}
          series={series}
          xKey="t"
          xTicks={xTicks}
          formatX={formatT}
          formatY={formatCompact}
          yTicks={niceTicks(peak(data.tokens), true)}
        />
        <SeriesChart
          title={`Cost per ${per}`}
          summary={costSummary(data, label)}
          rows={data.cost}
          series={series}
          xKey="t"
          xTicks={xTicks}
          formatX={formatT}
          formatY={formatUsd}
          yTicks={niceTicks(peak(data.cost))}
        />
      </div>
      <DataTable
        caption={`Usage by ${group.toLowerCase()} over the range`}
        columns={[group, { label: "Requests", numeric: true }, { label: "Tokens", numeric: true }, { label: "Cache hits", numeric: true }, { label: "Cost", numeric: true }]}
      >
        {series.map((s) => {
          const t = data.totals.get(s.key)!;
          return (
            <tr key={s.key}>
              <th scope="row">{s.name}</th>
              <td className="num">{formatCount(t.requests)}</td>
              <td className="num">{formatCount(totalTokens(t))}</td>
              <td className="num">{formatPercent(cacheHitRatio(t))}</td>
              <td className="num">{formatUsd(t.costUsd)}</td>
            </tr>
          );
        })}
      </DataTable>
    </>
  );
}
