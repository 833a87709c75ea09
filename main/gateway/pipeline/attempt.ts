// Stage "attempt": one upstream call for one connection, translated to the upstream's format and
// back (JSON or SSE). It reports what happened; classifying and recording is the next stage's.
import type { IncomingHttpHeaders } from "node:http";
import type { Connection, WireFormat } from "../../../shared/types.js";
import type { Clock } from "../../engine/ports.js";
import {
  clientHalf,
  createStreamTranslator,
  extractUsage,
  isStreamRequest,
  requestTextWithModel,
  responseTextWithModel,
  sameFormatHalf,
  translateRequest,
  translateResponse,
  upstreamFormatOf,
  upstreamPath,
} from "../formats/index.js";
import type { StreamTranscript } from "../context/streamTranscript.js";
import { egressIpOf } from "../features/egress/siblingLock.js";
import type { ConnectionsPort } from "../context/ports.js";
import type { Target } from "../context/resolve.js";
import type { ClientResponse } from "../context/clientResponse.js";
import { relayStream, type StreamBudgets } from "./streaming/relay.js";
import { UpstreamCallError, type CallUpstream, type ExecutionDeadline, type SendCall, type UpstreamCall } from "../upstream/call.js";
import type { Cancellation } from "../upstream/cancellation.js";

/** The client's request as the routes accepted it. */
export interface ClientRequest {
  format: WireFormat;
  body: Record<string, unknown>;
  /** The JSON text `body` was parsed from (absent after the generic parser). */
  bodyText?: string;
  headers: IncomingHttpHeaders;
  /** The model name the client asked for (responses carry it back). */
  model: string;
}

import type { AttemptOutcome } from "../context/attempt.js";
export type { AttemptOutcome };

export interface AttemptDeps {
  callUpstream: CallUpstream;
  /** Stamps the first byte (R4.10) on the pipeline's clock. */
  clock: Clock;
  connections: ConnectionsPort;
  streamBudgets: () => StreamBudgets;
}

/** What the request's features make of one attempt (R22: beforeAttempt, send) and the stream's transcript. */
export interface AttemptHooks {
  /** The body this connection is sent (provenance strip, a continuation's prefix). */
  body(body: Record<string, unknown>): Record<string, unknown>;
  /** The call, through the features that wrap it (the usage wall). */
  send(send: SendCall): Promise<UpstreamCall>;
  /** R13.3: the text the stream sent so far, when mid-stream continuation is on. */
  transcript: StreamTranscript | null;
}

/** No feature: the body as it is, the call sent straight. */
const PLAIN: AttemptHooks = { body: (body) => body, send: (send) => send(undefined), transcript: null };

/** JSON bodies are read whole; a translation needs all of it (R13.6 still bounds the wait). */
const MAX_JSON_BODY_BYTES = 256 * 1024 * 1024;

export async function runAttempt(
  deps: AttemptDeps,
  request: ClientRequest,
  client: ClientResponse,
  target: Target,
  connection: Connection,
  hooks: AttemptHooks = PLAIN,
  /** R9.1: the admitted job's deadline, enforced by the upstream call with its own. */
  execution?: ExecutionDeadline,
  /** What stops the call besides its deadlines: the client, or a combo's target deadline wrapping it. */
  cancel: Cancellation = client.departure,
): Promise<AttemptOutcome> {
  const { provider, model } = target;
  const upstreamFormat = upstreamFormatOf(provider, request.format);
  const stream = isStreamRequest(request.format, request.body);
  const { transcript } = hooks;
  const { body, dropped } = upstreamBody(request, hooks.body(request.body), upstreamFormat, model);
  let call: UpstreamCall;
  try {
    // A login's account holds no secret: its credential is the request's own (features/clientLogins.ts).
    const secret = connection.accountOf === null ? deps.connections.secret(connection.id) : null;
    call = await hooks.send((extraHeaders) =>
      deps.callUpstream({
        provider,
        upstreamFormat,
        clientFormat: request.format,
        secret,
        clientHeaders: request.headers,
        path: upstreamPath(upstreamFormat, model, stream),
        body,
        signal: cancel,
        localAddress: egressIpOf(connection),
        extraHeaders,
        execution,
      }),
    );
  } catch (err) {
    return transportFailure(err);
  }
  const { response } = call;
  const firstByteAt = deps.clock.now();
  if (response.status >= 400) {
    const bodyText = await call.errorText().catch(() => "");
    return { kind: "upstream_error", status: response.status, headers: response.headers, bodyText, upstreamFormat, firstByteAt };
  }
  client.answeredBy(connection.id, dropped, upstreamFormat === request.format ? response.headers : undefined);
  const isSse = String(response.headers["content-type"] ?? "").includes("text/event-stream");
  if (stream && isSse) return relayAttempt(deps, request, client, call, upstreamFormat, transcript, firstByteAt);
  let text: string;
  try {
    text = await call.bodyText(MAX_JSON_BODY_BYTES);
  } catch (err) {
    // A reset or a deadline while the JSON body arrives: nothing reached the client yet.
    return { ...transportFailure(err), firstByteAt };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: "invalid_json", status: response.status, headers: response.headers, firstByteAt };
  }
  const same = upstreamFormat === request.format ? responseTextWithModel(upstreamFormat, text, json, request.model) : null;
  const out = same ?? translateResponse(upstreamFormat, request.format, json, { clientModel: request.model, requestId: client.requestId, clientBody: request.body });
  return { kind: "json", status: response.status, body: out, usage: extractUsage(upstreamFormat, json), headers: response.headers, firstByteAt };
}

/**
 * A same-format body as the client's own JSON text with only the model replaced, when the body is
 * the one received (a rebuilt body, such as a continuation's, has no text and is serialised).
 */
function upstreamBody(request: ClientRequest, body: Record<string, unknown>, upstreamFormat: WireFormat, model: string): { body: unknown; dropped: string[] } {
  const raw = upstreamFormat === request.format && body === request.body ? request.bodyText : undefined;
  const text = raw === undefined ? null : sameFormatHalf(upstreamFormat).modelInPath ? raw : requestTextWithModel(raw, request.model, model);
  return text === null ? translateRequest(request.format, upstreamFormat, body, model) : { body: text, dropped: [] };
}

function transportFailure(err: unknown): AttemptOutcome {
  if (err instanceof UpstreamCallError) return { kind: "transport_failure", failure: err.failure };
  throw err;
}

async function relayAttempt(
  deps: AttemptDeps,
  request: ClientRequest,
  client: ClientResponse,
  call: UpstreamCall,
  upstreamFormat: WireFormat,
  transcript: StreamTranscript | null,
  firstByteAt: number,
): Promise<AttemptOutcome> {
  const translator = createStreamTranslator(upstreamFormat, request.format, {
    clientModel: request.model,
    requestId: client.requestId,
    includeUsage: clientHalf(request.format).wantsStreamUsage(request.body),
    clientBody: request.body,
  });
  const stitch = transcript?.resuming ? transcript.stitch() : null;
  const outcome = await relayStream({ call, upstreamFormat, translator, client, budgets: deps.streamBudgets(), transcript, stitch });
  return { ...outcome, usage: translator.usage(), headers: call.response.headers, firstByteAt };
}
