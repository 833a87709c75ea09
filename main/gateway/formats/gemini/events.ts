// What a Gemini chunk means for the stream watchdogs (R13.4, R13.5, D13), without translating it.

import { utf8Bytes } from "../textBytes.js";
import type { FrameKind, UpstreamEvent } from "../types.js";
import { asArray, asRecord, asString, isRecord, parseJson, type JsonObject } from "../values.js";

function firstCandidateParts(chunk: JsonObject): JsonObject[] {
  const candidate = asRecord(asArray(chunk["candidates"])[0]);
  return asArray(asRecord(candidate?.["content"])?.["parts"]).filter(isRecord);
}

export function classifyGemini(chunk: JsonObject | undefined): FrameKind {
  if (!chunk) return "lifecycle";
  if (chunk["error"] !== undefined) return "error";
  const parts = firstCandidateParts(chunk);
  if (parts.some((part) => part["thought"] !== true && asString(part["text"]))) return "content";
  if (parts.some((part) => part["functionCall"] !== undefined)) return "tool";
  if (parts.some((part) => part["thought"] === true)) return "reasoning";
  if (isRecord(chunk["usageMetadata"])) return "usage";
  return "lifecycle";
}

export function geminiTextDeltaBytes(evt: UpstreamEvent): number {
  const chunk = asRecord(parseJson(evt.data));
  if (!chunk) return 0;
  return firstCandidateParts(chunk).reduce((sum, part) => sum + (part["thought"] === true ? 0 : utf8Bytes(asString(part["text"]))), 0);
}

export function isGeminiToolOrReasoning(evt: UpstreamEvent): boolean {
  const chunk = asRecord(parseJson(evt.data));
  if (!chunk) return false;
  return firstCandidateParts(chunk).some((p) => p["functionCall"] !== undefined || p["thought"] === true);
}
