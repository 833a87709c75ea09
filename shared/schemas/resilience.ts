// Input schemas of the resilience routes (R10.1, R6.2/D6, R5.5/D5, R2.6). The patch schema
// rejects wrong types and unknown keys; numbers out of range are accepted here and clamped by
// normalizeResilienceSettings, which reports the change, so an operator is never refused for 61 s.
import { z } from "zod";
import { DEFAULT_RESILIENCE_SETTINGS } from "../resilienceSettings.js";
import type { ResilienceSettings } from "../resilienceSettings.js";

type DeepPatch<T> = T extends readonly unknown[]
  ? T | null
  : T extends object
    ? { [K in keyof T]?: DeepPatch<T[K]> | null }
    : T | null;

/** PATCH /api/resilience body: any subset of the document; `null` restores a field's default. */
export type ResiliencePatch = DeepPatch<ResilienceSettings>;

/**
 * An object that refuses unknown keys with the key's own path ("modelLockout.baseCooldwnMs"), so
 * that a 400 names the misspelt field rather than its parent (R10.1, D6).
 */
function closedObject<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.looseObject(shape).superRefine((value, ctx) => {
    for (const key of Object.keys(value)) {
      if (!(key in shape)) ctx.addIssue({ code: "custom", path: [key], message: "unknown field" });
    }
  });
}

// Derived from the defaults so that a new setting cannot be forgotten in the schema.
function schemaFor(sample: unknown): z.ZodType {
  if (Array.isArray(sample)) return z.array(z.number()).nullable().optional();
  if (typeof sample === "boolean") return z.boolean().nullable().optional();
  if (typeof sample === "number" || sample === null) return z.number().nullable().optional();
  const shape: Record<string, z.ZodType> = {};
  for (const [key, value] of Object.entries(sample as Record<string, unknown>)) shape[key] = schemaFor(value);
  return closedObject(shape).nullable().optional();
}

function patchSchema(): z.ZodType<ResiliencePatch> {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, value] of Object.entries(DEFAULT_RESILIENCE_SETTINGS)) shape[key] = schemaFor(value);
  // connectionCooldown.local is optional in the document, so it has no default to derive from.
  shape.connectionCooldown = closedObject({
    oauth: schemaFor(DEFAULT_RESILIENCE_SETTINGS.connectionCooldown.oauth),
    apikey: schemaFor(DEFAULT_RESILIENCE_SETTINGS.connectionCooldown.apikey),
    local: schemaFor(DEFAULT_RESILIENCE_SETTINGS.connectionCooldown.apikey),
    rateLimitResetSeconds: z.number().nullable().optional(),
  })
    .nullable()
    .optional();
  return closedObject(shape) as unknown as z.ZodType<ResiliencePatch>;
}

export const resiliencePatchSchema = patchSchema();

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
    body.all
      ? { all: true }
      : { provider: body.provider!, model: body.model!, connectionId: body.connection ?? body.connectionId ?? null },
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
export const rateLimitProtectionBodySchema = z
  .object({ connectionId: z.string().min(1).max(ID_MAX), enabled: z.boolean().nullable() })
  .strict();

/** POST /api/debug/clock: moves the test clock forward, at most a year at a time. */
export const advanceClockBodySchema = z.object({ advanceMs: z.number().finite().min(0).max(365 * 24 * 3_600_000) }).strict();
