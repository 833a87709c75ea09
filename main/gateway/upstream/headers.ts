// Builds the headers of one upstream call. Client headers are never copied wholesale: session and
// lease headers, client keys and cookies must not leak upstream (R7.1, R7.2). Which client headers
// may pass, and how the secret is presented, is each format's adapter's decision.
import type { IncomingHttpHeaders } from "node:http";
import type { Provider, WireFormat } from "../../../shared/types.js";
import { providerAdapterFor, upstreamHalf } from "../formats/index.js";

export function buildUpstreamHeaders(
  provider: Provider,
  upstreamFormat: WireFormat,
  clientFormat: WireFormat,
  secret: string | null,
  clientHeaders: IncomingHttpHeaders,
  userAgent: string,
): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "user-agent": userAgent,
    ...upstreamHalf(upstreamFormat).authHeaders(secret, clientHeaders, clientFormat),
    ...providerAdapterFor(provider.format).extraHeaders(provider, clientHeaders),
  };
}
