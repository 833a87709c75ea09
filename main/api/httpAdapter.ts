// The HTTP transport of the contract: every CONTRACT entry this process serves becomes one route.
// Order on /api: same-origin check -> admin token -> JSON body (size-capped) -> the entry's input
// schema -> handler.
// No CORS headers are ever sent: the dashboard is same-origin, and nothing else may call us
// from a browser.
import { createHash, timingSafeEqual } from "node:crypto";
import express, { type NextFunction, type Request, type RequestHandler, type Response, Router } from "express";
import type { ErrorCode, StatusOf } from "../../shared/errorCodes.js";
import { CONTRACT, type ContractEntry, type ContractHandlers, type ContractMethod, type HttpVerb } from "../../shared/contract.js";
import { isRecord, keysOf } from "../../shared/records.js";
import { invokeContract } from "./dispatch.js";
import { ApiError } from "./errors.js";
import { isSameLoopbackOrigin } from "./hostGuard.js";
import { isRawResponse } from "./rawResponse.js";
import { isAvailable } from "./unavailable.js";

export const DEFAULT_BODY_LIMIT_BYTES = 50 * 1024 * 1024;

export interface ApiRouterDeps {
  handlers: ContractHandlers;
  adminToken: string;
  /** A function is read per request, so a changed `maxBodyMb` applies without a restart (R10.3). */
  bodyLimitBytes?: number | (() => number);
  /** GET /api/events (see sseEventsHandler); served behind the same origin and token checks. */
  events?: RequestHandler;
  /** Receives unexpected errors (answered as 500 internal_error without their message). */
  onInternalError?: (err: unknown) => void;
}

/** PATCH /api/resilience errors always carry `path` (API.md), "" meaning the whole document. */
const ALWAYS_PATH: ReadonlySet<ContractMethod> = new Set<ContractMethod>(["patchResilience"]);

const ROUTER_VERB = { GET: "get", POST: "post", PATCH: "patch", PUT: "put", DELETE: "delete" } as const satisfies Record<HttpVerb, string>;

function isContractMethod(value: unknown): value is ContractMethod {
  return typeof value === "string" && Object.hasOwn(CONTRACT, value);
}

/** A catalogue code (shared/errorCodes.ts), with the status the catalogue gives it. */
function sendError<C extends ErrorCode>(res: Response, status: StatusOf<C>, code: C, message: string, path?: string): void {
  res.status(status).json({ error: { code, message, ...(path !== undefined ? { path } : {}) } });
}

function sha256(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

export function requireAdminToken(adminToken: string): RequestHandler {
  if (!adminToken) throw new Error("createApiRouter: adminToken must not be empty");
  // Comparing digests keeps the comparison constant-time whatever the presented length.
  const expected = sha256(adminToken);
  return (req, res, next) => {
    const match = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? "");
    if (match && timingSafeEqual(sha256(match[1]), expected)) return next();
    res.setHeader("WWW-Authenticate", 'Bearer realm="switchyard"');
    sendError(res, 401, "unauthorized", "missing or invalid admin token (Authorization: Bearer <token>)");
  };
}

export const refuseCrossOrigin: RequestHandler = (req, res, next) => {
  if (isSameLoopbackOrigin(req.headers)) return next();
  sendError(res, 403, "forbidden_origin", "cross-origin requests to /api are refused");
};

const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader("Cache-Control", "no-store");
  next();
};

function hasBody(req: Request): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

const isJson = (req: Request): boolean => /^application\/(?:[\w.+-]+\+)?json\b/i.test(req.headers["content-type"] ?? "");

/** JSON only: a form or text body (what a cross-site form could send) is refused, not ignored. */
function jsonBody(limit: ApiRouterDeps["bodyLimitBytes"]): RequestHandler {
  const parsers = new Map<number, RequestHandler>();
  return (req, res, next) => {
    if (!hasBody(req)) return next();
    if (req.headers["content-type"] !== undefined && !isJson(req)) {
      return sendError(res, 415, "unsupported_media_type", "request bodies must be application/json");
    }
    const bytes = (typeof limit === "function" ? limit() : limit) ?? DEFAULT_BODY_LIMIT_BYTES;
    let parser = parsers.get(bytes);
    if (!parser) {
      if (parsers.size > 16) parsers.clear();
      parser = express.json({ limit: bytes, type: () => true });
      parsers.set(bytes, parser);
    }
    parser(req, res, next);
  };
}

