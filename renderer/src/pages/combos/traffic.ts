// Which target served a combo's recent requests (issue 9, item 8): tallied from the request log,
// where a served request's last attempt is the target that answered.
import type { RequestLogEntry } from "../../../../shared/types.js";

/** How many of a combo's requests the combo page tallies. */
export const TRAFFIC_WINDOW = 50;

export interface TargetTally {
  /** `provider/model` as the upstream was asked. */
  target: string;
  count: number;
}

export interface ComboTraffic {
  served: TargetTally[];
  /** Requests no target answered (an error status, or the client left). */
  failed: number;
  total: number;
}

export function tallyServed(entries: readonly RequestLogEntry[]): ComboTraffic {
  const counts = new Map<string, number>();
  let failed = 0;
  for (const entry of entries) {
    const last = entry.attempts[entry.attempts.length - 1];
    if (entry.status >= 400 || !last) {
      failed++;
      continue;
    }
    const target = `${last.provider}/${last.model}`;
    counts.set(target, (counts.get(target) ?? 0) + 1);
  }
  const served = [...counts].map(([target, count]) => ({ target, count })).sort((a, b) => b.count - a.count || a.target.localeCompare(b.target));
  return { served, failed, total: entries.length };
}

/** A live entry joins the window at the top when it belongs to the combo; the oldest leaves. */
export function withNewEntry(entries: readonly RequestLogEntry[], entry: RequestLogEntry, combo: string): RequestLogEntry[] {
  if (entry.combo !== combo || entries.some((e) => e.id === entry.id)) return [...entries];
  return [entry, ...entries].slice(0, TRAFFIC_WINDOW);
}
