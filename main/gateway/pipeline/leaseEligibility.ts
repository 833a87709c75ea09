// Which of a lease key's connections ordinary routing would use now (R7.2, R11.2): present,
// active, not terminal, not cooling. Acquire takes the first free one of them; a lease whose own
// connection stopped being one (cooling down, terminal, deactivated, deleted) moves to the first
// free one, its own provider's first, and keeps its generation: the fence the client holds stays
// valid, and only its connection changes.
import type { Connection, Provider } from "../../../shared/types.js";
import type { Lease, LeaseBook } from "../../engine/leases.js";
import type { ResilienceEngine } from "../../engine/ports.js";

export interface LeaseEligibilityDeps {
  leases: LeaseBook;
  connectionById: (id: string) => Connection | null;
  providerById: (id: string) => Provider | null;
  engine: Pick<ResilienceEngine, "selectConnections">;
}

/** The connections of `allowed` that ordinary routing would use now, in `allowed`'s order. */
export function eligibleOf(deps: LeaseEligibilityDeps, allowed: readonly string[]): string[] {
  const eligible = new Set<string>();
  const byProvider = new Map<string, Connection[]>();
  for (const id of allowed) {
    const connection = deps.connectionById(id);
    if (connection) byProvider.set(connection.provider, [...(byProvider.get(connection.provider) ?? []), connection]);
  }
  for (const [providerId, connections] of byProvider) {
    const provider = deps.providerById(providerId);
    if (provider) for (const c of deps.engine.selectConnections(provider, "", connections).eligible) eligible.add(c.id);
  }
  return allowed.filter((id) => eligible.has(id));
}

/**
 * The lease a fenced request routes by: as it is while its connection can serve, else moved to a
 * free eligible connection of `allowed` (the key's). With none free it stays, and the request
 * meets its connection's own state (a cooldown's Retry-After, say).
 */
export function leaseInService(deps: LeaseEligibilityDeps, lease: Lease, allowed: readonly string[]): Lease {
  const current = deps.connectionById(lease.connectionId);
  if (current && eligibleOf(deps, [current.id]).length === 1) return lease;
  const candidates = eligibleOf(
    deps,
    allowed.filter((id) => id !== lease.connectionId),
  );
  const sameProvider = (id: string) => current !== null && deps.connectionById(id)?.provider === current.provider;
  for (const id of [...candidates.filter(sameProvider), ...candidates.filter((id) => !sameProvider(id))]) {
    const moved = deps.leases.move(lease.ownerHash, id);
    if (moved) return moved;
  }
  return lease;
}
