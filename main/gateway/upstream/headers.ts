// Builds the headers of one upstream call. Client headers are never copied wholesale: session and
// lease headers, client keys and cookies must not leak upstream (R7.1, R7.2).
import type { IncomingHttpHeaders } from "node:http";
import type { Provider, WireFormat } from "../../../shared/types.js";

const DEFAULT_ANTHROPIC_VERSION = "2023-06-01";

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

export function buildUpstreamHeaders(
  provider: Provider,
  upstreamFormat: WireFormat,
  clientFormat: WireFormat,
  secret: string | null,
  clientHeaders: IncomingHttpHeaders,
  userAgent: string,
): Record<string, string> {
  const h: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "user-agent": userAgent,
  };
  if (upstreamFormat === "anthropic") {
    h["anthropic-version"] = (clientFormat === "anthropic" && first(clientHeaders["anthropic-version"])) || DEFAULT_ANTHROPIC_VERSION;
    const beta = clientFormat === "anthropic" ? clientHeaders["anthropic-beta"] : undefined;
    if (beta) h["anthropic-beta"] = Array.isArray(beta) ? beta.join(",") : beta;
    if (secret) h["x-api-key"] = secret;
  } else if (upstreamFormat === "gemini") {
    if (secret) h["x-goog-api-key"] = secret;
  } else if (secret) {
    h.authorization = `Bearer ${secret}`;
  }
  if (provider.format === "simulator") {
    // The simulator takes fault programs per request (a client header) or per provider
    // (`options.fault` in its config); the request's own choice wins (R0.5).
    const fault = first(clientHeaders["x-sim-fault"]) ?? (provider.options.fault ? JSON.stringify(provider.options.fault) : undefined);
    if (fault) h["x-sim-fault"] = fault;
  }
  return h;
}
