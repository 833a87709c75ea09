// Token usage as the gateway records it. Each format reads and writes its own usage fields
// (<format>/usage.ts); the hub counts every prompt token in inputTokens.

import type { HubUsage } from "./hub.js";

export interface UsageSummary {
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadTokens?: number;
  cacheCreationTokens?: number;
  reasoningTokens?: number;
}

/** Optional hub counts stay absent, not zero, when the upstream did not report them. */
export function setIfDefined(usage: HubUsage, key: "cacheReadTokens" | "cacheCreationTokens" | "reasoningTokens", value: number | undefined): void {
  if (value !== undefined) usage[key] = value;
}

export function summariseUsage(usage: HubUsage | undefined): UsageSummary {
  const summary: UsageSummary = { inputTokens: usage?.inputTokens ?? null, outputTokens: usage?.outputTokens ?? null };
  if (usage?.cacheReadTokens !== undefined) summary.cacheReadTokens = usage.cacheReadTokens;
  if (usage?.cacheCreationTokens !== undefined) summary.cacheCreationTokens = usage.cacheCreationTokens;
  if (usage?.reasoningTokens !== undefined) summary.reasoningTokens = usage.reasoningTokens;
  return summary;
}
