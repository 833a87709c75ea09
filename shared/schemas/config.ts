// Input schemas of the management contract (R14.3: main validates every payload, once, at the
// adapter boundary). Shared so that the renderer can pre-validate forms with the same rules.
// Entity bodies strip unknown keys (a GET object may be sent back with server-side fields);
// the settings patch is strict, because a misspelt setting silently doing nothing is a trap.
import { z } from "zod";
import { budgetSchema } from "./usage.js";
import { COMBO_STRATEGIES, PROVIDER_CATEGORIES, PROVIDER_FORMATS } from "../catalog.js";
import type { ClientKind } from "../types.js";
import { settingsPatchSchema } from "./appSettings.js";
import { NAME_PATTERN, PROVIDER_MODEL_PATTERN, entityName, nonEmpty, providerId } from "./fields.js";

export { COMBO_STRATEGIES, PROVIDER_CATEGORIES, PROVIDER_FORMATS };

/** Every ClientKind, for the request log's client filter; the check below keeps the two the same. */
const CLIENT_KINDS = ["claude-code", "qwen-code", "aider", "codex-cli", "gemini-cli", "opencode", "ai-sdk", "openai-sdk", "anthropic-sdk", "genai-sdk", "curl", "other"] as const;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const clientKindsComplete: Same<(typeof CLIENT_KINDS)[number], ClientKind> = true;
void clientKindsComplete;
export { NAME_PATTERN, PROVIDER_ID_PATTERN, PROVIDER_MODEL_PATTERN } from "./fields.js";
export { type SettingsPatchBody, providerErrorDefaultSchema, providerErrorRuleSchema, settingsPatchSchema } from "./appSettings.js";

/** R4.3: per-provider and per-connection rate-limit retry delay, seconds. */
const RETRY_DELAY_SECONDS = { min: 1, max: 21_600 };

const stringList = z.array(nonEmpty);
const plainObject = z.record(z.string(), z.unknown());

// ---------------------------------------------------------------- providers

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/** Empty only makes sense for the simulator, which may be served in-process. */
const baseUrl = z.string().refine((value) => value === "" || isHttpUrl(value), "must be an http(s) URL");

/** Explicit model metadata the combo strategies read (R11.1); unknown fields are refused. */
const modelInfoSchema = z
  .object({
    inputPricePerMTok: z.number().min(0).optional(),
    outputPricePerMTok: z.number().min(0).optional(),
    contextWindow: z.number().int().min(1).optional(),
    cacheSupport: z.boolean().optional(),
    cacheReadPricePerMTok: z.number().min(0).optional(),
    cacheWritePricePerMTok: z.number().min(0).optional(),
  })
  .strict();

/** Every settable provider field, all optional and without defaults (a PATCH body). */
export const providerPatchSchema = z.object({
  format: z.enum(PROVIDER_FORMATS).optional(),
  baseUrl: baseUrl.optional(),
  category: z.enum(PROVIDER_CATEGORIES).optional(),
  models: stringList.optional(),
  quotaFamilies: z.record(nonEmpty, stringList).optional(),
  passthroughModels: z.boolean().optional(),
  rateLimitCooldownSeconds: z.number().int().min(RETRY_DELAY_SECONDS.min).max(RETRY_DELAY_SECONDS.max).nullable().optional(),
  /** R1.3: lower first, default 0. */
  priority: z.number().optional(),
  /** R8.1: the provider gate (requests in flight over all its connections); null = none. */
  maxConcurrent: z.number().int().min(1).nullable().optional(),
  options: plainObject.optional(),
  modelInfo: z.record(nonEmpty, modelInfoSchema).optional(),
});

/** POST /api/providers and PUT /api/providers/:id: a whole provider. */
export const providerCreateSchema = z.object({ id: providerId, ...providerPatchSchema.shape, format: z.enum(PROVIDER_FORMATS) }).superRefine((value, ctx) => {
  if (value.format !== "simulator" && !value.baseUrl) {
    ctx.addIssue({ code: "custom", path: ["baseUrl"], message: "is required (an http(s) URL)" });
  }
});

export type ProviderPatchBody = z.infer<typeof providerPatchSchema>;
export type ProviderCreateBody = z.infer<typeof providerCreateSchema>;

// ---------------------------------------------------------------- connections

