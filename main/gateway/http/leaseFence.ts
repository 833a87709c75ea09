// The lease fence of an inference request (R7.2, D7), checked before any upstream call: a request
// that presents a lease must present its owner, its exact live generation and the key that holds
// it; it is then routed only to the leased connection, which moves first if it can no longer serve
// (leaseEligibility.ts). Refusals are in the client's format.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ApiKeyInfo, WireFormat } from "../../../shared/types.js";
import { clientError, presentedKey } from "./clientRoutes.js";
import { narrowToLease } from "./edge.js";
import type { RequestContext } from "../context/requestContext.js";
import { leaseContextOf } from "./leaseContext.js";
import { leaseInService, type LeaseEligibilityDeps } from "../pipeline/leaseEligibility.js";

export interface LeaseFenceDeps extends LeaseEligibilityDeps {
  verifyClientKey: (key: string) => ApiKeyInfo | null;
}

/** Passes a request without lease context, narrows a fenced one to its lease; false when refused. */
export function fencesLease(format: WireFormat, deps: LeaseFenceDeps, req: IncomingMessage, res: ServerResponse, ctx: RequestContext): boolean {
  const context = leaseContextOf(req.headers);
  if (context.kind === "none") return true;
  if (context.kind === "required") return (clientError(res, format, 400, "LEASE_CONTEXT_REQUIRED", context.message), false);
  if (context.kind === "invalid") return (clientError(res, format, 400, "LEASE_CONTEXT_INVALID", context.message), false);
  if (context.generation === null) {
    return (clientError(res, format, 400, "LEASE_CONTEXT_REQUIRED", "A leased request needs its exact generation (x-omniroute-lease-generation)"), false);
  }
  const presented = presentedKey(req);
  const key = ctx.clientKey ?? (presented ? deps.verifyClientKey(presented) : null);
  const fenced = key ? deps.leases.fence(context.ownerHash, key.id, context.generation) : null;
  if (!key || !fenced) {
    return (clientError(res, format, 409, "LEASE_FENCE_STALE", "The lease is not active for this owner, key and generation; acquire or renew it"), false);
  }
  const lease = leaseInService(deps, fenced, key.allowedConnections);
  narrowToLease(ctx, context.ownerHash, lease.connectionId);
  return true;
}
