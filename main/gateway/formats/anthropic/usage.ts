// Anthropic reports cache reads and writes apart from input_tokens; the hub counts every prompt
// token in inputTokens, so they are added on the way in and subtracted on the way out.

import type { HubUsage } from "../hub.js";
import { setIfDefined } from "../usage.js";
import { asNumber, asRecord } from "../values.js";

export function usageFromAnthropic(raw: unknown): HubUsage | undefined {
  const usage = asRecord(raw);
  if (!usage) return undefined;
  const input = asNumber(usage["input_tokens"]);
  const cacheRead = asNumber(usage["cache_read_input_tokens"]);
  const cacheCreation = asNumber(usage["cache_creation_input_tokens"]);
  const result: HubUsage = {
    inputTokens: input === undefined ? null : input + (cacheRead ?? 0) + (cacheCreation ?? 0),
    outputTokens: asNumber(usage["output_tokens"]) ?? null,
  };
  setIfDefined(result, "cacheReadTokens", cacheRead);
  setIfDefined(result, "cacheCreationTokens", cacheCreation);
  setIfDefined(result, "reasoningTokens", asNumber(asRecord(usage["output_tokens_details"])?.["thinking_tokens"]));
  return result;
}

export function usageToAnthropic(usage: HubUsage): Record<string, unknown> {
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheCreation = usage.cacheCreationTokens ?? 0;
  return {
    input_tokens: Math.max(0, (usage.inputTokens ?? 0) - cacheRead - cacheCreation),
    cache_creation_input_tokens: cacheCreation,
    cache_read_input_tokens: cacheRead,
    output_tokens: usage.outputTokens ?? 0,
  };
}

/**
 * Anthropic streams report usage in message_start and again, cumulatively and often
 * partially, in message_delta. Input and cache counts only add up when read together, so
 * the raw fields are merged first (non-null values win) and converted afterwards.
 */
export function mergeAnthropicRawUsage(base: Record<string, unknown>, next: unknown): Record<string, unknown> {
  const merged = { ...base };
  for (const [key, value] of Object.entries(asRecord(next) ?? {})) {
    if (value !== null && value !== undefined) merged[key] = value;
  }
  return merged;
}
