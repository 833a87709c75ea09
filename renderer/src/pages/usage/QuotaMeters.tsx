// Quota windows (R18.3): what each connection's rate-limit and subscription headers last said, as
// meters with a live countdown to the window's reset. Reset instants are the server's, so the
// countdown runs from the server's "now" (see usageStore) and re-reads the list when one ends.
// R21.6: a subscription window (5h, 7d…) also shows its pace ("runs out at 15:40 at this pace" /
// "lasts until the reset"), a tick on its bar where the window's time stands (a fill past the tick
// burns faster than the window lasts), and who burned it: its sessions by share.
import type { QuotaSessionShare, UsageQuotaItem } from "../../../../shared/apiTypes.js";
import { quotaUsedPercent } from "../../../../shared/usageText.js";
import { Meter } from "../../components/Meter.js";
import { remainingAt, useCountdowns } from "../../countdown.js";
import { quotaText, sessionText } from "./quotaWords.js";

export interface QuotaMetersProps {
  items: UsageQuotaItem[] | null;
  error: string | null;
  loadedAt: number;
  reload(): void;
  /** The server's clock at a browser instant. */
  serverNowAt(local: number): number;
  connectionName(id: string): string;
}

/** Sessions shown at once under a window; the rest of the top 10 fold away. */
const SESSIONS_SHOWN = 3;

/** Where the window's time stands, 0–100 % of its length; null without a length and reset. */
function elapsedShare(q: UsageQuotaItem, serverNow: number): number | null {
  if (!q.windowMs || q.resetAt === null) return null;
  const share = ((serverNow - (q.resetAt - q.windowMs)) / q.windowMs) * 100;
  return share >= 0 && share <= 100 ? share : null;
}

function Sessions({ q, label }: { q: UsageQuotaItem; label: string }) {
  const sessions = q.sessions ?? [];
  if (sessions.length === 0) return null;
  const item = (s: QuotaSessionShare) => (
    <li key={s.session ?? ""} title={s.session ?? undefined}>
      {sessionText(s)}
    </li>
  );
  return (
    <div className="quota-sessions">
      <span className="quota-sessions-title">Who burned it</span>
      <ol aria-label={`Sessions that used ${label}`}>{sessions.slice(0, SESSIONS_SHOWN).map(item)}</ol>
      {sessions.length > SESSIONS_SHOWN && (
        <details>
          <summary>{sessions.length - SESSIONS_SHOWN} more</summary>
          <ol start={SESSIONS_SHOWN + 1} aria-label={`More sessions that used ${label}`}>
            {sessions.slice(SESSIONS_SHOWN).map(item)}
          </ol>
        </details>
      )}
    </div>
  );
}

export function QuotaMeters(props: QuotaMetersProps) {
  const { items, error, loadedAt } = props;
  // Per connection, its subscription windows (with a length: 5h, 7d…) before its count windows.
  const list = [...(items ?? [])].sort(
    (a, b) => a.provider.localeCompare(b.provider) || a.connectionId.localeCompare(b.connectionId) || Number(!a.windowMs) - Number(!b.windowMs) || a.window.localeCompare(b.window),
  );
  const atLoad = props.serverNowAt(loadedAt);
  const remainings = list.map((q) => (q.resetAt === null ? null : q.resetAt - atLoad));
  const now = useCountdowns(remainings, loadedAt, props.reload);
  const serverNow = props.serverNowAt(now);
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
            const text = quotaText(q, r === null ? null : remainingAt(r, loadedAt, now), serverNow);
            const label = `${props.connectionName(q.connectionId)} (${q.provider}) · ${q.window}`;
            const elapsed = elapsedShare(q, serverNow);
            return (
              <li key={`${q.connectionId}|${q.window}`}>
                <span className="quota-name">{label}</span>
                <div className="quota-bar">
                  <Meter label={`Quota ${label}`} percent={quotaUsedPercent(q) ?? 0} text={text} />
                  {elapsed !== null && <span className="quota-time" style={{ left: `${elapsed}%` }} title={`${Math.round(elapsed)} % of the window has passed`} />}
                </div>
                <span className={`field-hint${q.pace?.state === "deficit" ? " quota-deficit" : ""}`}>{text}</span>
                <Sessions q={q} label={label} />
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
