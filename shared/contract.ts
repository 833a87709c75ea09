// The one typed contract (R14.3): every management operation with its HTTP verb and path, the zod
// schema its input must pass and the type of its answer. main/api serves it over HTTP, main/desktop
// over IPC and to the tray, renderer/transport calls it through either; all of them are typed by
// this table, so a method added here without a handler, or read with the wrong type, fails to compile.
//
// Schemas are named here by type only, so the renderer bundle carries the routes but not zod;
// shared/contractInputs.ts holds the schema objects, and the compiler holds that table to exactly
// the schema each entry names.
import type { z } from "zod";
import type {
  ClearCooldownsResult,
  ClearModelCooldownsResult,
  ClientActivity,
  ClockReading,
  ConfigDocument,
  ConfigImportPreview,
  ConfigImportResponse,
  DemoStartResult,
  InstanceSummary,
  ConnectionTestResult,
  CooldownRow,
  CreatedKey,
  DeletedById,
  DeletedByName,
  ModelLockoutItem,
  MonitoringHealth,
  ProviderDoctorReport,
  RateLimitProtectionResult,
  RawResponse,
  RequestStats,
  ResetBreakersResult,
  ResilienceSources,
  SessionLeaseItem,
  SessionPinItem,
  UsageQuotaItem,
  UsageReport,
} from "./apiTypes.js";
import type { ResilienceSettings } from "./resilienceSettings.js";
import type {
  byIdSchema,
  byNameSchema,
  comboCreateSchema,
  comboUpdateSchema,
  configImportSchema,
  connectionCreateSchema,
  connectionReplaceByIdSchema,
  connectionUpdateSchema,
  exportQuerySchema,
  keyCreateSchema,
  listConnectionsQuerySchema,
  logsQuerySchema,
  noInputSchema,
  providerCreateSchema,
  providerUpdateSchema,
  settingsPatchSchema,
} from "./schemas/config.js";
import type { requestStatsQuerySchema } from "./schemas/monitoring.js";
import type {
  advanceClockBodySchema,
  clearCooldownsBodySchema,
  clearModelCooldownsBodySchema,
  listCooldownsQuerySchema,
  rateLimitProtectionBodySchema,
  resetBreakersBodySchema,
  resiliencePatchSchema,
} from "./schemas/resilience.js";
import type { leaseConnectionSchema, sessionKeySchema } from "./schemas/sessions.js";
import type { keyUpdateSchema, usageQuerySchema } from "./schemas/usage.js";
import type { ApiKeyInfo, AppSettings, Combo, Connection, Provider, RequestLogEntry } from "./types.js";

export type HttpVerb = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

export interface ContractRoute {
  verb: HttpVerb;
  /** Express-style path; `:name` segments are filled from the input object. */
  path: string;
  /** Where the input other than path parameters comes from over HTTP. */
  source: "body" | "query" | "none";
  /** HTTP status on success (default 200). */
  status?: number;
}

export interface ContractEntry<Input extends z.ZodType = z.ZodType, Output = unknown> extends ContractRoute {
  /**
   * Type only: the schema the adapters (HTTP, IPC, tray) check the input with before the handler
   * runs, path parameters included, and the answer's type. Neither exists at run time.
   */
  readonly types?: { input: Input; output: Output };
}

/** Declares an entry: `method<typeof inputSchema, Output>()({ verb, path, source })`. */
function method<Input extends z.ZodType, Output>() {
  return (route: ContractRoute): ContractEntry<Input, Output> => route;
}

