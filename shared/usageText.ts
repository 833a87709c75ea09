// How usage, cost and time left read wherever they are shown: the dashboard and the tray menu
// (R18.6, R14.1) say the same numbers the same way. Pure text, no DOM, no Node.

/** "45 s", "3 min 20 s", "2 h 5 min", "3 d 4 h": two units at most, rounded up so 0.4 s shows as 1 s. */
export function formatRemaining(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const d = Math.floor(total / 86_400);
  const h = Math.floor((total % 86_400) / 3_600);
  const m = Math.floor((total % 3_600) / 60);
  const s = total % 60;
  if (d > 0) return h > 0 ? `${d} d ${h} h` : `${d} d`;
  if (h > 0) return m > 0 ? `${h} h ${m} min` : `${h} h`;
  if (m > 0) return s > 0 ? `${m} min ${s} s` : `${m} min`;
  return `${s} s`;
}

/** "$0.00", "$0.42", "$12.34", "$1,234"; small sums keep their digits ("$0.0456", "$0.0042"), so a cheap day is not shown as nothing. */
export function formatUsd(value: number): string {
  const abs = Math.abs(value);
  let options: Intl.NumberFormatOptions;
  if (abs === 0 || (abs >= 0.1 && abs < 1_000)) options = { minimumFractionDigits: 2, maximumFractionDigits: 2 };
  else if (abs >= 1_000) options = { maximumFractionDigits: 0 };
  else if (abs >= 0.01) options = { minimumFractionDigits: 2, maximumFractionDigits: 4 };
  else options = { maximumSignificantDigits: 2 };
  return `${value < 0 ? "-" : ""}$${abs.toLocaleString("en-US", options)}`;
}

/** Exact counts with separators: "12,345". */
export function formatCount(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

/** Short counts for a tray line or an axis: "950", "12.3k", "4.5M". */
export function formatCompact(value: number): string {
  const abs = Math.abs(value);
  if (abs < 1_000) return String(Math.round(value));
  const [div, unit] = abs < 1_000_000 ? [1_000, "k"] : abs < 1_000_000_000 ? [1_000_000, "M"] : [1_000_000_000, "B"];
  const scaled = value / div;
  return `${Math.abs(scaled) < 100 ? Number(scaled.toFixed(1)) : Math.round(scaled)}${unit}`;
}

/** "35 %" of the prompt tokens read from the cache; null when there were no prompt tokens. */
export function cacheHitRatio(counts: { inputTokens: number; cacheReadTokens: number }): number | null {
  return counts.inputTokens > 0 ? counts.cacheReadTokens / counts.inputTokens : null;
}

export function formatPercent(ratio: number | null): string {
  if (ratio === null) return "—";
  const pct = ratio * 100;
  return `${pct > 0 && pct < 1 ? pct.toFixed(1) : Math.round(pct)} %`;
}

interface QuotaLike {
  usedPercent: number | null;
  remaining: number | null;
  limit: number | null;
}

/** The share of a quota window used: as the upstream said it, else from remaining / limit, else null. */
export function quotaUsedPercent(q: QuotaLike): number | null {
  if (q.usedPercent !== null) return q.usedPercent;
  if (q.remaining !== null && q.limit !== null && q.limit > 0) return Math.max(0, Math.min(100, (1 - q.remaining / q.limit) * 100));
  return null;
}

/** The window nearest its wall: the highest share used (the first of equals); null without any known share. */
export function nearestQuota<Q extends QuotaLike>(items: readonly Q[]): Q | null {
  let best: Q | null = null;
  let bestPercent = -1;
  for (const q of items) {
    const p = quotaUsedPercent(q);
    if (p !== null && p > bestPercent) [best, bestPercent] = [q, p];
  }
  return best;
}
