// Response shapes of the usage routes (R18, R21.6), part of the management API's shapes
// (apiTypes.ts re-exports them): GET /api/usage and GET /api/usage/quotas.
import type { QuotaPace } from "./quotaPace.js";

// ---------------------------------------------------------------- usage (R18)

/** trafficClass (R20.3): rows written before classes were kept are grouped as "unknown". */
export type UsageGroupBy = "provider" | "connection" | "model" | "client" | "key" | "trafficClass";
export type UsageBucket = "hour" | "day";

export interface UsageCounts {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  costUsd: number;
}

export interface UsagePoint extends UsageCounts {
  /** The bucket's start, epoch ms (UTC hours and days). */
  t: number;
}

/** GET /api/usage: from the rollups kept as requests finish, never a scan of the log (R18.2). */
export interface UsageReport {
  from: number;
  to: number;
  bucket: UsageBucket;
  groupBy: UsageGroupBy;
  series: Array<{ key: string; points: UsagePoint[] }>;
  totals: UsageCounts;
}

/** GET /api/usage/quotas: what an upstream's rate-limit and subscription headers last said (R18.3). */
export interface UsageQuotaItem {
  connectionId: string;
  provider: string;
  /** "5h", "7d", "requests", "tokens", "input-tokens", … */
  window: string;
  usedPercent: number | null;
  remaining: number | null;
  limit: number | null;
  /** Epoch ms. */
  resetAt: number | null;
  /** Which header family said it: "anthropic-unified", "anthropic", "openai", "codex". */
  source: string;
  /** Epoch ms of the response that said it. */
  seenAt: number;
  /** Anthropic's unified status ("allowed", "allowed_warning", "rejected") when it sent one. */
  status?: string | null;
  /**
   * R21.6, always present in GET /api/usage/quotas: the window's length in ms when its name says it
   * ("5h", "7d", "7d_opus", Codex's by minutes); null for count windows ("requests", "tokens").
   */
  windowMs?: number | null;
  /** R21.6: the linear projection from the window's start (shared/quotaPace.ts); null before 3 % of the window has passed. */
  pace?: QuotaPace | null;
  /** R21.6: who burned this window period: its rises charged to sessions (R7.1 key), the top 10 by share. */
  sessions?: QuotaSessionShare[];
}

/** One session's part of a window period (R21.6): the rises of its responses, in percentage points. */
export interface QuotaSessionShare {
  /** The R7.1 session key; null for requests that named no session. */
  session: string | null;
  usedPercent: number;
  /** Responses of this session charged in this period (the period's first reading, the baseline, is nobody's). */
  requests: number;
  /** The same share by traffic class (R20.3): "main", "subagent", "background", … */
  byClass: Record<string, number>;
}
