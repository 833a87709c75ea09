// DNS-rebinding and cross-origin guards (API.md: every non-loopback Host -> 403; /api refuses
// cross-origin browser requests). Modelled on the MCP SDK's hostHeaderValidation: check the
// Host before anything reads the body.
import type { IncomingHttpHeaders } from "node:http";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { ERROR_CODES, type ErrorCode } from "../../shared/errorCodes.js";
import { sendPlainJson } from "../gateway/context/plainJson.js";

/** `name` or `name:port` / `[v6]` or `[v6]:port`; anything else (userinfo, paths) is refused outright. */
const HOST_HEADER = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?$/;

/** Hostname of a Host header, lowercased and normalised by the WHATWG URL parser; null if malformed. */
function hostnameOf(hostHeader: string): string | null {
  if (!HOST_HEADER.test(hostHeader)) return null;
  try {
    return new URL(`http://${hostHeader}`).hostname.replace(/\.$/, "");
  } catch {
    return null;
  }
}

export function isLoopbackHostname(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  if (name === "[::1]") return true;
  // The URL parser has already rewritten shorthand forms such as 127.1 to dotted quads.
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

export function isLoopbackHost(hostHeader: string | undefined): boolean {
  if (!hostHeader) return false;
  const hostname = hostnameOf(hostHeader);
  return hostname !== null && isLoopbackHostname(hostname);
}

export interface HostGuardOptions {
  /** Extra host names (without port) to accept, for an operator who deliberately exposes the port. */
  allowedHostnames?: readonly string[];
}

/** Whether a Host header names this server: a loopback name, or one the operator exposed. */
export function hostAcceptor(options: HostGuardOptions = {}): (host: string | undefined) => boolean {
  const extra = new Set((options.allowedHostnames ?? []).map((h) => h.toLowerCase()));
  return (host) => {
    const hostname = host ? hostnameOf(host) : null;
    return hostname !== null && (isLoopbackHostname(hostname) || extra.has(hostname));
  };
}

/**
 * 403 for any request whose Host is not a loopback name. The body is readable by both client
 * formats: OpenAI reads `error.{message,type,code}`, Anthropic `type` + `error.{type,message}`.
 */
export function createHostGuard(options: HostGuardOptions = {}): RequestHandler {
  const accepts = hostAcceptor(options);
  // A client sends the same Host on every request: the verdict on the last accepted value is kept
  // (only an accepted one, so a refused Host is judged afresh and nothing grows).
  let lastAccepted: string | null = null;
  return (req: Request, res: Response, next: NextFunction) => {
    const host = req.headers.host;
    if (host !== undefined && host === lastAccepted) return next();
    if (accepts(host)) {
      lastAccepted = host ?? null;
      return next();
    }
    sendPlainJson(res, ERROR_CODES.forbidden_host.status, {
      type: "error",
      error: {
        type: "permission_error",
        code: "forbidden_host" satisfies ErrorCode,
        message: "Host header is not a loopback address; Switchyard only answers local requests",
      },
    });
  };
}

/** True when the browser-sent Origin is exactly this server (same scheme-less host:port, loopback). */
export function isSameLoopbackOrigin(headers: IncomingHttpHeaders): boolean {
  const origin = headers.origin;
  const host = headers.host;
  if (origin === undefined) return true;
  if (!host) return false;
  try {
    const from = new URL(origin);
    if (from.protocol !== "http:" && from.protocol !== "https:") return false;
    const self = new URL(`http://${host}`);
    return from.host === self.host && isLoopbackHostname(from.hostname);
  } catch {
    // "null" (sandboxed frames, file://) and garbage are cross-origin by definition.
    return false;
  }
}
