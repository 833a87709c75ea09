// Wire-format translation (R1.4, R1.5): requests, JSON responses and SSE streams between
// OpenAI Chat Completions, Anthropic Messages and Gemini generateContent, through one hub.
// Pure: no I/O, no shared state.

import type { WireFormat } from "../../../shared/types.js";
import { anthropicRequestToHub } from "./anthropic/request-in.js";
import { hubToAnthropicRequest } from "./anthropic/request-out.js";
import { anthropicResponseToHub, hubToAnthropicResponse } from "./anthropic/response.js";
import { geminiRequestToHub } from "./gemini/request-in.js";
import { hubToGeminiRequest } from "./gemini/request-out.js";
import { geminiResponseToHub, hubToGeminiResponse } from "./gemini/response.js";
import type { HubRequest, HubResponse } from "./hub.js";
import { hubToOpenaiRequest, openaiRequestToHub } from "./openai/request.js";
import { hubToOpenaiResponse, openaiResponseToHub } from "./openai/response.js";
import type { TranslateContext } from "./types.js";
import { summariseUsage, usageFromFormat, type UsageSummary } from "./usage.js";
import { asRecord, DroppedFields } from "./values.js";

export type { WireFormat } from "../../../shared/types.js";
export type { FrameKind, OutFrame, StreamTranslator, TranslateContext } from "./types.js";
export { classifyEvent } from "./classify.js";
export { errorBody, errorFrame } from "./errors.js";
export { createStreamTranslator } from "./stream.js";
export { estimateInputTokens } from "./tokens.js";
export { isToolOrReasoningEvent, textDeltaBytes } from "./textBytes.js";

function requestToHub(format: WireFormat, body: Record<string, unknown>, dropped: DroppedFields): HubRequest {
  switch (format) {
    case "openai":
      return openaiRequestToHub(body, dropped);
    case "anthropic":
      return anthropicRequestToHub(body, dropped);
    case "gemini":
      return geminiRequestToHub(body, dropped);
  }
}

function hubToRequest(format: WireFormat, hub: HubRequest, model: string, dropped: DroppedFields): Record<string, unknown> {
  switch (format) {
    case "openai":
      return hubToOpenaiRequest(hub, model, dropped);
    case "anthropic":
      return hubToAnthropicRequest(hub, model, dropped);
    case "gemini":
      // Gemini names the model in the URL (see upstreamPath), never in the body.
      return hubToGeminiRequest(hub, dropped);
  }
}

/**
 * Request translation through one hub shape (OpenAI chat). Same format: body returned
 * unchanged except `model` set to upstreamModel (Gemini bodies carry no model). `dropped`
 * lists unmappable fields (for X-Switchyard-Dropped-Fields).
 */
export function translateRequest(
  from: WireFormat,
  to: WireFormat,
  body: Record<string, unknown>,
  upstreamModel: string,
): { body: Record<string, unknown>; dropped: string[] } {
  if (from === to) return { body: to === "gemini" ? body : { ...body, model: upstreamModel }, dropped: [] };
  const dropped = new DroppedFields();
  const hub = requestToHub(from, body, dropped);
  return { body: hubToRequest(to, hub, upstreamModel, dropped), dropped: dropped.list() };
}

function responseToHub(format: WireFormat, body: unknown, requestId: string): HubResponse {
  switch (format) {
    case "openai":
      return openaiResponseToHub(body, requestId);
    case "anthropic":
      return anthropicResponseToHub(body);
    case "gemini":
      return geminiResponseToHub(body, requestId);
  }
}

function withClientModel(format: WireFormat, body: unknown, clientModel: string): Record<string, unknown> {
  const record = asRecord(body) ?? {};
  return format === "gemini" ? { ...record, modelVersion: clientModel } : { ...record, model: clientModel };
}

/** Non-streaming response translation; `model` in the result is ctx.clientModel (never the upstream id). */
export function translateResponse(from: WireFormat, to: WireFormat, body: unknown, ctx: TranslateContext): Record<string, unknown> {
  if (from === to) return withClientModel(to, body, ctx.clientModel);
  const hub = responseToHub(from, body, ctx.requestId);
  switch (to) {
    case "openai":
      return hubToOpenaiResponse(hub, ctx.clientModel, ctx.requestId);
    case "anthropic":
      return hubToAnthropicResponse(hub, ctx.clientModel, ctx.requestId);
    case "gemini":
      return hubToGeminiResponse(hub, ctx.clientModel, ctx.requestId);
  }
}

/** Path appended to the provider baseUrl. */
export function upstreamPath(format: WireFormat, model: string, stream: boolean): string {
  switch (format) {
    case "openai":
      return "/chat/completions";
    case "anthropic":
      return "/v1/messages";
    case "gemini": {
      const name = model.startsWith("models/") ? model.slice("models/".length) : model;
      return stream ? `/models/${name}:streamGenerateContent?alt=sse` : `/models/${name}:generateContent`;
    }
  }
}

/**
 * Is this a streaming request in this client format (body.stream === true)? Translated
 * OpenAI upstream requests always ask for stream_options.include_usage (translateRequest).
 */
export function isStreamRequest(format: WireFormat, body: Record<string, unknown>): boolean {
  return body["stream"] === true;
}

/** Extract usage from a JSON response of the given format. */
export function extractUsage(format: WireFormat, body: unknown): UsageSummary {
  return summariseUsage(usageFromFormat(format, body));
}
