// What an Anthropic event means for the stream watchdogs (R13.4, R13.5, D13), without translating
// it. Empty text deltas, pings and block boundaries are lifecycle; thinking and signature frames
// count as reasoning even when empty.

import { utf8Bytes } from "../textBytes.js";
import type { FrameKind, UpstreamEvent } from "../types.js";
import { asRecord, asString, parseJson, type JsonObject } from "../values.js";

function classifyBlockStart(block: JsonObject | undefined): FrameKind {
  const type = asString(block?.["type"]);
  if (type === "thinking" || type === "redacted_thinking") return "reasoning";
  if (type === "text") return asString(block?.["text"]) ? "content" : "lifecycle";
  return type === undefined ? "lifecycle" : "tool";
}

function classifyDelta(delta: JsonObject | undefined): FrameKind {
  switch (delta?.["type"]) {
    case "text_delta":
      return asString(delta["text"]) ? "content" : "lifecycle";
    case "citations_delta":
      return "content";
    case "thinking_delta":
    case "signature_delta":
      return "reasoning";
    case "input_json_delta":
      return "tool";
    default:
      return "lifecycle";
  }
}

/** A non-empty text delta, compact, with nothing else in it; anything else falls back to a parse. */
const PLAIN_TEXT_DELTA = /^\{"type":"content_block_delta","index":\d+,"delta":\{"type":"text_delta","text":"(?:[^"\\]|\\.)+"\}\}$/;

export function isPlainAnthropicTextDelta(data: string): boolean {
  return PLAIN_TEXT_DELTA.test(data);
}

export function classifyAnthropic(evt: UpstreamEvent, payload: JsonObject | undefined): FrameKind {
  switch (asString(payload?.["type"]) ?? evt.event) {
    case "content_block_start":
      return classifyBlockStart(asRecord(payload?.["content_block"]));
    case "content_block_delta":
      return classifyDelta(asRecord(payload?.["delta"]));
    case "message_delta":
      return "usage";
    case "message_stop":
      return "done";
    case "error":
      return "error";
    default:
      return "lifecycle";
  }
}

export function anthropicTextDeltaBytes(evt: UpstreamEvent): number {
  const payload = asRecord(parseJson(evt.data));
  if (payload?.["type"] !== "content_block_delta") return 0;
  const delta = asRecord(payload["delta"]);
  return delta?.["type"] === "text_delta" ? utf8Bytes(asString(delta["text"])) : 0;
}

const TOOL_OR_REASONING = new Set(["input_json_delta", "thinking_delta", "signature_delta", "tool_use", "thinking"]);

export function isAnthropicToolOrReasoning(evt: UpstreamEvent): boolean {
  const payload = asRecord(parseJson(evt.data));
  if (!payload) return false;
  const type = asRecord(payload["delta"])?.["type"] ?? asRecord(payload["content_block"])?.["type"];
  return typeof type === "string" && TOOL_OR_REASONING.has(type);
}

/**
 * R21.4: an `error` event for a rate limit ends the stream: its error body, for the classifier to
 * read with the stream's response headers (a unified status `rejected` makes it a used-up window);
 * null for any other event. Other events cost one comparison.
 */
export function anthropicLimitEventBody(evt: UpstreamEvent): string | null {
  if (evt.event !== undefined && evt.event !== "error") return null;
  if (!evt.data.includes("rate_limit_error")) return null;
  const payload = asRecord(parseJson(evt.data));
  const error = asRecord(payload?.["error"]);
  if ((asString(payload?.["type"]) ?? evt.event) !== "error" || error?.["type"] !== "rate_limit_error") return null;
  return JSON.stringify({ type: "error", error });
}
