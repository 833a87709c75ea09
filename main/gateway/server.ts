// The express app on 127.0.0.1: client routes (/v1), management routes (/api), the dashboard.
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { existsSync } from "node:fs";
import path from "node:path";
import type { AppSettings, Provider, WireFormat } from "../../shared/types.js";
import type { Store } from "../store/types.js";
import { errorBody, estimateInputTokens } from "./formats/index.js";
import type { Pipeline } from "./pipeline.js";
import { resolveModel } from "./resolve.js";
import type { UpstreamClient } from "./upstream/client.js";
import { readBodyText } from "./upstream/client.js";
import { buildUpstreamHeaders } from "./upstream/headers.js";

export interface GatewayAppDeps {
  store: Store;
  pipeline: Pipeline;
  upstream: UpstreamClient;
  appSettings: () => AppSettings;
  version: string;
  userAgent: string;
  hostGuard: RequestHandler;
  apiRouter: express.Router;
  dashboardDir: string | null;
  baseUrlFor: (provider: Provider) => Promise<string>;
}

function clientError(res: Response, format: WireFormat, status: number, code: string, message: string): void {
  res.status(status).json(errorBody(format, status, code, message));
}

/** JSON body parsing per client route, with the live `maxBodyMb` limit and errors in the client's format. */
function clientJson(format: WireFormat, settings: () => AppSettings): RequestHandler {
  const parsers = new Map<number, RequestHandler>();
  return (req, res, next) => {
    const mb = settings().maxBodyMb;
    let parser = parsers.get(mb);
    if (!parser) {
      parser = express.json({ limit: mb * 1024 * 1024, type: () => true });
      parsers.set(mb, parser);
    }
    parser(req, res, (err?: unknown) => {
      const e = err as { type?: string; status?: number } | undefined;
      if (e?.type === "entity.too.large" || e?.status === 413) return clientError(res, format, 413, "payload_too_large", `Request body exceeds the ${mb} MB limit (setting maxBodyMb)`);
      if (err) return clientError(res, format, 400, "invalid_request", "Request body is not valid JSON");
      if (!req.body || typeof req.body !== "object" || Array.isArray(req.body)) return clientError(res, format, 400, "invalid_request", "Request body must be a JSON object");
      next();
    });
  };
}

function presentedKey(req: Request): string | null {
  const auth = req.headers.authorization;
  if (auth?.startsWith("Bearer ")) return auth.slice(7).trim();
  const x = req.headers["x-api-key"];
  return (Array.isArray(x) ? x[0] : x) ?? null;
}

/** R1.7: client keys are off by default for loopback clients. */
function clientAuth(format: WireFormat, deps: GatewayAppDeps): RequestHandler {
  return (req, res, next) => {
    const settings = deps.appSettings();
    if (!settings.proxyEnabled) return clientError(res, format, 503, "proxy_disabled", "The Switchyard proxy is switched off (tray: Proxy on/off)");
    if (!settings.requireClientKey) return next();
    const key = presentedKey(req);
    const info = key ? deps.store.apiKeys.verify(key) : null;
    if (info) {
      res.locals.allowedConnections = info.allowedConnections.length ? new Set(info.allowedConnections) : null;
      return next();
    }
    clientError(res, format, 401, "unauthorized", "A valid Switchyard API key is required (Authorization: Bearer sk-sy-… or x-api-key)");
  };
}

function validateGenerate(format: WireFormat): RequestHandler {
  return (req, res, next) => {
    const body = req.body as Record<string, unknown>;
    if (typeof body.model !== "string" || !body.model) return clientError(res, format, 400, "invalid_request", "model: required string");
    const field = format === "gemini" ? "contents" : "messages";
    if (!Array.isArray(body[field])) return clientError(res, format, 400, "invalid_request", `${field}: required array`);
    if (format === "anthropic" && body.max_tokens !== undefined && typeof body.max_tokens !== "number") return clientError(res, format, 400, "invalid_request", "max_tokens: must be a number");
    next();
  };
}

export function createGatewayApp(deps: GatewayAppDeps): express.Express {
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

  for (const [route, format] of [["/v1/chat/completions", "openai"], ["/v1/messages", "anthropic"]] as const) {
    app.post(route, clientAuth(format, deps), clientJson(format, deps.appSettings), validateGenerate(format), (req, res) =>
      deps.pipeline.handle({ format, body: req.body as Record<string, unknown>, headers: req.headers, res, allowedConnections: res.locals.allowedConnections ?? null }),
    );
  }

  app.post("/v1/messages/count_tokens", clientAuth("anthropic", deps), clientJson("anthropic", deps.appSettings), async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const model = typeof body.model === "string" ? body.model : "";
    const resolution = resolveModel(model, { providers: deps.store.providers.list(), getCombo: (n) => deps.store.combos.get(n), aliases: deps.appSettings().aliases });
    if (!resolution) return clientError(res, "anthropic", 404, "model_not_found", `Unknown model: ${model || "(none)"}`);
    // Exact count from an Anthropic upstream when one serves the model; otherwise a documented estimate.
    for (const target of resolution.targets) {
      if (target.provider.format !== "anthropic") continue;
      const conn = deps.store.connections.list({ provider: target.provider.id }).find((c) => c.active && c.hasSecret);
      if (!conn) continue;
      try {
        const headers = buildUpstreamHeaders(target.provider, "anthropic", "anthropic", deps.store.connections.getSecret(conn.id), req.headers, deps.userAgent);
        const up = await deps.upstream.send({
          url: (await deps.baseUrlFor(target.provider)).replace(/\/+$/, "") + "/v1/messages/count_tokens",
          headers, body: JSON.stringify({ ...body, model: target.model }), signal: AbortSignal.timeout(30_000), headersTimeoutMs: 30_000, bodyTimeoutMs: 30_000,
        });
        const text = await readBodyText(up.body);
        if (up.status === 200) return void res.status(200).type("application/json").send(text);
      } catch {
        // Fall through to the estimate: counting must not fail because one upstream is down.
      }
    }
    res.setHeader("X-Switchyard-Token-Count", "estimate");
    res.json(estimateInputTokens(body));
  });

  app.get("/v1/models", (_req, res) => {
    const created = Math.floor(Date.now() / 1000);
    const data: Array<{ id: string; object: "model"; created: number; owned_by: string }> = [];
    for (const p of deps.store.providers.list()) for (const m of p.models) data.push({ id: `${p.id}/${m}`, object: "model", created, owned_by: p.id });
    for (const alias of Object.keys(deps.appSettings().aliases)) data.push({ id: alias, object: "model", created, owned_by: "switchyard-alias" });
    for (const c of deps.store.combos.list()) data.push({ id: c.name, object: "model", created, owned_by: "switchyard-combo" });
    res.json({ object: "list", data });
  });

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
