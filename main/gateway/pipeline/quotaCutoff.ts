// Selection under quotaPreflightCutoff (R10.2; issue 26 item 7; the rule is engine/quotaCutoff.ts):
// a connection at or below the cutoff is passed over, before dispatch, while a sibling of the same
// provider that could serve this request (not excluded, not leased to another session) has more.
// Passed over, not dropped: it is tried after every such sibling, so when none of them answered
// the request still gets the last of its quota rather than a failure. Each pass-over is in the request
// log's skipped list (reason `quota_cutoff`, remainingMs = until its window starts over).
import type { Connection } from "../../../shared/types.js";
import { passedOverForQuota, type QuotaShare } from "../../engine/quotaCutoff.js";
import type { Target } from "../context/resolve.js";

/** What selection reads of the setting and of the learned quotas. */
export interface QuotaCutoffPort {
  /** `cutoffPercent` while quotaPreflightCutoff is enabled, else null. */
  cutoffPercent(): number | null;
  /** The connection's tightest learned window at `now`, or null when none is known. */
  remaining(connectionId: string, now: number): QuotaShare | null;
}

import type { QuotaPassOver } from "../context/attempt.js";
export type { QuotaPassOver };

export interface CutoffContext {
  port: QuotaCutoffPort;
  now: number;
  /** Whether a sibling could serve this request at all (its exclusions, budget and lease). */
  servable: (connection: Connection) => boolean;
  passedOver: QuotaPassOver[];
}

/** The cutoff in force for a target, or null when it is off, the target is pinned to a connection or has no sibling. */
export function cutoffPercentFor(port: QuotaCutoffPort | undefined, target: Target, connectionCount: number): number | null {
  if (!port || target.connectionId || connectionCount < 2) return null;
  return port.cutoffPercent();
}

/** The try order with each connection at or below `percent` moved after the siblings still to come that have more. */
export function* lowOnQuotaLast(ordered: Iterable<Connection>, target: Target, percent: number, ctx: CutoffContext): Generator<Connection> {
  const list = [...ordered];
  const shares = new Map(list.map((c) => [c.id, ctx.port.remaining(c.id, ctx.now)]));
  const held: Connection[] = [];
  for (const [i, connection] of list.entries()) {
    const own = shares.get(connection.id) ?? null;
    // The siblings still to be tried: those before it had their turn.
    const siblings = [...list.slice(i + 1), ...held].filter(ctx.servable).map((s) => shares.get(s.id) ?? null);
    if (!passedOverForQuota(own, percent, siblings)) {
      yield connection;
      continue;
    }
    held.push(connection);
    ctx.passedOver.push({
      provider: target.provider.id,
      target: `${target.provider.id}/${target.model}`,
      connectionId: connection.id,
      remainingMs: own?.resetAt == null ? null : Math.max(0, own.resetAt - ctx.now),
    });
  }
  yield* held;
}