export const CONTRACT = {
  listProviders: method<typeof noInputSchema, Provider[]>()({ verb: "GET", path: "/api/providers", source: "none" }),
  getProvider: method<typeof byIdSchema, Provider>()({ verb: "GET", path: "/api/providers/:id", source: "none" }),
  createProvider: method<typeof providerCreateSchema, Provider>()({ verb: "POST", path: "/api/providers", source: "body", status: 201 }),
  updateProvider: method<typeof providerUpdateSchema, Provider>()({ verb: "PATCH", path: "/api/providers/:id", source: "body" }),
  replaceProvider: method<typeof providerCreateSchema, Provider>()({ verb: "PUT", path: "/api/providers/:id", source: "body" }),
  deleteProvider: method<typeof byIdSchema, DeletedById>()({ verb: "DELETE", path: "/api/providers/:id", source: "none" }),
  /** R23.4: tiny requests on the provider's first active connection, one row per check. */
  doctorProvider: method<typeof byIdSchema, ProviderDoctorReport>()({ verb: "POST", path: "/api/providers/:id/doctor", source: "none" }),

  listConnections: method<typeof listConnectionsQuerySchema, Connection[]>()({ verb: "GET", path: "/api/connections", source: "query" }),
  getConnection: method<typeof byIdSchema, Connection>()({ verb: "GET", path: "/api/connections/:id", source: "none" }),
  createConnection: method<typeof connectionCreateSchema, Connection>()({ verb: "POST", path: "/api/connections", source: "body", status: 201 }),
  updateConnection: method<typeof connectionUpdateSchema, Connection>()({ verb: "PATCH", path: "/api/connections/:id", source: "body" }),
  replaceConnection: method<typeof connectionReplaceByIdSchema, Connection>()({ verb: "PUT", path: "/api/connections/:id", source: "body" }),
  deleteConnection: method<typeof byIdSchema, DeletedById>()({ verb: "DELETE", path: "/api/connections/:id", source: "none" }),
  testConnection: method<typeof byIdSchema, ConnectionTestResult>()({ verb: "POST", path: "/api/connections/:id/test", source: "none" }),

  listCombos: method<typeof noInputSchema, Combo[]>()({ verb: "GET", path: "/api/combos", source: "none" }),
  createCombo: method<typeof comboCreateSchema, Combo>()({ verb: "POST", path: "/api/combos", source: "body", status: 201 }),
  updateCombo: method<typeof comboUpdateSchema, Combo>()({ verb: "PATCH", path: "/api/combos/:name", source: "body" }),
  deleteCombo: method<typeof byNameSchema, DeletedByName>()({ verb: "DELETE", path: "/api/combos/:name", source: "none" }),

  listKeys: method<typeof noInputSchema, ApiKeyInfo[]>()({ verb: "GET", path: "/api/keys", source: "none" }),
  createKey: method<typeof keyCreateSchema, CreatedKey>()({ verb: "POST", path: "/api/keys", source: "body", status: 201 }),
  /** Rename a key or set its budget (R18.4); the key itself never changes. */
  updateKey: method<typeof keyUpdateSchema, ApiKeyInfo>()({ verb: "PATCH", path: "/api/keys/:id", source: "body" }),
  deleteKey: method<typeof byIdSchema, DeletedById>()({ verb: "DELETE", path: "/api/keys/:id", source: "none" }),

  /** Tokens and cost by provider, connection, model, client or key, per hour or day, from rollups (R18.2). */
  getUsage: method<typeof usageQuerySchema, UsageReport>()({ verb: "GET", path: "/api/usage", source: "query" }),
  /** The same report as CSV text, one line per group and bucket. */
  getUsageCsv: method<typeof usageQuerySchema, RawResponse>()({ verb: "GET", path: "/api/usage.csv", source: "query" }),
  /** What each connection's rate-limit and subscription headers last said, per window (R18.3). */
  listQuotas: method<typeof noInputSchema, { items: UsageQuotaItem[] }>()({ verb: "GET", path: "/api/usage/quotas", source: "none" }),

  getResilience: method<typeof noInputSchema, ResilienceSettings>()({ verb: "GET", path: "/api/resilience", source: "none" }),
  patchResilience: method<typeof resiliencePatchSchema, ResilienceSettings>()({ verb: "PATCH", path: "/api/resilience", source: "body" }),
  /** Where each resilience value comes from: the saved document and the env-seeded defaults (R10.2). */
  getResilienceSources: method<typeof noInputSchema, ResilienceSources>()({ verb: "GET", path: "/api/resilience/sources", source: "none" }),
  resetBreakers: method<typeof resetBreakersBodySchema, ResetBreakersResult>()({ verb: "POST", path: "/api/resilience/reset", source: "body" }),
  listCooldowns: method<typeof listCooldownsQuerySchema, { items: CooldownRow[] }>()({ verb: "GET", path: "/api/resilience/cooldowns", source: "query" }),
  clearCooldowns: method<typeof clearCooldownsBodySchema, ClearCooldownsResult>()({ verb: "POST", path: "/api/resilience/cooldowns", source: "body" }),
  listModelCooldowns: method<typeof noInputSchema, { items: ModelLockoutItem[] }>()({ verb: "GET", path: "/api/resilience/model-cooldowns", source: "none" }),
  clearModelCooldowns: method<typeof clearModelCooldownsBodySchema, ClearModelCooldownsResult>()({ verb: "DELETE", path: "/api/resilience/model-cooldowns", source: "body" }),
  monitoringHealth: method<typeof noInputSchema, MonitoringHealth>()({ verb: "GET", path: "/api/monitoring/health", source: "none" }),
  /** Requests, errors and latency per provider in time buckets, aggregated over the whole log (R14.2). */
  requestStats: method<typeof requestStatsQuerySchema, RequestStats>()({ verb: "GET", path: "/api/monitoring/stats", source: "query" }),
  setRateLimitProtection: method<typeof rateLimitProtectionBodySchema, RateLimitProtectionResult>()({ verb: "POST", path: "/api/rate-limits", source: "body" }),

  /** Session pins and exclusive leases (R7): read, unpin, force-release; never a token. */
  listSessionPins: method<typeof noInputSchema, { items: SessionPinItem[] }>()({ verb: "GET", path: "/api/sessions/pins", source: "none" }),
  unpinSession: method<typeof sessionKeySchema, { ok: true; removed: boolean }>()({ verb: "DELETE", path: "/api/sessions/pins/:key", source: "none" }),
  listSessionLeases: method<typeof noInputSchema, { items: SessionLeaseItem[] }>()({ verb: "GET", path: "/api/sessions/leases", source: "none" }),
  releaseSessionLease: method<typeof leaseConnectionSchema, { ok: true; released: boolean }>()({ verb: "DELETE", path: "/api/sessions/leases/:connectionId", source: "none" }),

  getSettings: method<typeof noInputSchema, AppSettings>()({ verb: "GET", path: "/api/settings", source: "none" }),
  patchSettings: method<typeof settingsPatchSchema, AppSettings>()({ verb: "PATCH", path: "/api/settings", source: "body" }),

  listLogs: method<typeof logsQuerySchema, RequestLogEntry[]>()({ verb: "GET", path: "/api/logs", source: "query" }),
  /** One request with its timeline (attempts, what was skipped before dispatch, the outcome). */
  getLog: method<typeof byIdSchema, RequestLogEntry>()({ verb: "GET", path: "/api/logs/:id", source: "none" }),
  /** The newest request seen from each kind of client (from its user-agent). */
  listClientActivity: method<typeof noInputSchema, { items: ClientActivity[] }>()({ verb: "GET", path: "/api/clients", source: "none" }),
  /** JSON by default; `format: "yaml"` answers the YAML text (a RawResponse over IPC). */
  exportConfig: method<typeof exportQuerySchema, ConfigDocument | RawResponse>()({ verb: "GET", path: "/api/config/export", source: "query" }),
  importConfig: method<typeof configImportSchema, ConfigImportResponse>()({ verb: "POST", path: "/api/config/import", source: "body" }),
  /** The import's dry run: what it would change, nothing written; the same 400 for a bad document. */
  previewConfigImport: method<typeof configImportSchema, ConfigImportPreview>()({ verb: "POST", path: "/api/config/import/preview", source: "body" }),
  /** This instance's gateway address and version. */
  getInstance: method<typeof noInputSchema, InstanceSummary>()({ verb: "GET", path: "/api/instance", source: "none" }),
  /** Starts the built-in simulated demo (R0.5) in a running instance. */
  startDemo: method<typeof noInputSchema, DemoStartResult>()({ verb: "POST", path: "/api/demo", source: "none" }),

  /** The test clock (--test-clock); with the real clock both answer 404 not_found. */
  getClock: method<typeof noInputSchema, ClockReading>()({ verb: "GET", path: "/api/debug/clock", source: "none" }),
  advanceClock: method<typeof advanceClockBodySchema, ClockReading>()({ verb: "POST", path: "/api/debug/clock", source: "body" }),
} as const satisfies Record<string, ContractEntry>;

