// Adding usage counts up (R18.2): the store's report totals and the dashboard's groupings share it.
import type { UsageCounts } from "./apiTypes.js";

export function emptyCounts(): UsageCounts {
  return { requests: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, costUsd: 0 };
}

/** Adds `add` into `into` and returns `into`. */
export function addCounts(into: UsageCounts, add: UsageCounts): UsageCounts {
  into.requests += add.requests;
  into.inputTokens += add.inputTokens;
  into.outputTokens += add.outputTokens;
  into.cacheReadTokens += add.cacheReadTokens;
  into.cacheWriteTokens += add.cacheWriteTokens;
  into.reasoningTokens += add.reasoningTokens;
  into.costUsd += add.costUsd;
  return into;
}
