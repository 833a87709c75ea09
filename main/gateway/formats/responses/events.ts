// What a Responses event means for the stream watchdogs (R13.4, R13.5, D13), without translating
// it. The event type is in the data as well as the SSE event name; the data wins.

import { utf8Bytes } from "../textBytes.js";
import type { FrameKind, UpstreamEvent } from "../types.js";
import { asRecord, asString, parseJson, type JsonObject } from "../values.js";

const REASONING_EVENTS = new Set([
  "response.reasoning_summary_part.added",
  "response.reasoning_summary_part.done",
  "response.reasoning_summary_text.delta",
  "response.reasoning_summary_text.done",
  "response.reasoning_text.delta",
  "response.reasoning_text.done",
]);

const TOOL_EVENTS = new Set([
  "response.function_call_arguments.delta",
  "response.function_call_arguments.done",
  "response.custom_tool_call_input.delta",
  "response.custom_tool_call_input.done",
]);

const TOOL_ITEMS = new Set(["function_call", "custom_tool_call"]);

function typeOf(evt: UpstreamEvent, payload: JsonObject | undefined): string | undefined {
  return asString(payload?.["type"]) ?? evt.event;
}

/**
 * A non-empty text delta, compact, in OpenAI's key order, with nothing but the optional logprobs
 * and obfuscation padding after it; anything else falls back to a parse.
 */
const PLAIN_TEXT_DELTA =
  /^\{"type":"response\.output_text\.delta","sequence_number":\d+,"item_id":"[^"\\]*","output_index":\d+,"content_index":\d+,"delta":"(?:[^"\\]|\\.)+"(?:,"logprobs":\[\])?(?:,"obfuscation":"[^"\\]*")?\}$/;

export function isPlainResponsesTextDelta(data: string): boolean {
  return PLAIN_TEXT_DELTA.test(data);
}

export function classifyResponses(evt: UpstreamEvent, payload: JsonObject | undefined): FrameKind {
  const type = typeOf(evt, payload);
  if (type === undefined) return "lifecycle";
  if (type === "response.output_text.delta" || type === "response.refusal.delta") return asString(payload?.["delta"]) ? "content" : "lifecycle";
  if (REASONING_EVENTS.has(type)) return "reasoning";
  if (TOOL_EVENTS.has(type)) return "tool";
  if (type === "response.output_item.added") {
    const itemType = asString(asRecord(payload?.["item"])?.["type"]);
    if (itemType === "reasoning") return "reasoning";
    return itemType !== undefined && TOOL_ITEMS.has(itemType) ? "tool" : "lifecycle";
  }
  if (type === "response.completed" || type === "response.incomplete") return "done";
  return type === "response.failed" || type === "error" ? "error" : "lifecycle";
}

export function responsesTextDeltaBytes(evt: UpstreamEvent): number {
  const payload = asRecord(parseJson(evt.data));
  return typeOf(evt, payload) === "response.output_text.delta" ? utf8Bytes(asString(payload?.["delta"])) : 0;
}

export function isResponsesToolOrReasoning(evt: UpstreamEvent): boolean {
  const payload = asRecord(parseJson(evt.data));
  const kind = classifyResponses(evt, payload);
  return kind === "tool" || kind === "reasoning";
}

const USAGE_LIMIT = "usage_limit_reached";
const LIMIT_EVENTS = new Set(["response.failed", "response.incomplete", "error"]);

const isUsageLimit = (error: JsonObject | undefined): boolean => error?.["code"] === USAGE_LIMIT || error?.["type"] === USAGE_LIMIT;

/**
 * R21.4: a stream that ends for the account's usage limit — `response.failed` with error code
 * `usage_limit_reached`, `response.incomplete` with that reason, or an `error` event saying it —
 * as the 429 body Codex answers the same limit with, for the classifier; null for any other event.
 */
export function responsesLimitEventBody(evt: UpstreamEvent): string | null {
  if (evt.event !== undefined && !LIMIT_EVENTS.has(evt.event)) return null;
  if (!evt.data.includes(USAGE_LIMIT)) return null;
  const payload = asRecord(parseJson(evt.data));
  const response = asRecord(payload?.["response"]);
  let error: JsonObject | undefined;
  switch (typeOf(evt, payload)) {
    case "response.failed":
      error = asRecord(response?.["error"]);
      break;
    case "response.incomplete":
      if (asRecord(response?.["incomplete_details"])?.["reason"] === USAGE_LIMIT) error = { code: USAGE_LIMIT, message: "The usage limit has been reached" };
      break;
    case "error":
      error = asRecord(payload?.["error"]) ?? payload;
      break;
    default:
      return null;
  }
  if (!error || !isUsageLimit(error)) return null;
  return JSON.stringify({ error: { type: USAGE_LIMIT, ...error } });
}
