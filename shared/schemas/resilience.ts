// Input schemas of the resilience routes (R6.2/D6, R5.5/D5, R2.6, R9.5). The settings document
// itself (PATCH /api/resilience, R10.1) is validated by shared/schemas/resilienceDocument.ts.
import { z } from "zod";
import { closedObject } from "./resilienceDocument.js";

export { type ResiliencePatch, resiliencePatchSchema } from "./resilienceDocument.js";

const ID_MAX = 128; // D6
const shortId = z.string().min(1, "must not be empty").max(ID_MAX, `must be at most ${ID_MAX} characters`);

/** POST /api/resilience/cooldowns (R6.2, D6): `{connectionIds}` or `{all: true, provider?}`. */
export const clearCooldownsBodySchema = closedObject({
  connectionIds: z.array(shortId).min(1, "must list at least one id").max(1_000, "at most 1000 ids").optional(), // D6
  all: z.literal(true).optional(),
  provider: shortId.optional(),
}).superRefine((body, ctx) => {
  if (!body.connectionIds && !body.all) {
    ctx.addIssue({ code: "custom", path: ["connectionIds"], message: "give connectionIds or all: true" });
  }
  if (body.connectionIds && body.all) {
    ctx.addIssue({ code: "custom", path: ["all"], message: "give either connectionIds or all, not both" });
  }
  if (body.provider !== undefined && !body.all) {
    ctx.addIssue({ code: "custom", path: ["provider"], message: "provider is only valid with all: true" });
  }
});

export type ClearCooldownsBody = z.infer<typeof clearCooldownsBodySchema>;

const lockoutField = z.string().min(1, "must not be empty").max(256, "must be at most 256 characters");

/** DELETE /api/resilience/model-cooldowns (R5.5, D5): `{provider, model, connection?}` or `{all: true}`. */
export const clearModelCooldownsBodySchema = closedObject({
  all: z.literal(true).optional(),
  provider: lockoutField.optional(),
  model: lockoutField.optional(),
  connection: lockoutField.optional(),
  connectionId: lockoutField.optional(),
})
  .superRefine((body, ctx) => {
    if (body.all) {
      for (const key of ["provider", "model", "connection", "connectionId"] as const) {
        if (body[key] !== undefined) ctx.addIssue({ code: "custom", path: [key], message: "not allowed with all: true" });
      }
      return;
    }
    if (body.provider === undefined) ctx.addIssue({ code: "custom", path: ["provider"], message: "is required" });
    if (body.model === undefined) ctx.addIssue({ code: "custom", path: ["model"], message: "is required" });
    if (body.connection !== undefined && body.connectionId !== undefined) {
      ctx.addIssue({ code: "custom", path: ["connectionId"], message: "give connection or connectionId, not both" });
    }
  })
  .transform((body): ClearModelCooldownsBody =>
    body.all ? { all: true } : { provider: body.provider!, model: body.model!, connectionId: body.connection ?? body.connectionId ?? null },
  );

export type ClearModelCooldownsBody = { all: true } | { provider: string; model: string; connectionId: string | null };

/** POST /api/resilience/reset (R2.6): `{}` resets every breaker, `{provider}` one. */
export const resetBreakersBodySchema = closedObject({ provider: shortId.optional() });

export type ResetBreakersBody = z.infer<typeof resetBreakersBodySchema>;

/**
 * GET /api/resilience/cooldowns: an optional provider filter. Anything but a non-empty string
 * (a repeated query parameter, say) means "no filter", as it always has.
 */
export const listCooldownsQuerySchema = z.object({
  provider: z
    .unknown()
    .optional()
    .transform((value) => (typeof value === "string" && value !== "" ? value : undefined)),
});

/** POST /api/rate-limits (R9.5): `enabled: null` returns the connection to the automatic rule. */
export const rateLimitProtectionBodySchema = z.object({ connectionId: z.string().min(1).max(ID_MAX), enabled: z.boolean().nullable() }).strict();

/** POST /api/debug/clock: moves the test clock forward, at most a year at a time. */
export const advanceClockBodySchema = z
  .object({
    advanceMs: z
      .number()
      .min(0)
      .max(365 * 24 * 3_600_000),
  })
  .strict();
