// R12.5 egress-bucketed lock, the gateway half: which IP a connection leaves from, and after an
// egress-bucketed 429 which siblings last left from the same IP (request log, 24 h window).
//
// How the egress IP is known: a connection may name `providerSpecificData.egressIp`, a local
// address its upstream socket binds to (one machine with several addresses or interfaces); the
// upstream then sees that IP, and the request log records it on every row of that connection.
// Without it the connection leaves from the system's default route, which Switchyard cannot name
// reliably, so it records none and such a connection is never a sibling (best effort, as R12.5 says).
import type { Connection } from "../../../../shared/types.js";
import { EGRESS_LOOKUP_WINDOW_MS, egressFamilyOf } from "../../../engine/egressBucket.js";
import type { ResilienceAdmin } from "../../../engine/index.js";
import type { AttemptContext, Clock, Verdict } from "../../../engine/ports.js";
import type { CatalogPort, ConnectionsPort } from "../../context/ports.js";

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6 = /^[0-9a-f:]+$/i;

/** The local address a connection's upstream socket binds to, or null (default route). */
export function egressIpOf(connection: Pick<Connection, "providerSpecificData">): string | null {
  const ip = connection.providerSpecificData.egressIp;
  if (typeof ip !== "string") return null;
  return IPV4.test(ip) || (ip.includes(":") && IPV6.test(ip)) ? ip : null;
}

/** The request log's view: each connection's newest recorded egress IP since an instant. */
export interface EgressHistory {
  lastEgressIps(since: number): Map<string, string>;
}

export interface EgressLockDeps {
  catalog: Pick<CatalogPort, "providers">;
  connections: Pick<ConnectionsPort, "listByProvider">;
  history: EgressHistory;
  engine: Pick<ResilienceAdmin, "coolEgressSiblings">;
  clock: Clock;
}

export type EgressLock = (ctx: AttemptContext, verdict: Verdict) => string[];

export function createEgressLock(deps: EgressLockDeps): EgressLock {
  return (ctx, verdict) => {
    const family = egressFamilyOf(ctx.provider);
    if (family === null || verdict.status !== 429) return [];
    const known = deps.history.lastEgressIps(deps.clock.now() - EGRESS_LOOKUP_WINDOW_MS);
    const ip = egressIpOf(ctx.connection) ?? known.get(ctx.connection.id) ?? null;
    if (ip === null) return [];
    const siblings = deps.catalog
      .providers()
      .filter((p) => egressFamilyOf(p) === family)
      .flatMap((p) => deps.connections.listByProvider(p.id))
      .filter((c) => c.id !== ctx.connection.id && known.get(c.id) === ip);
    return siblings.length ? deps.engine.coolEgressSiblings(ctx, verdict, siblings) : [];
  };
}
