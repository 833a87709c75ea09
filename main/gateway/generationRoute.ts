// The generation routes (each client half's, e.g. POST /v1/chat/completions) served before the express
// router: they are the hot path (issue 12), and the router, its layers and body-parser cost more
// than everything else a request does besides the upstream call. The edges stay the same
// handlers as everywhere else, in the same order: host guard, proxy switch and client keys, one
// body read with the live limit, the request shape, the lease fence; then the pipeline.
import type { Express, Request, RequestHandler, Response } from "express";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ApiKeyInfo, WireFormat } from "../../shared/types.js";
import { plainJsonBody, readJsonBody } from "./clientBody.js";
import { clientHalf, clientHalves } from "./formats/index.js";
import type { PathGeneration } from "./formats/adapter.js";
import { clientAuth, clientError, clientJson, requestIdOf, shapeProblem, type ClientGuardDeps } from "./clientRoutes.js";
import type { FinalError } from "./outcome.js";
import type { Pipeline } from "./pipeline.js";
import { describeError, type ErrorLog, type RequestLogSink } from "./ports.js";
import { clientKindOf } from "./request/trace.js";
import type { Clock } from "../engine/ports.js";
import type { PreparedTurn } from "./responses/turn.js";
import { leaseFence } from "./sessions/fence.js";
import { createRequestSession } from "./sessions/routing.js";
import { sessionKeyOf } from "./sessions/sessionKey.js";
import type { SessionGatewayDeps } from "./server.js";

/** What a client format's turns need beyond the pipeline (Responses: stored turns, R16.4). */
export interface TurnHook {
  prepare(body: Record<string, unknown>): PreparedTurn | FinalError;
}

export interface GenerationRouteDeps extends ClientGuardDeps {
  pipeline: Pipeline;
  /** A failure before the pipeline took the request still gets its log line and its log row. */
  logger?: ErrorLog;
  requestLog: RequestLogSink;
  clock: Clock;
  hostGuard: RequestHandler;
  sessions: SessionGatewayDeps;
  turns?: Partial<Record<WireFormat, TurnHook>>;
}

/** Each client half's generation paths, as the registry lists them. */
const FORMAT_OF_PATH: ReadonlyMap<string, WireFormat> = new Map(clientHalves().flatMap((half) => half.generationPaths.map((path) => [path, half.format] as const)));

/** The halves whose paths name the call (Gemini's `models/{model}:{method}`). */
const PATH_CALL_HALVES = clientHalves().filter((half) => half.generationPathCall);

interface RoutedCall {
  format: WireFormat;
  /** Set when the path named the model and the kind of answer. */
  pathCall: PathGeneration | null;
}

/** Express's router matches paths case-insensitively and with an optional trailing slash. */
function routeOf(url: string): RoutedCall | null {
  const q = url.indexOf("?");
  let path = q === -1 ? url : url.slice(0, q);
  if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
  const format = FORMAT_OF_PATH.get(path) ?? FORMAT_OF_PATH.get(path.toLowerCase());
  if (format) return { format, pathCall: null };
  for (const half of PATH_CALL_HALVES) {
    const pathCall = half.generationPathCall!(path, q === -1 ? "" : url.slice(q + 1));
    if (pathCall) return { format: half.format, pathCall };
  }
  return null;
}

/** Runs a synchronous middleware; true when it passed the request on. */
function passes(handler: RequestHandler, req: Request, res: Response): boolean {
  let passed = false;
  void handler(req, res, () => void (passed = true));
  return passed;
}

