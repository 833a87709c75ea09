// Input schema of GET /api/monitoring/stats (R14.2). Query values arrive as strings over HTTP
// and as numbers over IPC, hence the coercion. Strict, so that a misspelt parameter is a 400
// naming it rather than a silent default.
import { z } from "zod";

/**
 * The provider name under which the stats count requests that never reached a provider (unknown
 * model, open breaker, every target cooling down): they are failures a client saw, so leaving them
 * out would hide them. Provider ids cannot contain parentheses, so it never names a real provider.
 */
export const NO_PROVIDER = "(none)";

export const REQUEST_STATS_LIMITS = {
  windowMs: { min: 60_000, max: 86_400_000, default: 3_600_000 },
  bucketMs: { min: 10_000, max: 3_600_000, default: 300_000 },
  /** Bounds the answer's size: providers × buckets rows. */
  maxBuckets: 360,
} as const;

const W = REQUEST_STATS_LIMITS.windowMs;
const B = REQUEST_STATS_LIMITS.bucketMs;

export const requestStatsQuerySchema = z
  .strictObject({
    windowMs: z.coerce.number().int().min(W.min).max(W.max).default(W.default),
    bucketMs: z.coerce.number().int().min(B.min).max(B.max).default(B.default),
  })
  .superRefine((value, ctx) => {
    // Whole buckets only: a partial first bucket would look like a drop in traffic.
    if (value.windowMs % value.bucketMs !== 0) {
      ctx.addIssue({ code: "custom", path: ["windowMs"], message: `must be a multiple of bucketMs (${value.bucketMs})` });
      return;
    }
    const buckets = value.windowMs / value.bucketMs;
    if (buckets > REQUEST_STATS_LIMITS.maxBuckets) {
      ctx.addIssue({
        code: "custom",
        path: ["bucketMs"],
        message: `gives ${buckets} buckets in windowMs; at most ${REQUEST_STATS_LIMITS.maxBuckets} are allowed`,
      });
    }
  });

export type RequestStatsQuery = z.infer<typeof requestStatsQuerySchema>;
