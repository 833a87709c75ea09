// A small line chart in plain SVG (no chart library): one line per provider over time buckets.
// The figure's label states the totals so the chart is not only visual.
import { niceMax } from "./metrics.js";

export const SERIES_COLORS = ["#3b82f6", "#e5484d", "#30a46c", "#f5a524", "#8e4ec6", "#12a594", "#d6409f", "#978365"];

const W = 360;
const H = 150;
const PAD = { left: 40, right: 8, top: 8, bottom: 22 };

export interface ChartLine {
  name: string;
  values: Array<number | null>;
}

export function LineChart({ title, unit, lines, summary }: { title: string; unit: string; lines: ChartLine[]; summary: string }) {
  const buckets = Math.max(1, ...lines.map((l) => l.values.length));
  const peak = niceMax(Math.max(0, ...lines.flatMap((l) => l.values.filter((v): v is number => v !== null))));
  const x = (i: number) => PAD.left + (buckets === 1 ? 0 : (i / (buckets - 1)) * (W - PAD.left - PAD.right));
  const y = (v: number) => PAD.top + (1 - v / peak) * (H - PAD.top - PAD.bottom);
  return (
    <figure className="chart card">
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${title}: ${summary}`}>
        <line className="axis" x1={PAD.left} y1={y(0)} x2={W - PAD.right} y2={y(0)} />
        <line className="axis" x1={PAD.left} y1={y(peak)} x2={W - PAD.right} y2={y(peak)} strokeDasharray="3 3" />
        <text className="tick" x={PAD.left - 4} y={y(0) + 3} textAnchor="end">
          0
        </text>
        <text className="tick" x={PAD.left - 4} y={y(peak) + 3} textAnchor="end">
          {peak.toLocaleString("en-US")}
          {unit}
        </text>
        <text className="tick" x={PAD.left} y={H - 6}>
          −60 min
        </text>
        <text className="tick" x={(PAD.left + W - PAD.right) / 2} y={H - 6} textAnchor="middle">
          −30 min
        </text>
        <text className="tick" x={W - PAD.right} y={H - 6} textAnchor="end">
          now
        </text>
        {lines.map((line, li) => {
          const color = SERIES_COLORS[li % SERIES_COLORS.length];
          // A gap (null) breaks the line rather than pretending the value was zero.
          const segments: string[][] = [[]];
          line.values.forEach((v, i) => {
            if (v === null) segments.push([]);
            else segments[segments.length - 1]!.push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`);
          });
          return (
            <g key={line.name} stroke={color} fill={color}>
              {segments.filter((s) => s.length > 1).map((s, si) => (
                <polyline key={si} points={s.join(" ")} fill="none" strokeWidth={2} />
              ))}
              {line.values.map((v, i) => (v === null || v === 0 ? null : <circle key={i} cx={x(i)} cy={y(v)} r={2.5} stroke="none" />))}
            </g>
          );
        })}
      </svg>
    </figure>
  );
}
