// Stop/finish reasons per format, through the hub's finer set.

import type { HubFinish } from "./hub.js";

export function finishFromOpenai(reason: unknown): HubFinish | null {
  switch (reason) {
    case null:
    case undefined:
      return null;
    case "length":
      return "length";
    case "tool_calls":
    case "function_call":
      return "tool_calls";
    case "content_filter":
      return "content_filter";
    default:
      return "stop";
  }
}

export function finishToOpenai(reason: HubFinish): string {
  switch (reason) {
    case "length":
    case "context_window":
      return "length";
    case "tool_calls":
      return "tool_calls";
    case "content_filter":
      return "content_filter";
    default:
      return "stop";
  }
}

export function finishFromAnthropic(reason: unknown): HubFinish | null {
  switch (reason) {
    case null:
    case undefined:
      return null;
    case "max_tokens":
      return "length";
    case "stop_sequence":
      return "stop_sequence";
    case "tool_use":
      return "tool_calls";
    case "refusal":
      return "content_filter";
    case "pause_turn":
      return "pause_turn";
    case "model_context_window_exceeded":
      return "context_window";
    default:
      return "stop";
  }
}

export function finishToAnthropic(reason: HubFinish): string {
  switch (reason) {
    case "length":
      return "max_tokens";
    case "stop_sequence":
      return "stop_sequence";
    case "tool_calls":
      return "tool_use";
    case "content_filter":
      return "refusal";
    case "pause_turn":
      return "pause_turn";
    case "context_window":
      return "model_context_window_exceeded";
    default:
      return "end_turn";
  }
}

const GEMINI_FILTERED = new Set(["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT"]);

/** Gemini says STOP even when the turn ends in function calls; the caller knows which. */
export function finishFromGemini(reason: unknown, sawToolCall: boolean): HubFinish | null {
  if (typeof reason !== "string" || reason === "" || reason === "FINISH_REASON_UNSPECIFIED") return null;
  if (reason === "MAX_TOKENS") return "length";
  if (GEMINI_FILTERED.has(reason)) return "content_filter";
  return sawToolCall ? "tool_calls" : "stop";
}

export function finishToGemini(reason: HubFinish): string {
  switch (reason) {
    case "length":
    case "context_window":
      return "MAX_TOKENS";
    case "content_filter":
      return "SAFETY";
    default:
      return "STOP";
  }
}
