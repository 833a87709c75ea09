// The Health charts (R14.2): one line per provider over the last hour's buckets, drawn with the
// charting library. The figure's label states the totals so the chart is not only visual.
import { SeriesChart, type SeriesRow } from "../../components/SeriesChart.js";
import { niceMax } from "./metrics.js";

export { SERIES_COLORS } from "../../components/SeriesChart.js";

export interface ChartLine {
  name: string;
  values: Array<number | null>;
}

const WINDOW_MINUTES = 60;

export function LineChart({ title, unit, lines, summary }: { title: string; unit: string; lines: ChartLine[]; summary: string }) {
  const buckets = Math.max(1, ...lines.map((l) => l.values.length));
  const last = buckets - 1;
  const rows: SeriesRow[] = Array.from({ length: buckets }, (_, i) => ({ i, ...Object.fromEntries(lines.map((l) => [l.name, l.values[i] ?? null])) }));
  const peak = niceMax(Math.max(0, ...lines.flatMap((l) => l.values.filter((v): v is number => v !== null))));
  const minutesAgo = (i: number) => (last === 0 ? 0 : Math.round(((last - i) / last) * WINDOW_MINUTES));
  return (
    <SeriesChart
      title={title}
      summary={summary}
      rows={rows}
      series={lines.map((l) => ({ key: l.name, name: l.name }))}
      xKey="i"
      xTicks={last === 0 ? [0] : [0, last / 2, last]}
      formatX={(i) => (minutesAgo(i) === 0 ? "now" : `−${minutesAgo(i)} min`)}
      formatY={(v) => `${v.toLocaleString("en-US")}${unit}`}
      yTicks={[0, peak]}
    />
  );
}
