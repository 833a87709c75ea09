// API.md: any other path under /v1/ or /v1beta/ (or under the roots R25.7 serves without `/v1`) gets
// a 404 in the format the path implies, and a request-log row, so a client calling what Switchyard
// lacks shows up in the log instead of retrying in silence.
import type { RequestHandler } from "express";
import type { WireFormat } from "../../../shared/types.js";
import type { Clock } from "../../engine/ports.js";
import { clientError } from "./clientRoutes.js";
import { contextOf } from "./edge.js";
import { clientHalves } from "../formats/index.js";
import type { RequestLogSink } from "../context/ports.js";
import { unservedEntry } from "../context/requestRecord.js";
import { clientKindOf } from "../context/trace.js";

/** The client format a path implies: the format whose route prefix matches longest (each half names its own, R22.5). */
export function formatOfUnknownPath(path: string): WireFormat {
  const lower = path.toLowerCase();
  let best: { format: WireFormat; length: number } = { format: "openai", length: -1 };
  for (const half of clientHalves()) {
    for (const prefix of half.routePrefixes) if (lower.startsWith(prefix) && prefix.length > best.length) best = { format: half.format, length: prefix.length };
  }
  return best.format;
}

/** R25.7: the roots of the client paths served without `/v1`; anything else under them is a client's 404. */
export const UNPREFIXED_CLIENT_ROOTS: readonly string[] = ["/chat", "/messages", "/responses", "/models"];

export function unknownClientRoute(deps: { requestLog: RequestLogSink; clock: Clock }): RequestHandler {
  return (req, res) => {
    const path = req.originalUrl.split("?")[0] ?? req.originalUrl;
    // R25.7: an unprefixed path implies the format its `/v1` path would.
    const format = formatOfUnknownPath(path.startsWith("/v1") ? path : `/v1${path}`);
    const now = deps.clock.now();
    clientError(res, format, 404, "not_found", `No route ${req.method} ${path}`);
    deps.requestLog.append(unservedEntry(contextOf(req).requestId, format, clientKindOf(req.headers), now, { status: 404, errorCode: "not_found", now }));
  };
}
