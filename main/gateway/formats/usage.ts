// Token usage per format. The hub counts every prompt token in inputTokens (OpenAI and
// Gemini semantics); Anthropic reports cache reads and writes apart from input_tokens,
// so they are added on the way in and subtracted on the way out.

import type { WireFormat } from "../../../shared/types.js";
import type { HubUsage } from "./hub.js";
import { asNumber, asRecord } from "./values.js";

export interface UsageSummary {
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadTokens?: number;
  cacheCreationTokens?: number;
}

function withOptional(usage: HubUsage, key: "cacheReadTokens" | "cacheCreationTokens" | "reasoningTokens", value: number | undefined): void {
  if (value !== undefined) usage[key] = value;
}

export function usageFromOpenai(raw: unknown): HubUsage | undefined {
  const usage = asRecord(raw);
  if (!usage) return undefined;
  const result: HubUsage = {
    inputTokens: asNumber(usage["prompt_tokens"]) ?? null,
    outputTokens: asNumber(usage["completion_tokens"]) ?? null,
  };
  // DeepSeek reports cache hits outside prompt_tokens_details.
  const cached = asNumber(asRecord(usage["prompt_tokens_details"])?.["cached_tokens"]) ?? asNumber(usage["prompt_cache_hit_tokens"]);
  withOptional(result, "cacheReadTokens", cached);
  withOptional(result, "reasoningTokens", asNumber(asRecord(usage["completion_tokens_details"])?.["reasoning_tokens"]));
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
  withOptional(result, "cacheReadTokens", cacheRead);
  withOptional(result, "cacheCreationTokens", cacheCreation);
  withOptional(result, "reasoningTokens", asNumber(asRecord(usage["output_tokens_details"])?.["thinking_tokens"]));
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

export function usageFromGemini(raw: unknown): HubUsage | undefined {
  const usage = asRecord(raw);
  if (!usage) return undefined;
  const candidates = asNumber(usage["candidatesTokenCount"]);
  const thoughts = asNumber(usage["thoughtsTokenCount"]);
  const output = candidates === undefined && thoughts === undefined ? null : (candidates ?? 0) + (thoughts ?? 0);
  const result: HubUsage = { inputTokens: asNumber(usage["promptTokenCount"]) ?? null, outputTokens: output };
  withOptional(result, "cacheReadTokens", asNumber(usage["cachedContentTokenCount"]));
  withOptional(result, "reasoningTokens", thoughts);
  return result;
}

export function usageToGemini(usage: HubUsage): Record<string, unknown> {
  const prompt = usage.inputTokens ?? 0;
  const output = usage.outputTokens ?? 0;
  const thoughts = usage.reasoningTokens ?? 0;
  const out: Record<string, unknown> = {
    promptTokenCount: prompt,
    candidatesTokenCount: Math.max(0, output - thoughts),
    totalTokenCount: prompt + output,
  };
  if (usage.cacheReadTokens !== undefined) out["cachedContentTokenCount"] = usage.cacheReadTokens;
  if (usage.reasoningTokens !== undefined) out["thoughtsTokenCount"] = usage.reasoningTokens;
  return out;
}

export function usageFromFormat(format: WireFormat, body: unknown): HubUsage | undefined {
  const record = asRecord(body);
  if (!record) return undefined;
  switch (format) {
    case "openai":
      return usageFromOpenai(record["usage"]);
    case "anthropic":
      return usageFromAnthropic(record["usage"]);
    case "gemini":
      return usageFromGemini(record["usageMetadata"]);
  }
}

export function summariseUsage(usage: HubUsage | undefined): UsageSummary {
  const summary: UsageSummary = { inputTokens: usage?.inputTokens ?? null, outputTokens: usage?.outputTokens ?? null };
  if (usage?.cacheReadTokens !== undefined) summary.cacheReadTokens = usage.cacheReadTokens;
  if (usage?.cacheCreationTokens !== undefined) summary.cacheCreationTokens = usage.cacheCreationTokens;
  return summary;
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
