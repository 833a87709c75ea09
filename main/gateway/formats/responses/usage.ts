// Responses usage: input_tokens already counts cached tokens and output_tokens reasoning ones, as
// the hub does.

import type { HubUsage } from "../hub.js";
import { setIfDefined } from "../usage.js";
import { asNumber, asRecord } from "../values.js";

export function usageFromResponses(raw: unknown): HubUsage | undefined {
  const usage = asRecord(raw);
  if (!usage) return undefined;
  const result: HubUsage = {
    inputTokens: asNumber(usage["input_tokens"]) ?? null,
    outputTokens: asNumber(usage["output_tokens"]) ?? null,
  };
  setIfDefined(result, "cacheReadTokens", asNumber(asRecord(usage["input_tokens_details"])?.["cached_tokens"]));
  setIfDefined(result, "reasoningTokens", asNumber(asRecord(usage["output_tokens_details"])?.["reasoning_tokens"]));
  return result;
}

/** Every count is a number: Codex refuses a usage object with a null or missing count. */
export function usageToResponses(usage: HubUsage): Record<string, unknown> {
  const input = usage.inputTokens ?? 0;
  const output = usage.outputTokens ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.cacheReadTokens ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: input + output,
  };
}
