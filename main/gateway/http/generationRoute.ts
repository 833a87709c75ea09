// The generation routes (each client half's, e.g. POST /v1/chat/completions) served before the express
// router: they are the hot path (issue 12), and the router, its layers and body-parser cost more
// than everything else a request does besides the upstream call. The edges are the same plain
// functions express's client routes use, in the same order, over the request's one RequestContext:
// host guard, proxy switch and client keys, one body read with the live limit, the request shape,
// the lease fence; then the pipeline.
import type { Request, RequestHandler, Response } from "express";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { WireFormat } from "../../../shared/types.js";
import { clientHalf, clientHalves } from "../formats/index.js";
import type { PathGeneration } from "../formats/adapter.js";
import { admitsClient, clientError, readClientBody, shapeProblem, type ClientGuardDeps } from "./clientRoutes.js";
import { contextOf } from "./edge.js";
import type { RequestContext } from "../context/requestContext.js";
import type { Pipeline } from "../pipeline/pipeline.js";
import { describeError, type ErrorLog, type RequestLogSink } from "../context/ports.js";
import { unservedEntry } from "../context/requestRecord.js";
import { clientKindOf } from "../context/trace.js";
import type { Clock } from "../../engine/ports.js";
import { fencesLease } from "./leaseFence.js";
import { createRequestSession } from "../context/requestSession.js";
import { sessionKeyOf } from "./sessionKey.js";
import type { LeaseRouteDeps } from "./leaseRoute.js";
import type { SessionRoutingDeps } from "../context/requestSession.js";

/** Session pins and exclusive leases (R7). */
export type SessionGatewayDeps = SessionRoutingDeps & Omit<LeaseRouteDeps, "verifyClientKey" | "leases">;

export interface GenerationRouteDeps extends ClientGuardDeps {
  pipeline: Pipeline;
  /** A failure before the pipeline took the request still gets its log line and its log row. */
  logger?: ErrorLog;
  requestLog: RequestLogSink;
  clock: Clock;
  hostGuard: RequestHandler;
  sessions: SessionGatewayDeps;
}

/** What a routed request asks for: an answer, a token count (R16.5, R17.1) or a compaction (R16.5). */
type Operation = "generate" | "count" | "compact";

/**
 * R25.7: clients given a bare origin where they wanted `<origin>/v1` (the AI SDK's Anthropic provider
 * posts `<baseURL>/messages`) reach these routes without the `/v1` prefix, served as with it.
 */
export const UNPREFIXED_CLIENT_PATHS: readonly string[] = ["/v1/chat/completions", "/v1/messages", "/v1/messages/count_tokens", "/v1/responses"];

/**
 * Each client half's routes, as the registry lists them: one RoutedCall per path, handed out read-only
 * as it is (a copy per request gave each its own hidden class on Node 20: issue 38's profile); the
 * R25.7 paths also without their `/v1`, sharing the prefixed path's call.
 */
const ROUTE_OF_PATH: ReadonlyMap<string, Readonly<RoutedCall>> = (() => {
  const byPath = new Map(
    clientHalves().flatMap((half) => {
      const routes = (paths: readonly string[] | undefined, operation: Operation) =>
        (paths ?? []).map((path): [string, RoutedCall] => [path, { format: half.format, operation, pathCall: null }]);
      return [...routes(half.generationPaths, "generate"), ...routes(half.count?.paths, "count"), ...routes(half.compactPaths, "compact")];
    }),
  );
  for (const path of UNPREFIXED_CLIENT_PATHS) {
    const route = byPath.get(path);
    if (route) byPath.set(path.slice("/v1".length), route);
  }
  return byPath;
})();

/** The halves whose paths name the call (Gemini's `models/{model}:{method}`). */
const PATH_CALL_HALVES = clientHalves().filter((half) => half.generationPathCall);

interface RoutedCall {
  readonly format: WireFormat;
  readonly operation: Operation;
  /** Set when the path named the model and the kind of answer. */
  pathCall: PathGeneration | null;
}

/** Express's router matches paths case-insensitively and with an optional trailing slash. */
function routeOf(url: string): Readonly<RoutedCall> | null {
  const q = url.indexOf("?");
  let path = q === -1 ? url : url.slice(0, q);
  if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
  const route = ROUTE_OF_PATH.get(path) ?? ROUTE_OF_PATH.get(path.toLowerCase());
  if (route) return route;
  for (const half of PATH_CALL_HALVES) {
    const pathCall = half.generationPathCall!(path, q === -1 ? "" : url.slice(q + 1));
    if (pathCall) return { format: half.format, operation: pathCall.count ? "count" : "generate", pathCall };
  }
  return null;
}

