// What an OpenAI chunk means for the stream watchdogs (R13.4, R13.5, D13), without translating it.

import { utf8Bytes } from "../textBytes.js";
import type { FrameKind, UpstreamEvent } from "../types.js";
import { asArray, asRecord, asString, isRecord, parseJson, type JsonObject } from "../values.js";

function firstDelta(chunk: JsonObject | undefined): JsonObject | undefined {
  return asRecord(asRecord(asArray(chunk?.["choices"])[0])?.["delta"]);
}

/**
 * The compact chunk every OpenAI-compatible upstream sends for a text delta: one choice, a
 * non-empty content string, no tool calls, reasoning, finish reason, usage or error. Anchored and
 * literal, so anything else (another field, other spacing, a second choice) falls back to a parse.
 */
const PLAIN_CONTENT_CHUNK =
  /^\{"id":"[^"\\]*","object":"chat\.completion\.chunk","created":\d+,"model":"[^"\\]*",(?:"system_fingerprint":(?:null|"[^"\\]*"),)?(?:"service_tier":(?:null|"[^"\\]*"),)?"choices":\[\{"index":0,"delta":\{(?:"role":"assistant",)?"content":"(?:[^"\\]|\\.)+"\}(?:,"logprobs":null)?,"finish_reason":null\}\](?:,"usage":null)?\}$/;

export function isPlainOpenaiContentChunk(data: string): boolean {
  return PLAIN_CONTENT_CHUNK.test(data);
}

export function classifyOpenai(evt: UpstreamEvent, chunk: JsonObject | undefined): FrameKind {
  if (evt.data.trim() === "[DONE]") return "done";
  if (!chunk) return "lifecycle";
  if (chunk["error"] !== undefined && chunk["error"] !== null) return "error";
  const delta = firstDelta(chunk);
  if (asString(delta?.["content"]) || asString(delta?.["refusal"])) return "content";
  if (asArray(delta?.["tool_calls"]).length > 0) return "tool";
  if (asString(delta?.["reasoning_content"]) || asString(delta?.["reasoning"])) return "reasoning";
  if (isRecord(chunk["usage"])) return "usage";
  return "lifecycle";
}

export function openaiTextDeltaBytes(evt: UpstreamEvent): number {
  if (evt.data.trim() === "[DONE]") return 0;
  const chunk = asRecord(parseJson(evt.data));
  if (!chunk) return 0;
  return utf8Bytes(asString(firstDelta(chunk)?.["content"]));
}

export function isOpenaiToolOrReasoning(evt: UpstreamEvent): boolean {
  const chunk = asRecord(parseJson(evt.data));
  if (!chunk) return false;
  const delta = firstDelta(chunk);
  return asArray(delta?.["tool_calls"]).length > 0 || Boolean(asString(delta?.["reasoning_content"]) ?? asString(delta?.["reasoning"]));
}