/** Returns a handler that serves the generation routes and answers false for every other request. */
export function createGenerationRoute(deps: GenerationRouteDeps, app: Express): (req: IncomingMessage, res: ServerResponse) => boolean {
  const guards = {} as Record<WireFormat, { auth: RequestHandler; fence: RequestHandler; parser: RequestHandler }>;
  for (const { format } of clientHalves()) {
    guards[format] = {
      auth: clientAuth(format, deps),
      fence: leaseFence(format, { ...deps.sessions, verifyClientKey: deps.verifyClientKey }),
      parser: clientJson(format, deps.appSettings),
    };
  }

  /**
   * The body as clientJson leaves it on req.body; false when an error answer went out. Resolves to
   * the JSON text it was parsed from when this route read it itself (a same-format body is then
   * passed on as that text, with only its model replaced), or null after the generic parser.
   */
  async function readBody(format: WireFormat, req: Request, res: Response): Promise<string | null | false> {
    if (!plainJsonBody(req)) {
      // The generic parser (a content-encoding, another charset) is express's: it gets express's request.
      withExpress(req, res);
      return new Promise((resolve) => {
        res.once("close", () => resolve(false));
        void guards[format].parser(req, res, () => resolve(null));
      });
    }
    const mb = deps.appSettings().maxBodyMb;
    const read = await readJsonBody(req, mb * 1024 * 1024);
    if (read.kind === "aborted") return false;
    if (read.kind === "too_large") return void clientError(res, format, 413, "payload_too_large", `Request body exceeds the ${mb} MB limit (setting maxBodyMb)`), false;
    if (read.kind === "invalid") return void clientError(res, format, 400, "invalid_request", "Request body is not valid JSON"), false;
    const body = read.value;
    if (!body || typeof body !== "object" || Array.isArray(body)) return void clientError(res, format, 400, "invalid_request", "Request body must be a JSON object"), false;
    req.body = body;
    return read.text;
  }

  async function serve({ format, pathCall }: RoutedCall, req: Request, res: Response): Promise<void> {
    const g = guards[format];
    if (!passes(deps.hostGuard, req, res) || !passes(g.auth, req, res)) return;
    const bodyText = await readBody(format, req, res);
    if (bodyText === false) return;
    // A path that names the call gives the body its model and stream, where the pipeline reads them.
    const received = pathCall ? { ...(req.body as Record<string, unknown>), model: pathCall.model, stream: pathCall.stream } : (req.body as Record<string, unknown>);
    const problem = shapeProblem(format, received);
    if (problem) return clientError(res, format, 400, "invalid_request", problem);
    if (!passes(g.fence, req, res)) return;
    const turn = deps.turns?.[format]?.prepare(received);
    if (turn && "code" in turn) return clientError(res, format, turn.status, turn.code, turn.message);
    const body = turn ? turn.body : received;
    const session = createRequestSession(deps.sessions, { sessionKey: sessionKeyOf(req.headers, () => clientHalf(format).sessionHint(body)), leaseOwnerHash: res.locals.leaseOwnerHash ?? null });
    await deps.pipeline.handle({
      format, body, bodyText: (turn && !turn.unchanged) || pathCall || bodyText === null ? undefined : bodyText, headers: req.headers, turn, res, session, requestId: requestIdOf(res), allowedConnections: res.locals.allowedConnections ?? null,
      apiKeyId: (res.locals.clientKey as ApiKeyInfo | undefined)?.id ?? null, framing: pathCall?.framing,
    });
  }

  /** What express's app.handle gives every request, for the one handler that needs express itself. */
  function withExpress(req: Request, res: Response): void {
    Object.setPrototypeOf(req, app.request);
    Object.setPrototypeOf(res, app.response);
    req.res = res;
    res.req = req;
  }

  return (rawReq, rawRes) => {
    if (rawReq.method !== "POST") return false;
    const routed = routeOf(rawReq.url ?? "");
    if (!routed) return false;
    const { format } = routed;
    // The edge handlers use node's request and response API and res.locals only (their refusals
    // go through sendPlainJson): changing two prototypes per request cost more than they do.
    const req = rawReq as Request;
    const res = rawRes as Response;
    res.locals ??= Object.create(null) as Record<string, unknown>;
    // A failure inside Switchyard before the pipeline took the request (the pipeline answers and
    // logs its own): a 500 in the client's format, never its message, a log line with the request
    // id and a request-log row.
    const startedAt = deps.clock.now();
    serve(routed, req, res).catch((err: unknown) => {
      const id = requestIdOf(res);
      deps.logger?.error({ requestId: id, err: describeError(err) }, "internal error before the request reached the pipeline");
      if (res.headersSent) res.end();
      else clientError(res, format, 500, "internal_error", "Switchyard failed to handle the request");
      deps.requestLog.append({
        id, time: startedAt, clientFormat: format, model: "", combo: null, provider: null, connectionId: null, status: 500, errorCode: "internal_error",
        latencyMs: deps.clock.now() - startedAt, ttfbMs: null, stream: false, inputTokens: null, outputTokens: null, attempts: [], clientKind: clientKindOf(req.headers),
      });
    });
    return true;
  };
}
