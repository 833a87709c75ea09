// The edges of the client routes: the request id on every answer, the proxy switch and client
// keys (R1.7), the JSON body limit, and the request shape (R1.9) — all before any upstream call.
// Each is a plain function over the request's RequestContext (edge.ts); express's routes take them as
// middleware, the generation routes (generationRoute.ts) call them in turn.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RequestHandler } from "express";
import type { ApiKeyInfo, AppSettings, WireFormat } from "../../../shared/types.js";
import { CLIENT_KEY_PREFIX } from "../../../shared/catalog.js";
import { isRecord } from "../../../shared/records.js";
import type { ErrorCode, StatusOf } from "../../../shared/errorCodes.js";
import { sendPlainJson } from "../context/plainJson.js";
import { readJsonBody } from "./clientBody.js";
import { contextOf, keyVerified } from "./edge.js";
import type { RequestContext } from "../context/requestContext.js";
import { clientHalf, errorBody } from "../formats/index.js";
import { readLogin } from "../formats/login.js";
import { ClientLogin } from "../context/clientLogin.js";

/**
 * API.md: every client response carries its request id and attempt count, errors included.
 * The proxied answers write theirs with their status line; every other answer stamps here.
 */
export function stampClientHeaders(res: ServerResponse, attempts = 0): void {
  res.setHeader("X-Switchyard-Request-Id", contextOf(res.req).requestId);
  res.setHeader("X-Switchyard-Attempts", String(attempts));
}

/** A catalogue code (shared/errorCodes.ts) in the client's format, with the status the catalogue gives it. */
export function clientError<C extends ErrorCode>(res: ServerResponse, format: WireFormat, status: StatusOf<C>, code: C, message: string): void {
  if (!res.hasHeader("X-Switchyard-Request-Id")) stampClientHeaders(res);
  sendPlainJson(res, status, errorBody(format, status, code, message));
}

/**
 * The JSON object body, read once with the live `maxBodyMb` limit onto the edge; false when an
 * error went out in the client's format (or the client left mid-body).
 */
export async function readClientBody(format: WireFormat, limitMb: number, req: IncomingMessage, res: ServerResponse, ctx: RequestContext): Promise<boolean> {
  const read = await readJsonBody(req, limitMb * 1024 * 1024);
  if (read.kind === "aborted") return false;
  if (read.kind === "too_large") return (clientError(res, format, 413, "payload_too_large", `Request body exceeds the ${limitMb} MB limit (setting maxBodyMb)`), false);
  if (read.kind === "invalid") return (clientError(res, format, 400, "invalid_request", "Request body is not valid JSON"), false);
  if (!isRecord(read.value)) return (clientError(res, format, 400, "invalid_request", "Request body must be a JSON object"), false);
  ctx.bodyRead(read.value, read.text ?? undefined);
  return true;
}

/** readClientBody as the middleware of an express client route. */
export function clientBody(format: WireFormat, settings: () => AppSettings): RequestHandler {
  return async (req, res, next) => {
    if (await readClientBody(format, settings().maxBodyMb, req, res, contextOf(req))) next();
  };
}

/**
 * The client key a request presents, unverified: Authorization: Bearer, x-api-key, or Gemini's
 * x-goog-api-key or `?key=` (R17.1).
 */
export function presentedKey(req: IncomingMessage): string | null {
  // R21.3: beside a login, the Switchyard key comes in a header of its own.
  const own = req.headers["x-switchyard-key"];
  const ownKey = Array.isArray(own) ? own[0] : own;
  if (ownKey) return ownKey.trim();
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

/** The proxy switch, then R1.7 client keys (off by default for loopback clients); false when refused. */
export function admitsClient(format: WireFormat, deps: ClientGuardDeps, req: IncomingMessage, res: ServerResponse, ctx: RequestContext): boolean {
  const refusal = clientRefusal(format, deps, req, ctx);
  if (refusal === null) return true;
  if (refusal === "proxy_disabled") clientError(res, format, 503, "proxy_disabled", PROXY_OFF);
  else clientError(res, format, 401, "unauthorized", KEY_REQUIRED);
  return false;
}

export const PROXY_OFF = "The Switchyard proxy is switched off (tray: Proxy on/off)";
export const KEY_REQUIRED = "A valid Switchyard API key is required (X-Switchyard-Key, or Authorization: Bearer sk-sy-… or x-api-key)";

/**
 * admitsClient's decision without its answer (a WebSocket handshake answers it itself, R26.1):
 * the context learns the key and login; null when admitted.
 */
export function clientRefusal(format: WireFormat, deps: ClientGuardDeps, req: IncomingMessage, ctx: RequestContext): "proxy_disabled" | "unauthorized" | null {
  const settings = deps.appSettings();
  if (!settings.proxyEnabled) return "proxy_disabled";
  const key = presentedKey(req);
  // R21.1, R24.1: a credential in its vendor's own shape is the client's own login (never looked up
  // here); a placeholder or any other value is nothing, and the held keys serve the request.
  ctx.login = loginOf(format, req);
  if (!settings.requireClientKey) {
    // Keys are optional here, but a Switchyard key a client sends anyway still names it: its
    // usage and its budget count (R18). Other keys (a client's placeholder) are not looked up.
    const info = key?.startsWith(CLIENT_KEY_PREFIX) ? deps.verifyClientKey(key) : null;
    if (info) keyVerified(ctx, info, false);
    return null;
  }
  const info = key ? deps.verifyClientKey(key) : null;
  // R7.2: a lease fence binds the key, so the verified key is kept for it.
  if (info) return (keyVerified(ctx, info, true), null);
  return "unauthorized";
}

/** The login the request carries in its format's own headers: a credential of the vendor's shape that is not Switchyard's key. */
function loginOf(format: WireFormat, req: IncomingMessage): ClientLogin | null {
  const url = req.url ?? "";
  const q = url.indexOf("?");
  const own = req.headers["x-switchyard-key"];
  const parts = readLogin(clientHalf(format).login, req.headers, q === -1 ? "" : url.slice(q + 1), (value) => value.startsWith(CLIENT_KEY_PREFIX) || value === own);
  return parts && new ClientLogin(parts, format);
}

/** admitsClient as the middleware of an express client route. */
export function clientAuth(format: WireFormat, deps: ClientGuardDeps): RequestHandler {
  return (req, res, next) => {
    if (admitsClient(format, deps, req, res, contextOf(req))) next();
  };
}

/** R1.9: the first thing wrong with a generation request's shape, or null. Unknown fields are fine. */
export function shapeProblem(format: WireFormat, body: Record<string, unknown>): string | null {
  return clientHalf(format).shapeProblem(body);
}
