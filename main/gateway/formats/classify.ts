// What an upstream event means for the stream watchdogs (R13.4, D13), without translating it.
// Empty deltas, role-only chunks, pings and block boundaries are lifecycle; Anthropic
// thinking/signature frames count as reasoning even when empty.

import type { WireFormat } from "../../../shared/types.js";
import type { FrameKind, UpstreamEvent } from "./types.js";
import { asArray, asRecord, asString, isRecord, parseJson, type JsonObject } from "./values.js";

function classifyOpenai(data: string, chunk: JsonObject | undefined): FrameKind {
  if (data.trim() === "[DONE]") return "done";
  if (!chunk) return "lifecycle";
  if (chunk["error"] !== undefined && chunk["error"] !== null) return "error";
  const delta = asRecord(asRecord(asArray(chunk["choices"])[0])?.["delta"]);
  if (asString(delta?.["content"]) || asString(delta?.["refusal"])) return "content";
  if (asArray(delta?.["tool_calls"]).length > 0) return "tool";
  if (asString(delta?.["reasoning_content"]) || asString(delta?.["reasoning"])) return "reasoning";
  if (isRecord(chunk["usage"])) return "usage";
  return "lifecycle";
}

function classifyAnthropic(event: string | undefined, payload: JsonObject | undefined): FrameKind {
  switch (asString(payload?.["type"]) ?? event) {
    case "content_block_start": {
      const block = asRecord(payload?.["content_block"]);
      const type = asString(block?.["type"]);
      if (type === "thinking" || type === "redacted_thinking") return "reasoning";
      if (type === "text") return asString(block?.["text"]) ? "content" : "lifecycle";
      return type === undefined ? "lifecycle" : "tool";
    }
    case "content_block_delta": {
      const delta = asRecord(payload?.["delta"]);
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

function classifyGemini(chunk: JsonObject | undefined): FrameKind {
  if (!chunk) return "lifecycle";
  if (chunk["error"] !== undefined) return "error";
  const candidate = asRecord(asArray(chunk["candidates"])[0]);
  const parts = asArray(asRecord(candidate?.["content"])?.["parts"]).filter(isRecord);
  if (parts.some((part) => part["thought"] !== true && asString(part["text"]))) return "content";
  if (parts.some((part) => part["functionCall"] !== undefined)) return "tool";
  if (parts.some((part) => part["thought"] === true)) return "reasoning";
  if (isRecord(chunk["usageMetadata"])) return "usage";
  return "lifecycle";
}

export function classifyParsed(format: WireFormat, evt: UpstreamEvent, parsed: unknown): FrameKind {
  const record = asRecord(parsed);
  switch (format) {
    case "openai":
      return classifyOpenai(evt.data, record);
    case "anthropic":
      return classifyAnthropic(evt.event, record);
    case "gemini":
      return classifyGemini(record);
  }
}

export function classifyEvent(format: WireFormat, evt: UpstreamEvent): FrameKind {
  return classifyParsed(format, evt, evt.data.trim() === "[DONE]" ? undefined : parseJson(evt.data));
}