/**
 * A body whose call the path names (Gemini) goes upstream as the client's text only when the text
 * itself names no model or stream, which the route put in the body for the pipeline (R20.2).
 */
function pathCallKeepsText(pathCall: RoutedCall["pathCall"], ctx: RequestContext): boolean {
  if (!pathCall) return true;
  const body = ctx.receivedBody();
  return !("model" in body) && !("stream" in body);
}

/**
 * Runs the host guard, true when it passed the request on. It is express middleware (the express
 * routes mount it too) that reads and answers through node's API only, so it runs on node's objects.
 */
function passes(handler: RequestHandler, req: IncomingMessage, res: ServerResponse): boolean {
  let passed = false;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- see above: typed for express, the guard (main/api/hostGuard.ts) reads req.headers and answers through node's res only
  void handler(req as Request, res as Response, () => void (passed = true));
  return passed;
}

/** Returns a handler that serves the generation routes and answers false for every other request. */
export function createGenerationRoute(deps: GenerationRouteDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const fenceDeps = { ...deps.sessions, verifyClientKey: deps.verifyClientKey };

  /**
   * R22.1: every route that reaches an upstream passes the same edges, in the same order: host
   * guard, proxy switch and client keys, one body read with the live limit, the request's shape,
   * the lease fence, the session; then the pipeline.
   */
  async function serve(routed: Readonly<RoutedCall>, req: IncomingMessage, res: ServerResponse, ctx: RequestContext): Promise<void> {
    const { format, pathCall } = routed;
    if (!passes(deps.hostGuard, req, res) || !admitsClient(format, deps, req, res, ctx)) return;
    if (!(await readClientBody(format, deps.appSettings().maxBodyMb, req, res, ctx))) return;
    ctx.format = format;
    if (routed.operation === "count") return serveCount(routed, req, res, ctx);
    // A path that names the call gives the body its model and stream, where the pipeline reads them.
    const received = ctx.receivedBody();
    const body = pathCall ? { ...received, model: pathCall.model, stream: pathCall.stream } : received;
    const problem = shapeProblem(format, body);
    if (problem) return clientError(res, format, 400, "invalid_request", problem);
    if (!fencesLease(format, fenceDeps, req, res, ctx)) return;
    if (!pathCallKeepsText(pathCall, ctx)) ctx.bodyRead(body, undefined);
    else if (body !== received) ctx.bodyRead(body, ctx.bodyText);
    // R16.5: the summary turn runs like any other; its answer is given as a compaction.
    ctx.compact = routed.operation === "compact";
    ctx.framing = pathCall?.framing;
    ctx.session = sessionOf(format, req, ctx, body);
    await deps.pipeline.handle(ctx, res);
  }

  /** A token count: the model from the body, or from the path that names it (Gemini). */
  async function serveCount({ format, pathCall }: Readonly<RoutedCall>, req: IncomingMessage, res: ServerResponse, ctx: RequestContext): Promise<void> {
    const body = ctx.receivedBody();
    const model = pathCall ? pathCall.model : body["model"];
    // R1.9: a missing or non-string model is a malformed request, not an unknown model.
    if (typeof model !== "string" || model === "") return clientError(res, format, 400, "invalid_request", "model must be a non-empty string");
    if (!fencesLease(format, fenceDeps, req, res, ctx)) return;
    ctx.model = model;
    ctx.count = clientHalf(format).count ?? null;
    ctx.session = sessionOf(format, req, ctx, body);
    await deps.pipeline.handle(ctx, res);
  }

  function sessionOf(format: WireFormat, req: IncomingMessage, ctx: RequestContext, body: Record<string, unknown>) {
    return createRequestSession(deps.sessions, { sessionKey: sessionKeyOf(req.headers, () => clientHalf(format).sessionHint(body)), leaseOwnerHash: ctx.leaseOwnerHash });
  }

  return (req, res) => {
    if (req.method !== "POST") return false;
    const routed = routeOf(req.url ?? "");
    if (!routed) return false;
    const { format } = routed;
    const ctx = contextOf(req);
    // A failure inside Switchyard before the pipeline took the request (the pipeline answers and
    // logs its own): a 500 in the client's format, never its message, a log line with the request
    // id and a request-log row.
    const startedAt = deps.clock.now();
    serve(routed, req, res, ctx).catch((err: unknown) => {
      const id = ctx.requestId;
      deps.logger?.error({ requestId: id, err: describeError(err) }, "internal error before the request reached the pipeline");
      if (res.headersSent) res.end();
      else clientError(res, format, 500, "internal_error", "Switchyard failed to handle the request");
      deps.requestLog.append(unservedEntry(id, format, clientKindOf(req.headers), startedAt, { status: 500, errorCode: "internal_error", now: deps.clock.now() }));
    });
    return true;
  };
}
