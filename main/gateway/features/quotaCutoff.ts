// quotaPreflightCutoff (R10.2; issue 26 item 7; the rule is engine/quotaCutoff.ts) as a feature that
// orders a target's candidates:
// a connection at or below the cutoff is passed over, before dispatch, while a sibling of the same
// provider that could serve this request (not excluded, not leased to another session) has more.
// Passed over, not dropped: it is tried after every such sibling, so when none of them answered
// the request still gets the last of its quota rather than a failure. Each pass-over is in the request
// log's skipped list (reason `quota_cutoff`, remainingMs = until its window starts over).
import type { Connection } from "../../../shared/types.js";
import { passedOverForQuota, type QuotaShare } from "../../engine/quotaCutoff.js";
import type { Target } from "../context/resolve.js";
import type { CandidateScope, RequestFeature } from "./feature.js";

/** What selection reads of the setting and of the learned quotas. */
export interface QuotaCutoffPort {
  /** `cutoffPercent` while quotaPreflightCutoff is enabled, else null. */
  cutoffPercent(): number | null;
  /** The connection's tightest learned window at `now`, or null when none is known. */
  remaining(connectionId: string, now: number): QuotaShare | null;
}

import type { QuotaPassOver } from "../context/attempt.js";
export type { QuotaPassOver };

/** The try order with each connection at or below `percent` moved after the siblings still to come that have more. */
function lowOnQuotaLast(list: Connection[], target: Target, percent: number, port: QuotaCutoffPort, scope: CandidateScope): Connection[] {
  const shares = new Map(list.map((c) => [c.id, port.remaining(c.id, scope.now)]));
  // Whether a sibling could serve this request at all: the hooks before this one already took out
  // the connections over budget or leased to another session; the engine's exclusions remain.
  const servable = (c: Connection) => !scope.excludedBy(c);
  const out: Connection[] = [];
  const held: Connection[] = [];
  for (const [i, connection] of list.entries()) {
    const own = shares.get(connection.id) ?? null;
    // The siblings still to be tried: those before it had their turn.
    const siblings = [...list.slice(i + 1), ...held].filter(servable).map((s) => shares.get(s.id) ?? null);
    if (!passedOverForQuota(own, percent, siblings)) {
      out.push(connection);
      continue;
    }
    held.push(connection);
    scope.log.quotaCutoff.push({
      provider: target.provider.id,
      target: scope.label,
      connectionId: connection.id,
      remainingMs: own?.resetAt == null ? null : Math.max(0, own.resetAt - scope.now),
    });
  }
  return held.length === 0 ? out : [...out, ...held];
}

export function quotaCutoffFeature(port: QuotaCutoffPort): RequestFeature {
  return {
    name: "quota-cutoff",
    candidates(_ctx, target, list, scope) {
      // Off, a target pinned to one connection, or a connection with no sibling: nothing to order.
      if (target.connectionId || list.length < 2) return list;
      const percent = port.cutoffPercent();
      return percent === null ? list : lowOnQuotaLast(list, target, percent, port, scope);
    },
  };
}
