// R4.3: OpenAI's rate-limit resets (`x-ratelimit-reset`, `x-ratelimit-reset-requests|tokens`, a
// duration such as "6m0s" or seconds): the longest, when every used-up window has started over.
import { longestReset, type Headers, type RetryHint } from "../../../engine/retryHints.js";

export function openaiRetryHint(headers: Headers, now: number): RetryHint | null {
  const ms = longestReset(headers, (n) => n === "x-ratelimit-reset" || n.startsWith("x-ratelimit-reset-"), now);
  return ms === null ? null : { ms, source: "x-ratelimit-reset" };
}
