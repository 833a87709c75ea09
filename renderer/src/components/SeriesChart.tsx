// One line per series over time, drawn by the charting library (recharts). The figure is an image
// to assistive technology, named by its title and a text summary of what it shows, so the numbers
// are never only visual; the legend is the page's own list next to the figures. Series are read
// by function, not by field path: a model id like gpt-4.1 has dots.
import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";

export const SERIES_COLORS = ["#3b82f6", "#e5484d", "#30a46c", "#f5a524", "#8e4ec6", "#12a594", "#d6409f", "#978365"];

export const seriesColor = (index: number) => SERIES_COLORS[index % SERIES_COLORS.length];

export type SeriesRow = Record<string, number | null>;

export interface SeriesChartProps {
  title: string;
  summary: string;
  rows: SeriesRow[];
  /** The series, in legend order: the colour follows the position. */
  series: ReadonlyArray<{ key: string; name: string }>;
  /** The row field on the x axis. */
  xKey: string;
  formatX(value: number): string;
  formatY(value: number): string;
  /** Where the x axis has its labels; the library picks when absent. */
  xTicks?: number[];
  /** The y axis' marks, from 0 to its top. */
  yTicks: number[];
}

const TOOLTIP_STYLE = { background: "var(--surface)", border: "1px solid var(--border)", borderRadius: 6, color: "var(--text)" };

/** A dot where a bucket had something (a zero is the line itself), while dots can be told apart. */
function dotsFor(rowCount: number, color: string) {
  if (rowCount > 48) return false;
  return (p: { index: number; cx?: number | string; cy?: number | string; value?: unknown }) =>
    typeof p.value === "number" && p.value !== 0 && p.cx !== undefined && p.cy !== undefined ? (
      <circle key={p.index} cx={p.cx} cy={p.cy} r={2.5} fill={color} />
    ) : (
      <g key={p.index} />
    );
}

export function SeriesChart(props: SeriesChartProps) {
  const { title, summary, rows, series, xKey, formatX, formatY, yTicks } = props;
  return (
    <figure className="chart card">
      <figcaption>{title}</figcaption>
      <div className="chart-plot" role="img" aria-label={`${title}: ${summary}`}>
        <LineChart responsive data={rows} accessibilityLayer={false} margin={{ top: 8, right: 12, bottom: 0, left: 0 }} style={{ width: "100%", height: 170 }}>
          <CartesianGrid vertical={false} strokeDasharray="3 3" />
          <XAxis dataKey={xKey} type="number" domain={["dataMin", "dataMax"]} ticks={props.xTicks} tickFormatter={formatX} minTickGap={16} />
          <YAxis width={56} domain={[0, yTicks[yTicks.length - 1]]} ticks={yTicks} tickFormatter={formatY} interval={0} />
          <Tooltip
            contentStyle={TOOLTIP_STYLE}
            labelFormatter={(label) => (typeof label === "number" ? formatX(label) : label)}
            formatter={(value) => (typeof value === "number" ? formatY(value) : String(value ?? ""))}
          />
          {/* A gap (null) breaks the line rather than claiming zero. */}
          {series.map((s, i) => (
            <Line
              key={s.key}
              dataKey={(row: SeriesRow) => row[s.key] ?? null}
              name={s.name}
              type="linear"
              stroke={seriesColor(i)}
              strokeWidth={2}
              dot={dotsFor(rows.length, seriesColor(i))}
              connectNulls={false}
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      </div>
    </figure>
  );
}
