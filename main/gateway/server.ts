// The express app on 127.0.0.1: client routes (/v1), management routes (/api), the dashboard.
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { existsSync } from "node:fs";
import type { RequestListener } from "node:http";
import path from "node:path";
import type { AppSettings, WireFormat } from "../../shared/types.js";
import type { Clock } from "../engine/ports.js";
import { clientAuth, clientError, clientJson, stampClientHeaders, type ClientGuardDeps } from "./clientRoutes.js";
import { countTokensHandler, type CountTokensDeps } from "./countTokens.js";
import type { CatalogPort } from "./ports.js";
import type { Pipeline } from "./pipeline.js";
import { createGenerationRoute } from "./generationRoute.js";
import { sessionLeaseHandlers, type LeaseRouteDeps } from "./sessions/leaseRoute.js";
import type { SessionRoutingDeps } from "./sessions/routing.js";

/** Session pins and exclusive leases (R7). */
export type SessionGatewayDeps = SessionRoutingDeps & Omit<LeaseRouteDeps, "verifyClientKey" | "leases">;

export interface GatewayAppDeps extends ClientGuardDeps, CountTokensDeps {
  catalog: CatalogPort;
  clock: Clock;
  pipeline: Pipeline;
  appSettings: () => AppSettings;
  version: string;
  hostGuard: RequestHandler;
  apiRouter: express.Router;
  dashboardDir: string | null;
  sessions: SessionGatewayDeps;
}

/** GET /v1/models: OpenAI list format; ids are `provider/model`, aliases, combos. */
function listModels(catalog: CatalogPort, clock: Clock): RequestHandler {
  return (_req, res) => {
    stampClientHeaders(res);
    const created = Math.floor(clock.now() / 1000);
    const data: Array<{ id: string; object: "model"; created: number; owned_by: string }> = [];
    for (const p of catalog.providers()) for (const m of p.models) data.push({ id: `${p.id}/${m}`, object: "model", created, owned_by: p.id });
    for (const alias of Object.keys(catalog.aliases())) data.push({ id: alias, object: "model", created, owned_by: "switchyard-alias" });
    for (const c of catalog.combos()) data.push({ id: c.name, object: "model", created, owned_by: "switchyard-combo" });
    res.json({ object: "list", data });
  };
}

/** The request listener: the generation routes first (generationRoute.ts), everything else through express. */
export function createGatewayApp(deps: GatewayAppDeps): RequestListener {
  const app = createExpressApp(deps);
  const generation = createGenerationRoute(deps, app);
  return (req, res) => {
    if (!generation(req, res)) void app(req, res);
  };
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

  app.post("/v1/messages/count_tokens", clientAuth("anthropic", deps), clientJson("anthropic", deps.appSettings), countTokensHandler(deps));
  app.get("/v1/models", clientAuth("openai", deps), listModels(deps.catalog, deps.clock));

  // A client-key route under /api: mounted before the management router and its admin token.
  app.post("/api/v1/session-leases", ...sessionLeaseHandlers({ ...deps.sessions, verifyClientKey: deps.verifyClientKey }));
  app.use(deps.apiRouter);

  if (deps.dashboardDir && existsSync(path.join(deps.dashboardDir, "index.html"))) {
    const dir = deps.dashboardDir;
    app.use(express.static(dir, { index: "index.html", maxAge: 0 }));
  }

  app.use("/v1", (req, res) => clientError(res, req.path.startsWith("/messages") ? "anthropic" : "openai", 404, "not_found", `No route ${req.method} /v1${req.path}`));
  app.use((_req, res) => void res.status(404).json({ error: { code: "not_found", message: "Not found" } }));
  // express 5 forwards thrown errors here; never leak a stack or a secret to the client.
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) return void res.end();
    const format: WireFormat = req.path.startsWith("/v1/messages") ? "anthropic" : "openai";
    if (req.path.startsWith("/v1")) return clientError(res, format, 500, "internal_error", "Switchyard failed to handle the request");
    res.status(500).json({ error: { code: "internal_error", message: (err as Error)?.message ?? "internal error" } });
  });
  return app;
}
