// R12.6: what an Anthropic answer says about the subscription's usage wall and its slow lane, in
// Anthropic's headers (`anthropic-ratelimit-unified-status`, `-unified-slow-*`, `-unified-reset`),
// and the header a request carries to ask for the slow lane. The engine keeps the lane
// (engine/usageWall.ts) from these readings.
import { headerValue, parseResetAt, type Headers } from "../../../engine/retryHints.js";
import { USAGE_WALL, type WallAnswer } from "../../../engine/usageWall.js";

/** The request header that asks for the slow lane, and its value. */
export const SLOW_HEADER = "anthropic-usage-limit";
export const SLOW_VALUE = "slow";

const header = (headers: Headers, name: string): string | null => headerValue(headers, name) ?? null;

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

const LANE_ENDS = new Set(["weekly_limit", "budget_exhausted", "off", "ineligible"]);

function seconds(value: string | null, fallbackMs: number, minMs: number, maxMs: number): number {
  const n = value === null ? Number.NaN : Number(value);
  return Number.isFinite(n) && n >= 0 ? clamp(n * 1_000, minMs, maxMs) : fallbackMs;
}

/** What an upstream answer means for the usage wall (R12.6). */
export function readWallAnswer(status: number, headers: Headers): WallAnswer {
  const slowStatus = header(headers, "anthropic-ratelimit-unified-slow-status");
  if (header(headers, "anthropic-ratelimit-unified-overage-in-use") === "true" && slowStatus === "ineligible") {
    return { kind: "lane_end", reason: "extra_usage" };
  }
  if (status === 529 || (status === 429 && slowStatus === "slot_busy")) {
    return {
      kind: "slot_busy",
      retryAfterMs: seconds(header(headers, "anthropic-ratelimit-unified-slow-retry-after"), USAGE_WALL.slowRetryDefaultMs, USAGE_WALL.slowRetryMinMs, USAGE_WALL.slowRetryMaxMs),
      maxWaitMs: seconds(header(headers, "anthropic-ratelimit-unified-slow-max-wait"), USAGE_WALL.maxWaitDefaultMs, USAGE_WALL.maxWaitMinMs, USAGE_WALL.maxWaitMaxMs),
    };
  }
  if (slowStatus !== null && LANE_ENDS.has(slowStatus)) return { kind: "lane_end", reason: slowStatus };
  if (status === 429 && header(headers, "anthropic-ratelimit-unified-status") === "rejected") {
    return {
      kind: "wall",
      offer: header(headers, "anthropic-ratelimit-unified-slow-offer") === "treatment",
      resetAt: parseResetAt(header(headers, "anthropic-ratelimit-unified-reset")),
    };
  }
  return { kind: "other" };
}
