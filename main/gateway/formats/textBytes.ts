// Useful output of one upstream event for the throughput watchdog (R13.5): UTF-8 bytes of text
// deltas only. Reasoning, tool arguments, usage and lifecycle frames count zero.

import type { WireFormat } from "../../../shared/types.js";
import type { UpstreamEvent } from "./types.js";
import { asArray, asRecord, asString, isRecord, parseJson } from "./values.js";

const encoder = new TextEncoder();

function bytes(text: string | undefined): number {
  return text ? encoder.encode(text).length : 0;
}

export function textDeltaBytes(format: WireFormat, evt: UpstreamEvent): number {
  if (format === "openai" && evt.data.trim() === "[DONE]") return 0;
  const payload = asRecord(parseJson(evt.data));
  if (!payload) return 0;
  switch (format) {
    case "openai": {
      const delta = asRecord(asRecord(asArray(payload["choices"])[0])?.["delta"]);
      return bytes(asString(delta?.["content"]));
    }
    case "anthropic": {
      if (payload["type"] !== "content_block_delta") return 0;
      const delta = asRecord(payload["delta"]);
      return delta?.["type"] === "text_delta" ? bytes(asString(delta["text"])) : 0;
    }
    case "gemini": {
      const parts = asArray(asRecord(asRecord(asArray(payload["candidates"])[0])?.["content"])?.["parts"]).filter(isRecord);
      return parts.reduce((sum, part) => sum + (part["thought"] === true ? 0 : bytes(asString(part["text"]))), 0);
    }
  }
}

/** Tool-call or reasoning activity suspends the throughput watchdog while it lasts. */
export function isToolOrReasoningEvent(format: WireFormat, evt: UpstreamEvent): boolean {
  const payload = asRecord(parseJson(evt.data));
  if (!payload) return false;
  switch (format) {
    case "openai": {
      const delta = asRecord(asRecord(asArray(payload["choices"])[0])?.["delta"]);
      return asArray(delta?.["tool_calls"]).length > 0 || Boolean(asString(delta?.["reasoning_content"]) ?? asString(delta?.["reasoning"]));
    }
    case "anthropic": {
      const type = asRecord(payload["delta"])?.["type"] ?? asRecord(payload["content_block"])?.["type"];
      return type === "input_json_delta" || type === "thinking_delta" || type === "signature_delta" || type === "tool_use" || type === "thinking";
    }
    case "gemini": {
      const parts = asArray(asRecord(asRecord(asArray(payload["candidates"])[0])?.["content"])?.["parts"]).filter(isRecord);
      return parts.some((p) => p["functionCall"] !== undefined || p["thought"] === true);
    }
  }
}
