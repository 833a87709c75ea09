// What an upstream's answer says in its vendor's own headers and body, read by the format halves
// for the engine (R4.3, R21.4): the subscription windows (Anthropic's unified family, Codex's
// `x-codex-*` and `usage_limit_reached`) and the rate-limit resets each vendor states (Gemini's
// RetryInfo, Anthropic's count windows, OpenAI's `x-ratelimit-reset-*`). The engine's classifier
// is handed this reader (engine/retryHints.ts AnswerReader) and names no vendor header itself.
// A provider's answer is read with every family, whatever its format: a gateway in front of a vendor
// may pass the vendor's headers on under another format.
import type { AnswerReader, Headers, RetryHint } from "../../engine/retryHints.js";
import type { WindowSignals } from "../../engine/subscriptionWindows.js";
import { anthropicRetryHint, unifiedSignals } from "./anthropic/windows.js";
import { geminiRetryHint } from "./gemini/retryInfo.js";
import { openaiRetryHint } from "./openai/resets.js";
import { codexSignals } from "./responses/windows.js";

/** What an answer's headers and body say about the account's subscription windows. */
export function readWindowSignals(headers: Headers, bodyText: string, now: number): WindowSignals {
  const unified = unifiedSignals(headers);
  const codex = codexSignals(headers, bodyText, now);
  return { windowHeaders: unified.windowHeaders || codex.windowHeaders, exhausted: [...unified.exhausted, ...codex.exhausted] };
}

/** Whether an answer (or an error event inside a 200 stream, with the stream's headers) says a window is used up. */
export function isWindowExhaustion(headers: Headers, bodyText: string): boolean {
  return readWindowSignals(headers, bodyText, 0).exhausted.length > 0;
}

/** The vendors' own waits, the most specific first. */
function vendorRetryHint(headers: Headers, bodyText: string, now: number): RetryHint | null {
  return geminiRetryHint(bodyText) ?? anthropicRetryHint(headers, now) ?? openaiRetryHint(headers, now);
}

export const answerReader: AnswerReader = { windows: readWindowSignals, vendorRetryHint };