const rateLimitOverridesSchema = z.object({
  maxConcurrent: z.number().int().min(1).nullable().optional(),
  modelConcurrency: z.record(nonEmpty, z.number().int().min(1)).optional(),
  maxWaitMs: z.number().int().min(0).optional(),
  executionMaxWaitMs: z.number().int().min(0).optional(),
});

// Loose: providers keep their own extra per-connection data next to the known fields.
const providerSpecificDataSchema = z.looseObject({
  rotationOverrides: z
    .object({
      rateLimitResetSeconds: z.number().int().min(RETRY_DELAY_SECONDS.min).max(RETRY_DELAY_SECONDS.max).optional(),
    })
    .optional(),
  lowPriorityMode: z.boolean().optional(),
  autoLimitReset: z.boolean().optional(),
  organizationUUID: z.string().optional(),
  /** R12.5: the local address the connection's upstream socket binds to (its egress IP). */
  egressIp: z.union([z.ipv4(), z.ipv6()]).optional(),
});

/** Every caller-settable connection field (runtime fields and rateLimitProtection are not). */
export const connectionPatchSchema = z.object({
  name: nonEmpty.max(200).optional(),
  /** undefined = keep the secret, null = remove it, string = replace it. */
  apiKey: z.string().min(1, "must not be empty").max(20_000).nullable().optional(),
  priority: z.number().optional(),
  weight: z.number().min(0).optional(),
  active: z.boolean().optional(),
  maxConcurrent: z.number().int().min(1).nullable().optional(),
  rateLimitOverrides: rateLimitOverridesSchema.optional(),
  providerSpecificData: providerSpecificDataSchema.optional(),
  disableCooling: z.boolean().optional(),
  /** R18.1: a flat-rate subscription; its cost is shown as notional. */
  subscription: z.boolean().optional(),
  budget: budgetSchema.nullable().optional(),
});

export const connectionCreateSchema = connectionPatchSchema.extend({
  id: entityName.optional(),
  provider: providerId,
  /** R21.1: "client" = no secret here; each request's own login is the credential. Set at creation only. */
  credential: z.enum(["key", "client"]).optional(),
});

/** PUT /api/connections/:id: a whole connection; `provider` may be restated but not changed. */
export const connectionReplaceSchema = connectionPatchSchema.extend({
  provider: providerId.optional(),
});

export type ConnectionPatchBody = z.infer<typeof connectionPatchSchema>;
export type ConnectionCreateBody = z.infer<typeof connectionCreateSchema>;

export const listConnectionsQuerySchema = z.object({ provider: z.string().optional() });

// ---------------------------------------------------------------- combos

export const comboTargetSchema = z.object({
  // D11: a target may also name another combo; whether that combo exists is checked on save.
  model: z.string().refine((v) => PROVIDER_MODEL_PATTERN.test(v) || NAME_PATTERN.test(v), 'must be "provider/model" or a combo name'),
  connectionId: entityName.optional(),
  weight: z.number().min(0).optional(),
});

// Loose: strategies read their own extra knobs from the combo config.
const comboConfigSchema = z.looseObject({
  comboCooldownWaitEnabled: z.boolean().optional(),
  targetTimeoutMs: z.number().int().min(0).optional(),
  quotaShare: z.boolean().optional(),
});

export const comboPatchSchema = z.object({
  strategy: z.enum(COMBO_STRATEGIES).optional(),
  targets: z.array(comboTargetSchema).min(1, "needs at least one target").max(100).optional(),
  config: comboConfigSchema.optional(),
});

export const comboCreateSchema = comboPatchSchema.extend({
  name: entityName,
  targets: z.array(comboTargetSchema).min(1, "needs at least one target").max(100),
});

export type ComboPatchBody = z.infer<typeof comboPatchSchema>;
export type ComboCreateBody = z.infer<typeof comboCreateSchema>;

// ---------------------------------------------------------------- API keys

/** The scopes some code checks (R7.2); a name nothing checks would only pretend to grant something. */
export const CLIENT_KEY_SCOPES = ["lease:exclusive"] as const;
const scope = z.enum(CLIENT_KEY_SCOPES, { error: `must be a known scope: ${CLIENT_KEY_SCOPES.join(", ")}` });

export const keyCreateSchema = z.object({
  name: nonEmpty.max(100),
  scopes: z.array(scope).max(32).optional(),
  allowedConnections: z.array(entityName).max(1000).optional(),
  budget: budgetSchema.nullable().optional(),
});

