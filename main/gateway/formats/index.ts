// Wire-format translation (R1.4, R1.5): requests, JSON responses and SSE streams between
// OpenAI Chat Completions, Anthropic Messages and Gemini generateContent, through one hub.
// Everything a format knows about itself is in its client and upstream halves (adapters.ts);
// these functions are the gateway's format-by-name entry points to them. Pure: no I/O, no shared state.

import type { ErrorCode, StatusOf } from "../../../shared/errorCodes.js";
import type { WireFormat } from "../../../shared/types.js";
import type { LateAnswer } from "./adapter.js";
import { clientHalf, sameFormatHalf, upstreamHalf } from "./adapters.js";
import type { FrameKind, TranslateContext, UpstreamEvent } from "./types.js";
import { summariseUsage, type UsageSummary } from "./usage.js";
import { asRecord, DroppedFields, parseJson } from "./values.js";

export type { WireFormat } from "../../../shared/types.js";
export type {
  ClientHalf,
  ClientHeaders,
  LateAnswer,
  PassthroughTracker,
  ProviderAdapter,
  SameFormatHalf,
  StreamDecoder,
  StreamEncoder,
  UpstreamContract,
  UpstreamHalf,
} from "./adapter.js";
export type { FrameKind, OutFrame, StreamTranslator, TranslateContext } from "./types.js";
export type { UsageSummary } from "./usage.js";
export { clientHalf, clientHalves, providerAdapterFor, sameFormatHalf, quotaHeaderFamilies, upstreamFormatOf, upstreamHalf, upstreamHalves } from "./adapters.js";
export { createStreamTranslator } from "./stream.js";
export { requestTextWithModel, responseTextWithModel } from "./passthrough.js";
export { estimateInputTokens } from "./tokens.js";

/**
 * Request translation through one hub shape (OpenAI chat). Same format: body returned
 * unchanged except `model` set to upstreamModel (Gemini bodies carry no model). `dropped`
 * lists unmappable fields (for X-Switchyard-Dropped-Fields).
 */
export function translateRequest(from: WireFormat, to: WireFormat, body: Record<string, unknown>, upstreamModel: string): { body: Record<string, unknown>; dropped: string[] } {
  if (from === to) return { body: sameFormatHalf(to).withUpstreamModel(body, upstreamModel), dropped: [] };
  const dropped = new DroppedFields();
  const hub = clientHalf(from).toHub(body, dropped);
  return { body: upstreamHalf(to).fromHub(hub, upstreamModel, dropped), dropped: dropped.list() };
}

/** Non-streaming response translation; `model` in the result is ctx.clientModel (never the upstream id). */
export function translateResponse(from: WireFormat, to: WireFormat, body: unknown, ctx: TranslateContext): Record<string, unknown> {
  if (from === to) return sameFormatHalf(to).withClientModel(body, ctx.clientModel);
  return clientHalf(to).hubToResponse(upstreamHalf(from).responseToHub(body, ctx.requestId), ctx);
}

/** Path appended to the provider baseUrl. */
export function upstreamPath(format: WireFormat, model: string, stream: boolean): string {
  return upstreamHalf(format).path(model, stream);
}

/**
 * Is this a streaming request in this client format (body.stream === true)? Translated
 * OpenAI upstream requests always ask for stream_options.include_usage (translateRequest).
 */
export function isStreamRequest(format: WireFormat, body: Record<string, unknown>): boolean {
  return clientHalf(format).isStreamRequest(body);
}

/** Extract usage from a JSON response of the given format. */
export function extractUsage(format: WireFormat, body: unknown): UsageSummary {
  return summariseUsage(upstreamHalf(format).usage(body));
}

export function errorBody<C extends ErrorCode>(
  format: WireFormat,
  status: StatusOf<C>,
  code: C,
  message: string,
  extra?: Record<string, unknown>,
  retryAfterSeconds?: number | null,
): Record<string, unknown> {
  return clientHalf(format).errorBody(status, code, message, extra, retryAfterSeconds);
}

/** A mid-stream error event in `format`; `late` for a final answer decided after the headers went out (R24.4). */
export function errorFrame(format: WireFormat, code: ErrorCode, message: string, lastWritten?: string, late?: LateAnswer): string {
  return clientHalf(format).errorFrame(code, message, lastWritten, late);
}

/** What an upstream event means for the stream watchdogs (R13.4, D13), without translating it. */
export function classifyEvent(format: WireFormat, evt: UpstreamEvent): FrameKind {
  const payload = evt.data.trim() === "[DONE]" ? undefined : asRecord(parseJson(evt.data));
  return upstreamHalf(format).classify(evt, payload);
}

/** UTF-8 bytes of text deltas in one upstream event, for the throughput watchdog (R13.5). */
export function textDeltaBytes(format: WireFormat, evt: UpstreamEvent): number {
  return upstreamHalf(format).textDeltaBytes(evt);
}

/** Tool-call or reasoning activity suspends the throughput watchdog while it lasts. */
export function isToolOrReasoningEvent(format: WireFormat, evt: UpstreamEvent): boolean {
  return upstreamHalf(format).isToolOrReasoningEvent(evt);
}
