// Stage "attempt": one upstream call for one connection, translated to the upstream's format and
// back (JSON or SSE). It reports what happened; classifying and recording is the next stage's.
import type { IncomingHttpHeaders } from "node:http";
import type { Connection, WireFormat } from "../../../shared/types.js";
import { adapterFor, createStreamTranslator, extractUsage, isStreamRequest, receivedText, requestTextWithModel, translateRequest, translateResponse, upstreamFormatOf, upstreamPath } from "../formats/index.js";
import type { ConnectionsPort } from "../ports.js";
import type { Target } from "../resolve.js";
import type { ClientResponse } from "../response/clientResponse.js";
import { relayStream, type StreamBudgets, type StreamOutcome } from "../streaming/relay.js";
import { UpstreamCallError, type CallUpstream, type UpstreamCall } from "../upstream/call.js";
import type { UpstreamResponse } from "../upstream/client.js";

/** The client's request as the routes accepted it. */
export interface ClientRequest {
  format: WireFormat;
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  /** The model name the client asked for (responses carry it back). */
  model: string;
}

type UsageSummary = ReturnType<typeof extractUsage>;

export type AttemptOutcome =
  | { kind: "transport_failure"; code: string }
  | { kind: "upstream_error"; status: number; headers: UpstreamResponse["headers"]; bodyText: string; upstreamFormat: WireFormat }
  | { kind: "invalid_json"; headers: UpstreamResponse["headers"] }
  | { kind: "json"; status: number; body: Record<string, unknown>; usage: UsageSummary; headers?: UpstreamResponse["headers"] }
  | (StreamOutcome & { usage: UsageSummary; headers?: UpstreamResponse["headers"] });

export interface AttemptDeps {
  callUpstream: CallUpstream;
  connections: ConnectionsPort;
  streamBudgets: () => StreamBudgets;
}

/** JSON bodies are read whole; a translation needs all of it (R13.6 still bounds the wait). */
const MAX_JSON_BODY_BYTES = 256 * 1024 * 1024;

export async function runAttempt(deps: AttemptDeps, request: ClientRequest, client: ClientResponse, target: Target, connection: Connection): Promise<AttemptOutcome> {
  const { provider, model } = target;
  const upstreamFormat = upstreamFormatOf(provider, request.format);
  const stream = isStreamRequest(request.format, request.body);
  const { body, dropped } = upstreamBody(request, upstreamFormat, model);
  let call: UpstreamCall;
  try {
    call = await deps.callUpstream({
      provider, upstreamFormat, clientFormat: request.format, secret: deps.connections.secret(connection.id),
      clientHeaders: request.headers, path: upstreamPath(upstreamFormat, model, stream), body, signal: client.signal,
    });
  } catch (err) {
    return transportFailure(err);
  }
  const { response } = call;
  if (response.status >= 400) {
    const bodyText = await call.errorText().catch(() => "");
    return { kind: "upstream_error", status: response.status, headers: response.headers, bodyText, upstreamFormat };
  }
  client.answeredBy(connection.id, dropped);
  const isSse = String(response.headers["content-type"] ?? "").includes("text/event-stream");
  if (stream && isSse) return relayAttempt(deps, request, client, call, upstreamFormat);
  let text: string;
  try {
    text = await call.bodyText(MAX_JSON_BODY_BYTES);
  } catch (err) {
    // A reset or a deadline while the JSON body arrives: nothing reached the client yet.
    return transportFailure(err);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: "invalid_json", headers: response.headers };
  }
  const out = translateResponse(upstreamFormat, request.format, json, { clientModel: request.model, requestId: client.requestId });
  return { kind: "json", status: response.status, body: out, usage: extractUsage(upstreamFormat, json), headers: response.headers };
}

function upstreamBody(request: ClientRequest, upstreamFormat: WireFormat, model: string): { body: unknown; dropped: string[] } {
  const raw = upstreamFormat === request.format ? receivedText(request.body) : undefined;
  const text = raw === undefined ? null : requestTextWithModel(raw, request.model, model);
  return text === null ? translateRequest(request.format, upstreamFormat, request.body, model) : { body: text, dropped: [] };
}

function transportFailure(err: unknown): AttemptOutcome {
  if (err instanceof UpstreamCallError) return { kind: "transport_failure", code: err.code };
  throw err;
}

async function relayAttempt(deps: AttemptDeps, request: ClientRequest, client: ClientResponse, call: UpstreamCall, upstreamFormat: WireFormat): Promise<AttemptOutcome> {
  const translator = createStreamTranslator(upstreamFormat, request.format, {
    clientModel: request.model,
    requestId: client.requestId,
    includeUsage: adapterFor(request.format).wantsStreamUsage(request.body),
  });
  const outcome = await relayStream({ call, upstreamFormat, translator, client, budgets: deps.streamBudgets() });
  return { ...outcome, usage: translator.usage(), headers: call.response.headers };
}