export type KeyCreateBody = z.infer<typeof keyCreateSchema>;

// ---------------------------------------------------------------- logs, export

export const logsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  provider: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  status: z.coerce.number().int().min(100).max(599).optional(),
  /** Only requests that named this combo (the combo page's "which target served"). */
  combo: z.string().min(1).optional(),
  /** The client kind from the user-agent (the request log and the connect page). */
  client: z.enum(CLIENT_KINDS).optional(),
  /** Epoch ms: requests from `since` (inclusive) to `until` (exclusive). */
  since: z.coerce.number().int().min(0).optional(),
  until: z.coerce.number().int().min(0).optional(),
});

export const exportQuerySchema = z.object({
  format: z.enum(["json", "yaml"]).default("json"),
  /** `redacted` (default) writes `<redacted>`; `env` writes an `env:NAME` reference to fill in per machine. */
  secrets: z.enum(["redacted", "env"]).default("redacted"),
});

// ---------------------------------------------------------------- config documents (R0.4)

/** What a secret looks like in an exported document: present, but never its value. */
export const REDACTED_SECRET = "<redacted>";

export const configProviderSchema = providerPatchSchema.extend({ id: providerId });

export const configConnectionSchema = connectionPatchSchema.extend({
  /** Absent: matched by provider + name, else created with a generated id. */
  id: entityName.optional(),
  provider: providerId,
  /** A literal, `env:NAME`, or `<redacted>` (keep the stored secret). */
  apiKey: z.string().min(1).max(20_000).nullable().optional(),
  /** R9.5 switch; only a config document or POST /api/rate-limits may set it. */
  rateLimitProtection: z.boolean().nullable().optional(),
  /** R21.1: a client-login connection (no key); honoured when the import creates the connection. */
  credential: z.enum(["key", "client"]).optional(),
});

export const configComboSchema = comboPatchSchema.extend({ name: entityName });

export const configApiKeySchema = keyCreateSchema.extend({
  /** `env:NAME` or a literal `sk-sy-…` key; absent = generated once, kept on later imports. */
  key: z.string().min(1).optional(),
});

export const configDocumentSchema = z.strictObject({
  version: z.literal(1).optional(),
  providers: z.array(configProviderSchema).optional(),
  connections: z.array(configConnectionSchema).optional(),
  combos: z.array(configComboSchema).optional(),
  apiKeys: z.array(configApiKeySchema).optional(),
  settings: settingsPatchSchema.optional(),
  resilience: plainObject.optional(),
});

export type ConfigDocumentInput = z.infer<typeof configDocumentSchema>;

/** POST /api/config/import may wrap a YAML (or JSON) text instead of sending the document. */
export const configImportTextSchema = z.strictObject({
  format: z.enum(["json", "yaml"]),
  text: z.string(),
});

/**
 * POST /api/config/import: a wrapped text, or the document itself. The document is checked by
 * the import (configDocumentSchema), which `--config` files go through as well.
 */
export const configImportSchema = z.union([
  configImportTextSchema.transform((wrapped) => ({ kind: "text" as const, ...wrapped })),
  plainObject.transform((document) => ({ kind: "document" as const, document })),
]);

// ---------------------------------------------------------------- contract inputs with path parameters

/** The HTTP adapter fills path parameters from the URL; an IPC caller must name them. */
const pathParam = z.string().min(1, "is required");

/** Methods that take no input: anything sent is ignored. */
export const noInputSchema = z.object({});
export const byIdSchema = z.object({ id: pathParam });
export const byNameSchema = z.object({ name: pathParam });

export const providerUpdateSchema = providerPatchSchema.extend({ id: pathParam });

/**
 * R9.5: `rateLimitProtection` is accepted here only so that the handler can refuse a change to it
 * (400 naming the field) instead of dropping it silently; echoing the stored value is allowed.
 */
export const connectionUpdateSchema = connectionPatchSchema.extend({ id: pathParam, rateLimitProtection: z.unknown().optional() });
export const connectionReplaceByIdSchema = connectionReplaceSchema.extend({ id: pathParam, rateLimitProtection: z.unknown().optional() });

export const comboUpdateSchema = comboPatchSchema.extend({ name: pathParam });
