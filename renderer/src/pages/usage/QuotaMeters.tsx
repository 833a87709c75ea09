// Quota windows (R18.3): what each connection's rate-limit and subscription headers last said, as
// meters with a live countdown to the window's reset. Reset instants are the server's, so the
// countdown runs from the server's "now" (see usageStore) and re-reads the list when one ends.
import type { UsageQuotaItem } from "../../../../shared/apiTypes.js";
import { formatCount, formatRemaining, quotaUsedPercent } from "../../../../shared/usageText.js";
import { Meter } from "../../components/Meter.js";
import { remainingAt, useCountdowns } from "../../countdown.js";

export interface QuotaMetersProps {
  items: UsageQuotaItem[] | null;
  error: string | null;
  loadedAt: number;
  reload(): void;
  /** The server's clock at a browser instant. */
  serverNowAt(local: number): number;
  connectionName(id: string): string;
}

export function quotaText(q: UsageQuotaItem, leftMs: number | null): string {
  const percent = quotaUsedPercent(q);
  const parts = [percent === null ? "use not reported" : `${Math.round(percent)} % used`];
  if (q.remaining !== null && q.limit !== null) parts.push(`${formatCount(q.remaining)} of ${formatCount(q.limit)} left`);
  else if (q.remaining !== null) parts.push(`${formatCount(q.remaining)} left`);
  if (leftMs !== null) parts.push(leftMs > 0 ? `resets in ${formatRemaining(leftMs)}` : "reset passed; the next response brings new numbers");
  if (q.status) parts.push(`status ${q.status}`);
  return parts.join(" · ");
}

export function QuotaMeters(props: QuotaMetersProps) {
  const { items, error, loadedAt } = props;
  const list = [...(items ?? [])].sort((a, b) => a.provider.localeCompare(b.provider) || a.connectionId.localeCompare(b.connectionId) || a.window.localeCompare(b.window));
  const atLoad = props.serverNowAt(loadedAt);
  const remainings = list.map((q) => (q.resetAt === null ? null : q.resetAt - atLoad));
  const now = useCountdowns(remainings, loadedAt, props.reload);
  return (
    <section className="card" aria-labelledby="quotas-title">
      <h2 id="quotas-title">Quotas</h2>
      {error && (
        <p role="alert" className="error-banner">
          Could not load quotas: {error}
        </p>
      )}
      {items && list.length === 0 && (
        <p className="muted">
          No quota seen yet. When an upstream reports its rate-limit or subscription windows (Anthropic, OpenAI, Codex), they appear here after the next response.
        </p>
      )}
      {list.length > 0 && (
        <ul className="quota-list" aria-label="Quota windows">
          {list.map((q, i) => {
            const r = remainings[i]!;
            const text = quotaText(q, r === null ? null : remainingAt(r, loadedAt, now));
            const label = `${props.connectionName(q.connectionId)} (${q.provider}) · ${q.window}`;
            return (
              <li key={`${q.connectionId}|${q.window}`}>
                <span className="quota-name">{label}</span>
                <Meter label={`Quota ${label}`} percent={quotaUsedPercent(q) ?? 0} text={text} />
                <span className="field-hint">{text}</span>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
