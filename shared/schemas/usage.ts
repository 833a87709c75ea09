// Inputs of the usage routes and the budget field (R18.2, R18.4). A bad value is refused with the
// field's name and nothing is saved.
import { z } from "zod";

export const USAGE_GROUP_BYS = ["provider", "connection", "model", "client", "key", "trafficClass"] as const;
export const USAGE_BUCKETS = ["hour", "day"] as const;
export const BUDGET_PERIODS = ["day", "month"] as const;

/** R18.4: per day or month, in cost, tokens or both; at least one limit, none negative. */
export const budgetSchema = z
  .strictObject({
    period: z.enum(BUDGET_PERIODS),
    maxCostUsd: z.number().min(0).optional(),
    maxTokens: z.number().int().min(0).optional(),
  })
  .refine((b) => b.maxCostUsd !== undefined || b.maxTokens !== undefined, { error: "needs maxCostUsd or maxTokens", path: ["maxCostUsd"] });

/** An instant as epoch ms or an ISO 8601 text. */
const instant = z.union([z.number(), z.string().min(1)]).transform((value, ctx) => {
  const ms = typeof value === "number" || /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(ms) || ms < 0) {
    ctx.addIssue({ code: "custom", message: "must be epoch milliseconds or an ISO 8601 time" });
    return z.NEVER;
  }
  return ms;
});

export const usageQuerySchema = z
  .object({
    from: instant.optional(),
    to: instant.optional(),
    groupBy: z.enum(USAGE_GROUP_BYS).default("provider"),
    bucket: z.enum(USAGE_BUCKETS).default("hour"),
  })
  .superRefine((q, ctx) => {
    if (q.from !== undefined && q.to !== undefined && q.from > q.to) ctx.addIssue({ code: "custom", path: ["from"], message: "must not be after `to`" });
  });

export type UsageQuery = z.infer<typeof usageQuerySchema>;

export const keyUpdateSchema = z.object({
  id: z.string().min(1, "is required"),
  name: z.string().trim().min(1).max(100).optional(),
  budget: budgetSchema.nullable().optional(),
});
