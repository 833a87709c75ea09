// Lease narrowing (R1.7, R7.2) as a feature: a client key bound to some connections, or a request
// fenced to its exclusive lease, may use only those (a login's account counts as its client-login
// connection); and a connection another session holds by its lease is passed over (the timeline
// shows it, and when nothing else was free the request gets LEASE_CAPACITY_UNAVAILABLE).
import type { Connection } from "../../../shared/types.js";
import type { RequestFeature } from "./feature.js";

const inScope = (allowed: Set<string>, c: Connection) => allowed.has(c.id) || (c.accountOf !== null && allowed.has(c.accountOf));

/** The key's or the lease's connections only (before budgets are read, so others never show as skipped). */
export function leaseNarrowingFeature(): RequestFeature {
  return {
    name: "lease-narrowing",
    candidates(ctx, _target, list) {
      const allowed = ctx.allowed;
      return allowed ? list.filter((c) => inScope(allowed, c)) : list;
    },
  };
}

/** Other sessions' exclusive leases (R7.2), read after the budgets: only a connection that could serve counts as offered. */
export function leaseHoldersFeature(): RequestFeature {
  return {
    name: "lease-holders",
    candidates(ctx, target, list, scope) {
      const session = ctx.session;
      if (!session) return list;
      return list.filter((c) => {
        // Excluded by the engine: the core logs why; it was never free to offer.
        if (scope.excludedBy(c) || session.isFree(c)) return true;
        scope.log.leased.push({ provider: target.provider.id, target: scope.label, connectionId: c.id });
        return false;
      });
    },
  };
}
