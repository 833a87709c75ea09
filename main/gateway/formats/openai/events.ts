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
  /^\{"id":"[^"\\]*","object":"chat\.completion\.chunk","created":\d+,"model":"[^"\\]*",(?:"system_fingerprint":(?:null|"[^"\\]*"),)?(?:"service_tier":(?:null|"[^"\\]*"),)?"choices":\[\{"index":0,"delta":\{(?:"role":"assistant",)?"content":("(?:[^"\\]|\\.)+")\}(?:,"logprobs":null)?,"finish_reason":null\}\](?:,"usage":null)?\}$/;

export function isPlainOpenaiContentChunk(data: string): boolean {
  return PLAIN_CONTENT_CHUNK.test(data);
}

/** A raw control character, which JSON text may not hold inside a string. */
const CONTROL = /[\u0000-\u001f]/;

/**
 * The text of a plain content chunk (see above), or null for any other chunk and for one a parse
 * would refuse: what a translated stream needs of most of its chunks, read without parsing the
 * whole chunk (issue 33). Only a text with escapes is unescaped, as the one JSON string it is.
 */
export function plainOpenaiContent(data: string): string | null {
  const literal = PLAIN_CONTENT_CHUNK.exec(data)?.[1];
  if (literal === undefined || CONTROL.test(literal)) return null;
  if (!literal.includes("\\")) return literal.slice(1, -1);
  const text = parseJson(literal);
  return typeof text === "string" ? text : null;
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

// The throughput watchdog (R13.5) reads every chunk: a plain text delta is read without a parse.
export function openaiTextDeltaBytes(evt: UpstreamEvent): number {
  const plain = plainOpenaiContent(evt.data);
  if (plain !== null) return utf8Bytes(plain);
  if (evt.data.trim() === "[DONE]") return 0;
  const chunk = asRecord(parseJson(evt.data));
  if (!chunk) return 0;
  return utf8Bytes(asString(firstDelta(chunk)?.["content"]));
}

export function isOpenaiToolOrReasoning(evt: UpstreamEvent): boolean {
  if (isPlainOpenaiContentChunk(evt.data)) return false;
  const chunk = asRecord(parseJson(evt.data));
  if (!chunk) return false;
  const delta = firstDelta(chunk);
  return asArray(delta?.["tool_calls"]).length > 0 || Boolean(asString(delta?.["reasoning_content"]) ?? asString(delta?.["reasoning"]));
}