export type ContractMethod = keyof typeof CONTRACT;

type TypesOf<M extends ContractMethod> = NonNullable<(typeof CONTRACT)[M]["types"]>;

/** The zod schema of a method's input (shared/contractInputs.ts holds the objects). */
export type ContractSchema<M extends ContractMethod> = TypesOf<M>["input"];

/** What a caller sends (before the schema's defaults and coercions). */
export type ContractRequest<M extends ContractMethod> = z.input<ContractSchema<M>>;

/** What a handler receives: the input after its schema has parsed it. */
export type ContractInput<M extends ContractMethod> = z.output<ContractSchema<M>>;

export type ContractOutput<M extends ContractMethod> = TypesOf<M>["output"];

/** The arguments of a call: the input may be left out when every field of it is optional. */
export type ContractCallArgs<M extends ContractMethod> = Record<string, never> extends ContractRequest<M> ? [input?: ContractRequest<M>] : [input: ContractRequest<M>];

export type ContractHandler<M extends ContractMethod> = (input: ContractInput<M>) => ContractOutput<M> | Promise<ContractOutput<M>>;

/** One handler per method, none missing: what the HTTP adapter, the IPC adapter and the tray serve. */
export type ContractHandlers = { readonly [M in ContractMethod]: ContractHandler<M> };

/** Error shape of every management failure (HTTP body and IPC rejection alike). */
export interface ContractError {
  error: { code: string; message: string; path?: string };
}

/** The IPC channel names: one invoke channel for calls, one push channel for events. */
export const IPC_INVOKE_CHANNEL = "switchyard:invoke";
export const IPC_EVENT_CHANNEL = "switchyard:event";
