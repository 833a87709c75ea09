// Gemini usage metadata: thoughts are output tokens reported beside the candidates' count.

import type { HubUsage } from "../hub.js";
import { setIfDefined } from "../usage.js";
import { asNumber, asRecord } from "../values.js";

export function usageFromGemini(raw: unknown): HubUsage | undefined {
  const usage = asRecord(raw);
  if (!usage) return undefined;
  const candidates = asNumber(usage["candidatesTokenCount"]);
  const thoughts = asNumber(usage["thoughtsTokenCount"]);
  const output = candidates === undefined && thoughts === undefined ? null : (candidates ?? 0) + (thoughts ?? 0);
  const result: HubUsage = { inputTokens: asNumber(usage["promptTokenCount"]) ?? null, outputTokens: output };
  setIfDefined(result, "cacheReadTokens", asNumber(usage["cachedContentTokenCount"]));
  setIfDefined(result, "reasoningTokens", thoughts);
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
