// The edges of the client routes: the request id on every answer, the proxy switch and client
// keys (R1.7), the JSON body limit, and the request shape (R1.9) — all before any upstream call.
import { randomUUID } from "node:crypto";
import express, { type Request, type RequestHandler, type Response } from "express";
import type { ApiKeyInfo, AppSettings, WireFormat } from "../../shared/types.js";
import { CLIENT_KEY_PREFIX } from "../../shared/catalog.js";
import { sendPlainJson } from "../api/plainJson.js";
import { clientHalf, errorBody } from "./formats/index.js";

/** The id of this client request, made on first use (it names the request-log entry too). */
export function requestIdOf(res: Response): string {
  return (res.locals.requestId ??= randomUUID()) as string;
}

/**
 * API.md: every client response carries its request id and attempt count, errors included.
 * The proxied answers write theirs with their status line; every other answer stamps here.
 */
export function stampClientHeaders(res: Response, attempts = 0): void {
  res.setHeader("X-Switchyard-Request-Id", requestIdOf(res));
  res.setHeader("X-Switchyard-Attempts", String(attempts));
}

export function clientError(res: Response, format: WireFormat, status: number, code: string, message: string): void {
  if (!res.hasHeader("X-Switchyard-Request-Id")) stampClientHeaders(res);
  sendPlainJson(res, status, errorBody(format, status, code, message));
}

/** JSON body parsing per client route, with the live `maxBodyMb` limit and errors in the client's format. */
export function clientJson(format: WireFormat, settings: () => AppSettings): RequestHandler {
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

/**
 * The client key a request presents, unverified: Authorization: Bearer, x-api-key, or Gemini's
 * x-goog-api-key or `?key=` (R17.1).
 */
export function presentedKey(req: Request): string | null {
  const auth = req.headers.authorization;
  if (auth?.startsWith("Bearer ")) return auth.slice(7).trim();
  for (const name of ["x-api-key", "x-goog-api-key"]) {
    const value = req.headers[name];
    const key = Array.isArray(value) ? value[0] : value;
    if (key) return key;
  }
  return keyInQuery(req.url ?? "");
}

/** Gemini's `?key=` (read from the raw URL: the generation route runs before express parses a query). */
function keyInQuery(url: string): string | null {
  const q = url.indexOf("?");
  return q === -1 ? null : new URLSearchParams(url.slice(q + 1)).get("key");
}

export interface ClientGuardDeps {
  appSettings: () => AppSettings;
  verifyClientKey: (key: string) => ApiKeyInfo | null;
}

/** The proxy switch, then R1.7 client keys (off by default for loopback clients). */
export function clientAuth(format: WireFormat, deps: ClientGuardDeps): RequestHandler {
  return (req, res, next) => {
    const settings = deps.appSettings();
    if (!settings.proxyEnabled) return clientError(res, format, 503, "proxy_disabled", "The Switchyard proxy is switched off (tray: Proxy on/off)");
    const key = presentedKey(req);
    if (!settings.requireClientKey) {
      // Keys are optional here, but a Switchyard key a client sends anyway still names it: its
      // usage and its budget count (R18). Other keys (a client's placeholder) are not looked up.
      const info = key?.startsWith(CLIENT_KEY_PREFIX) ? deps.verifyClientKey(key) : null;
      if (info) res.locals.clientKey = info;
      return next();
    }
    const info = key ? deps.verifyClientKey(key) : null;
    if (info) {
      // R7.2: a lease fence binds the key, so the verified key is kept for it.
      res.locals.clientKey = info;
      res.locals.allowedConnections = info.allowedConnections.length ? new Set(info.allowedConnections) : null;
      return next();
    }
    clientError(res, format, 401, "unauthorized", "A valid Switchyard API key is required (Authorization: Bearer sk-sy-… or x-api-key)");
  };
}

/** R1.9: the first thing wrong with a generation request's shape, or null. Unknown fields are fine. */
export function shapeProblem(format: WireFormat, body: Record<string, unknown>): string | null {
  return clientHalf(format).shapeProblem(body);
}
