// The words of a quota window on the Usage page (R18.3, R21.6): its share, its reset countdown,
// its pace, and each session's share of it. Pure text, no DOM (unit-tested under Node).
import type { QuotaSessionShare, UsageQuotaItem } from "../../../../shared/apiTypes.js";
import { paceText } from "../../../../shared/quotaPace.js";
import { formatCount, formatRemaining, quotaUsedPercent } from "../../../../shared/usageText.js";

export function quotaText(q: UsageQuotaItem, leftMs: number | null, serverNow: number | null = null): string {
  const percent = quotaUsedPercent(q);
  const parts = [percent === null ? "use not reported" : `${Math.round(percent)} % used`];
  if (q.remaining !== null && q.limit !== null) parts.push(`${formatCount(q.remaining)} of ${formatCount(q.limit)} left`);
  else if (q.remaining !== null) parts.push(`${formatCount(q.remaining)} left`);
  if (leftMs !== null) parts.push(leftMs > 0 ? `resets in ${formatRemaining(leftMs)}` : "reset passed; the next response brings new numbers");
  const pace = leftMs === null || leftMs > 0 ? paceText(q.pace, serverNow ?? q.seenAt, q.usedPercent) : null;
  if (pace) parts.push(pace);
  if (q.status) parts.push(`status ${q.status}`);
  return parts.join(" · ");
}

/** "alpha", "no session" for requests that named none; a long key shortened (its whole in the title). */
export function sessionName(session: string | null): string {
  if (session === null) return "no session";
  return session.length > 24 ? `${session.slice(0, 23)}…` : session;
}

function percentText(p: number): string {
  return p > 0 && p < 1 ? `${p.toFixed(1)} %` : `${Math.round(p)} %`;
}

/** "alpha: 41 % in 3 requests (main 30 %, subagent 11 %)". */
export function sessionText(s: QuotaSessionShare): string {
  const classes = Object.entries(s.byClass).filter(([, p]) => p > 0);
  const split =
    classes.length > 1 ? ` (${classes.map(([c, p]) => `${c} ${percentText(p)}`).join(", ")})` : classes.length === 1 && classes[0][0] !== "main" ? ` (${classes[0][0]})` : "";
  return `${sessionName(s.session)}: ${percentText(s.usedPercent)} in ${s.requests} ${s.requests === 1 ? "request" : "requests"}${split}`;
}
