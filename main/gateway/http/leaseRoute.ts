// POST /api/v1/session-leases (R7.2, D7): acquire, renew and release an exclusive connection
// lease with a client key (never the admin token). The answer names the state and generation
// only: no connection id, secret or owner token is echoed.
import type { IncomingHttpHeaders } from "node:http";
import type { Request, RequestHandler, Response } from "express";
import { ERROR_CODES, type ErrorCode, type StatusOf } from "../../../shared/errorCodes.js";
import { isRecord } from "../../../shared/records.js";
import type { ApiKeyInfo } from "../../../shared/types.js";
import type { LeaseResult } from "../../engine/leases.js";
import { readJsonBody } from "./clientBody.js";
import { presentedKey } from "./clientRoutes.js";
import { errorBody } from "../formats/index.js";
import { leaseContextOf } from "./leaseContext.js";
import { eligibleOf, type LeaseEligibilityDeps } from "../pipeline/leaseEligibility.js";
import { boundedLeaseRetryMs } from "../context/requestSession.js";

export const LEASE_SCOPE = "lease:exclusive";
const ACTIONS = new Set(["acquire", "renew", "release"]);
/** A lifecycle call is a few fields. */
const LEASE_BODY_LIMIT_BYTES = 64 * 1024;

export interface LeaseRouteDeps extends LeaseEligibilityDeps {
  verifyClientKey: (key: string) => ApiKeyInfo | null;
  /** R19.2: with Switchyards sharing a Redis, the acquire that is exclusive in the whole group. */
  acquireLease?: (ownerHash: string, keyId: string, candidates: readonly string[]) => Promise<LeaseResult>;
}

function refuse<C extends ErrorCode>(res: Response, status: StatusOf<C>, code: C, message: string): void {
  res.status(status).json(errorBody("openai", status, code, message));
}

function answer(res: Response, result: LeaseResult): void {
  if (result.kind === "active") {
    const { generation, expiresAt } = result.lease;
    return void res.json({ state: "ACTIVE", generation, expiresAt: new Date(expiresAt).toISOString() });
  }
  if (result.kind === "stale") return refuse(res, 409, "LEASE_FENCE_STALE", "The lease is held under another key or generation");
  const retryAfter = Math.ceil(boundedLeaseRetryMs(result.retryAfterMs) / 1000);
  res.setHeader("Retry-After", String(retryAfter));
  const code = "LEASE_CAPACITY_UNAVAILABLE" satisfies ErrorCode;
  res.status(ERROR_CODES[code].status).json({ state: "WAITING_FOR_CAPACITY", reason: "NO_FREE_ELIGIBLE_CONNECTION", retryAfter, code });
}

/** In a group the connection is claimed in Redis too: one round trip, on this explicit call only. */
function acquire(deps: LeaseRouteDeps, ownerHash: string, key: ApiKeyInfo, res: Response): void {
  const candidates = eligibleOf(deps, key.allowedConnections);
  const local = () => answer(res, deps.leases.acquire(ownerHash, key.id, candidates));
  if (!deps.acquireLease) return local();
  deps.acquireLease(ownerHash, key.id, candidates).then((result) => answer(res, result), local);
}

/** The verified key that may hold leases, or null when a refusal went out. */
function authorised(deps: LeaseRouteDeps, req: Request, res: Response): ApiKeyInfo | null {
  const presented = presentedKey(req);
  const key = presented ? deps.verifyClientKey(presented) : null;
  if (!key) return (refuse(res, 401, "unauthorized", "A Switchyard client key is required (Authorization: Bearer sk-sy-… or x-api-key)"), null);
  if (!key.scopes.includes(LEASE_SCOPE) || key.allowedConnections.length === 0) {
    return (refuse(res, 403, "forbidden", `The key needs scope ${LEASE_SCOPE} and a non-empty allowedConnections list`), null);
  }
  if (!req.is("application/json")) return (refuse(res, 415, "unsupported_media_type", "The body must be JSON (Content-Type: application/json)"), null);
  return key;
}

function lifecycle(deps: LeaseRouteDeps, key: ApiKeyInfo, headers: IncomingHttpHeaders, body: unknown, res: Response): void {
  if (!isRecord(body)) return refuse(res, 400, "invalid_request", "The body must be a JSON object");
  if (typeof body.action !== "string" || !ACTIONS.has(body.action)) return refuse(res, 400, "invalid_request", "action must be acquire, renew or release");
  const context = leaseContextOf(headers, body);
  if (context.kind === "none" || context.kind === "required") return refuse(res, 400, "LEASE_CONTEXT_REQUIRED", "The lease owner (owner or x-omniroute-lease-owner) is required");
  if (context.kind === "invalid") return refuse(res, 400, "LEASE_CONTEXT_INVALID", context.message);
  if (body.action === "acquire") return acquire(deps, context.ownerHash, key, res);
  if (body.action === "release") {
    if (deps.leases.release(context.ownerHash, key.id) === "stale") return answer(res, { kind: "stale" });
    return void res.json({ state: "RELEASED" });
  }
  if (context.generation === null) return refuse(res, 400, "LEASE_CONTEXT_REQUIRED", "renew needs the current generation");
  answer(res, deps.leases.renew(context.ownerHash, key.id, context.generation));
}

/** The lifecycle route: the key first, then its body through the client routes' one body reader. */
export function sessionLeaseHandler(deps: LeaseRouteDeps): RequestHandler {
  return async (req, res) => {
    const key = authorised(deps, req, res);
    if (!key) return;
    const read = await readJsonBody(req, LEASE_BODY_LIMIT_BYTES);
    if (read.kind === "aborted") return;
    if (read.kind !== "json") return refuse(res, 400, "invalid_request", "The body is not valid JSON");
    lifecycle(deps, key, req.headers, read.value, res);
  };
}
