// The express app on 127.0.0.1: client routes (/v1), management routes (/api), the dashboard.
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { existsSync } from "node:fs";
import type { RequestListener } from "node:http";
import path from "node:path";
import { ERROR_CODES, type ErrorCode } from "../../../shared/errorCodes.js";
import { isRecord } from "../../../shared/records.js";
import type { AppSettings } from "../../../shared/types.js";
import type { Clock } from "../../engine/ports.js";
import { clientAuth, clientError, type ClientGuardDeps } from "./clientRoutes.js";
import type { CatalogPort, ErrorLog, RequestLogSink } from "../context/ports.js";
import { formatOfUnknownPath, UNPREFIXED_CLIENT_ROOTS, unknownClientRoute } from "./unknownRoute.js";
import type { Pipeline } from "../pipeline/pipeline.js";
import { createGenerationRoute, type SessionGatewayDeps } from "./generationRoute.js";
export type { SessionGatewayDeps } from "./generationRoute.js";
import type { StoredResponseDeps } from "../features/responses/storedResponses.js";
import { storedResponseRoutes } from "./storedResponseRoutes.js";
import { sessionLeaseHandler } from "./leaseRoute.js";
import { mountModelRoutes } from "./modelRoutes.js";
import type { WindowsView } from "./servedModels.js";
import { createUpgradeRoute, type UpgradeRoute } from "./upgrade.js";
import { CODEX_USAGE_PATHS, codexUsageHandler, type CodexUsageDeps } from "./codexUsageRoute.js";

export interface GatewayAppDeps extends ClientGuardDeps {
  /** Failures inside Switchyard, logged with the request id. */
  logger?: ErrorLog;
  requestLog: RequestLogSink;
  /** R16.4: stored Responses turns (absent = the Responses API keeps no state). */
  storedResponses?: StoredResponseDeps;
  catalog: CatalogPort;
  clock: Clock;
  /** R25.3: the models' context windows, for the model lists. */
  windows?: WindowsView;
  pipeline: Pipeline;
  appSettings: () => AppSettings;
  version: string;
  hostGuard: RequestHandler;
  apiRouter: express.Router;
  dashboardDir: string | null;
  sessions: SessionGatewayDeps;
  /** GET /metrics (R18.5): its guards and handler, behind the Host check like everything else. */
  metrics?: RequestHandler[];
  /** The DNS-rebinding guard as a test of a Host header (WebSocket handshakes, R26.1). */
  acceptsHost: (host: string | undefined) => boolean;
  /** R26.3: a Responses WebSocket's idle limit (default 15 minutes). */
  socketIdleMs?: number;
  /** R26.1: negotiate permessage-deflate on Responses WebSockets (default off: on loopback it only costs CPU). */
  socketDeflate?: boolean;
  /** R26.4: Codex's usage view from the pool (absent = not served). */
  codexUsage?: CodexUsageDeps;
}

/** The request listener, and the upgrade listener of the Responses WebSocket (R26.1). */
export type GatewayApp = RequestListener & { upgrade: UpgradeRoute };

/** The request listener: the generation routes first (generationRoute.ts), everything else through express. */
export function createGatewayApp(deps: GatewayAppDeps): GatewayApp {
  const app = createExpressApp(deps);
  const generation = createGenerationRoute(deps);
  const listener: RequestListener = (req, res) => {
    if (!generation(req, res)) void app(req, res);
  };
  return Object.assign(listener, { upgrade: createUpgradeRoute(deps) });
}

function createExpressApp(deps: GatewayAppDeps): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use(deps.hostGuard);

  // Claude Code sends HEAD / first; any status is fine as long as it answers at once.
  app.head("/", (_req, res) => void res.status(200).end());
  // Claude Code probes HEAD /api/hello for connectivity (without the nonessential-traffic switch);
  // it carries no admin token and must not be answered 401 by the management guard.
  app.head("/api/hello", (_req, res) => void res.status(200).end());
  app.get("/health", (_req, res) => void res.json({ ok: true, version: deps.version }));
  if (deps.metrics) app.get("/metrics", ...deps.metrics);

  if (deps.storedResponses) app.use(storedResponseRoutes(deps.storedResponses, clientAuth("openai-responses", deps)));
  // R1.3: the model lists, from the client halves; the generation calls are the generation route's.
  mountModelRoutes(app, deps);

  // R26.4: Codex's usage view, a client route (keys, the login), one path under /api: before the management router.
  if (deps.codexUsage) app.get([...CODEX_USAGE_PATHS], clientAuth("openai-responses", deps), codexUsageHandler(deps.codexUsage));
  // A client-key route under /api: mounted before the management router and its admin token.
  app.post("/api/v1/session-leases", sessionLeaseHandler({ ...deps.sessions, verifyClientKey: deps.verifyClientKey }));
  app.use(deps.apiRouter);

  if (deps.dashboardDir && existsSync(path.join(deps.dashboardDir, "index.html"))) {
    const dir = deps.dashboardDir;
    app.use(express.static(dir, { index: "index.html", maxAge: 0 }));
  }

  const unknown = unknownClientRoute(deps);
  app.use("/v1", unknown);
  app.use("/v1beta", unknown);
  for (const root of UNPREFIXED_CLIENT_ROOTS) app.use(root, unknown);
  app.use((_req, res) => void res.status(ERROR_CODES.not_found.status).json({ error: { code: "not_found" satisfies ErrorCode, message: "Not found" } }));
  // express 5 forwards thrown errors here; never leak a stack or a secret to the client.
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) return void res.end();
    if (req.path.startsWith("/v1")) return clientError(res, formatOfUnknownPath(req.path), 500, "internal_error", "Switchyard failed to handle the request");
    res
      .status(ERROR_CODES.internal_error.status)
      .json({ error: { code: "internal_error" satisfies ErrorCode, message: isRecord(err) && typeof err["message"] === "string" ? err["message"] : "internal error" } });
  });
  return app;
}
