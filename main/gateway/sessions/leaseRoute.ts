// POST /api/v1/session-leases (R7.2, D7): acquire, renew and release an exclusive connection
// lease with a client key (never the admin token). The answer names the state and generation
// only: no connection id, secret or owner token is echoed.
import express, { type Request, type RequestHandler, type Response } from "express";
import type { ApiKeyInfo } from "../../../shared/types.js";
import type { LeaseResult } from "../../engine/leases.js";
import { presentedKey } from "../clientRoutes.js";
import { errorBody } from "../formats/index.js";
import { leaseContextOf } from "./leaseContext.js";
import { eligibleOf, type LeaseEligibilityDeps } from "./leaseEligibility.js";
import { boundedLeaseRetryMs } from "./routing.js";

export const LEASE_SCOPE = "lease:exclusive";
const ACTIONS = new Set(["acquire", "renew", "release"]);

export interface LeaseRouteDeps extends LeaseEligibilityDeps {
  verifyClientKey: (key: string) => ApiKeyInfo | null;
}

function refuse(res: Response, status: number, code: string, message: string): void {
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
  res.status(429).json({ state: "WAITING_FOR_CAPACITY", reason: "NO_FREE_ELIGIBLE_CONNECTION", retryAfter, code: "LEASE_CAPACITY_UNAVAILABLE" });
}

function authorise(deps: LeaseRouteDeps): RequestHandler {
  return (req, res, next) => {
    const presented = presentedKey(req);
    const key = presented ? deps.verifyClientKey(presented) : null;
    if (!key) return refuse(res, 401, "unauthorized", "A Switchyard client key is required (Authorization: Bearer sk-sy-… or x-api-key)");
    if (!key.scopes.includes(LEASE_SCOPE) || key.allowedConnections.length === 0) {
      return refuse(res, 403, "forbidden", `The key needs scope ${LEASE_SCOPE} and a non-empty allowedConnections list`);
    }
    if (!req.is("application/json")) return refuse(res, 415, "unsupported_media_type", "The body must be JSON (Content-Type: application/json)");
    res.locals.clientKey = key;
    next();
  };
}

function lifecycle(deps: LeaseRouteDeps): RequestHandler {
  return (req: Request, res: Response) => {
    const key = res.locals.clientKey as ApiKeyInfo;
    const body = req.body && typeof req.body === "object" && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : null;
    if (!body) return refuse(res, 400, "invalid_request", "The body must be a JSON object");
    if (typeof body.action !== "string" || !ACTIONS.has(body.action)) return refuse(res, 400, "invalid_request", "action must be acquire, renew or release");
    const context = leaseContextOf(req.headers, body);
    if (context.kind === "none" || context.kind === "required") return refuse(res, 400, "LEASE_CONTEXT_REQUIRED", "The lease owner (owner or x-omniroute-lease-owner) is required");
    if (context.kind === "invalid") return refuse(res, 400, "LEASE_CONTEXT_INVALID", context.message);
    if (body.action === "acquire") return answer(res, deps.leases.acquire(context.ownerHash, key.id, eligibleOf(deps, key.allowedConnections)));
    if (body.action === "release") {
      if (deps.leases.release(context.ownerHash, key.id) === "stale") return answer(res, { kind: "stale" });
      return void res.json({ state: "RELEASED" });
    }
    if (context.generation === null) return refuse(res, 400, "LEASE_CONTEXT_REQUIRED", "renew needs the current generation");
    answer(res, deps.leases.renew(context.ownerHash, key.id, context.generation));
  };
}

export function sessionLeaseHandlers(deps: LeaseRouteDeps): RequestHandler[] {
  const json = express.json({ limit: "64kb" });
  return [
    authorise(deps),
    (req, res, next) => json(req, res, (err?: unknown) => (err ? refuse(res, 400, "invalid_request", "The body is not valid JSON") : next())),
    lifecycle(deps),
  ];
}
