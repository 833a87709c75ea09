// OpenAI usage: prompt_tokens already counts cached tokens, as the hub does.

import type { HubUsage } from "../hub.js";
import { setIfDefined } from "../usage.js";
import { asNumber, asRecord } from "../values.js";

export function usageFromOpenai(raw: unknown): HubUsage | undefined {
  const usage = asRecord(raw);
  if (!usage) return undefined;
  const result: HubUsage = {
    inputTokens: asNumber(usage["prompt_tokens"]) ?? null,
    outputTokens: asNumber(usage["completion_tokens"]) ?? null,
  };
  // DeepSeek reports cache hits outside prompt_tokens_details.
  const cached = asNumber(asRecord(usage["prompt_tokens_details"])?.["cached_tokens"]) ?? asNumber(usage["prompt_cache_hit_tokens"]);
  setIfDefined(result, "cacheReadTokens", cached);
  setIfDefined(result, "reasoningTokens", asNumber(asRecord(usage["completion_tokens_details"])?.["reasoning_tokens"]));
  return result;
}

export function usageToOpenai(usage: HubUsage): Record<string, unknown> {
  const prompt = usage.inputTokens ?? 0;
  const completion = usage.outputTokens ?? 0;
  const out: Record<string, unknown> = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
  if (usage.cacheReadTokens !== undefined) out["prompt_tokens_details"] = { cached_tokens: usage.cacheReadTokens };
  if (usage.reasoningTokens !== undefined) out["completion_tokens_details"] = { reasoning_tokens: usage.reasoningTokens };
  return out;
}