/** The raw input the entry's schema checks: path parameters merged over the body or the query. */
function buildInput(req: Request, entry: ContractEntry): Record<string, unknown> {
  const source: unknown = entry.source === "body" ? req.body : entry.source === "query" ? req.query : undefined;
  if (entry.source === "body" && source !== undefined && !isRecord(source)) {
    throw new ApiError(400, "invalid_request", "the request body must be a JSON object", "");
  }
  // Path parameters win: the URL names the entity, a body cannot redirect the call elsewhere.
  return { ...(isRecord(source) ? source : {}), ...req.params };
}

function route(method: ContractMethod, entry: ContractEntry, handlers: ContractHandlers): RequestHandler {
  return async (req, res) => {
    res.locals.contractMethod = method;
    const result: unknown = await invokeContract(handlers, method, buildInput(req, entry));
    const status = entry.status ?? 200;
    if (isRawResponse(result)) res.status(status).type(result.contentType).send(result.body);
    else if (result === undefined) res.status(204).end();
    else res.status(status).json(result);
  };
}

function pathPattern(path: string): RegExp {
  const source = path
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${source}/?$`);
}

/** Body-parser failures carry a `type`; each maps to a stable code. */
function bodyParserError(err: { type?: unknown; status?: unknown; message?: unknown }): ApiError | null {
  const message = typeof err.message === "string" ? err.message : "invalid body";
  switch (err.type) {
    case "entity.too.large":
      return new ApiError(413, "payload_too_large", "request body exceeds the maxBodyMb limit");
    case "entity.parse.failed":
      return new ApiError(400, "invalid_request", `malformed JSON body: ${message}`, "");
    case "encoding.unsupported":
    case "charset.unsupported":
      return new ApiError(415, "unsupported_media_type", message);
    case "request.aborted":
    case "request.size.invalid":
    case "stream.encoding.set":
      return new ApiError(400, "invalid_request", message);
    default:
      return null;
  }
}

export function createApiRouter(deps: ApiRouterDeps): Router {
  const router = Router();
  const onInternalError = deps.onInternalError ?? ((err: unknown) => console.error("switchyard api: internal error", err));
  const mounted: Array<{ verb: string; pattern: RegExp }> = [];

  router.use("/api", refuseCrossOrigin, requireAdminToken(deps.adminToken), noStore);
  if (deps.events) {
    router.get("/api/events", deps.events);
    mounted.push({ verb: "GET", pattern: pathPattern("/api/events") });
  }
  router.use("/api", jsonBody(deps.bodyLimitBytes));

  for (const method of keysOf(CONTRACT)) {
    if (!isAvailable(deps.handlers[method])) continue;
    const entry: ContractEntry = CONTRACT[method];
    router[ROUTER_VERB[entry.verb]](entry.path, route(method, entry, deps.handlers));
    mounted.push({ verb: entry.verb, pattern: pathPattern(entry.path) });
  }

  router.use("/api", (req, res) => {
    const path = new URL(req.originalUrl, "http://localhost").pathname;
    const allowed = [...new Set(mounted.filter((r) => r.pattern.test(path)).map((r) => r.verb))];
    if (allowed.length > 0) {
      res.setHeader("Allow", allowed.join(", "));
      return sendError(res, 405, "method_not_allowed", `${req.method} is not allowed on ${path}`);
    }
    sendError(res, 404, "not_found", `no API route ${req.method} ${path}`);
  });

  router.use("/api", (err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    const stored: unknown = res.locals.contractMethod;
    const method = isContractMethod(stored) ? stored : undefined;
    const known = err instanceof ApiError ? err : bodyParserError(err ?? {});
    if (!known) {
      onInternalError(err);
      return sendError(res, 500, "internal_error", "internal error");
    }
    const path = known.path ?? (method && ALWAYS_PATH.has(method) ? "" : undefined);
    sendError(res, known.status, known.code, known.message, path);
  });

  return router;
}
