// The one typed contract (R14.3): every management operation, with its HTTP verb and path.
// main/api serves it over HTTP, main/desktop over IPC, renderer/transport calls it through either.
// Input validation schemas live in shared/schemas.ts (one schema library: zod).

export type HttpVerb = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

export interface ContractEntry {
  verb: HttpVerb;
  /** Express-style path; `:name` segments are filled from the input object. */
  path: string;
  /** Where the rest of the input comes from: the JSON body or the query string. */
  input: "body" | "query" | "none";
  /** HTTP status on success (default 200). */
  status?: number;
}

export const CONTRACT = {
  listProviders: { verb: "GET", path: "/api/providers", input: "none" },
  getProvider: { verb: "GET", path: "/api/providers/:id", input: "none" },
  createProvider: { verb: "POST", path: "/api/providers", input: "body", status: 201 },
  updateProvider: { verb: "PATCH", path: "/api/providers/:id", input: "body" },
  replaceProvider: { verb: "PUT", path: "/api/providers/:id", input: "body" },
  deleteProvider: { verb: "DELETE", path: "/api/providers/:id", input: "none" },

  listConnections: { verb: "GET", path: "/api/connections", input: "query" },
  getConnection: { verb: "GET", path: "/api/connections/:id", input: "none" },
  createConnection: { verb: "POST", path: "/api/connections", input: "body", status: 201 },
  updateConnection: { verb: "PATCH", path: "/api/connections/:id", input: "body" },
  replaceConnection: { verb: "PUT", path: "/api/connections/:id", input: "body" },
  deleteConnection: { verb: "DELETE", path: "/api/connections/:id", input: "none" },
  testConnection: { verb: "POST", path: "/api/connections/:id/test", input: "none" },

  listCombos: { verb: "GET", path: "/api/combos", input: "none" },
  createCombo: { verb: "POST", path: "/api/combos", input: "body", status: 201 },
  updateCombo: { verb: "PATCH", path: "/api/combos/:name", input: "body" },
  deleteCombo: { verb: "DELETE", path: "/api/combos/:name", input: "none" },

  listKeys: { verb: "GET", path: "/api/keys", input: "none" },
  createKey: { verb: "POST", path: "/api/keys", input: "body", status: 201 },
  deleteKey: { verb: "DELETE", path: "/api/keys/:id", input: "none" },

  getResilience: { verb: "GET", path: "/api/resilience", input: "none" },
  patchResilience: { verb: "PATCH", path: "/api/resilience", input: "body" },
  /** Where each resilience value comes from: the saved document and the env-seeded defaults (R10.2). */
  getResilienceSources: { verb: "GET", path: "/api/resilience/sources", input: "none" },
  resetBreakers: { verb: "POST", path: "/api/resilience/reset", input: "body" },
  listCooldowns: { verb: "GET", path: "/api/resilience/cooldowns", input: "query" },
  clearCooldowns: { verb: "POST", path: "/api/resilience/cooldowns", input: "body" },
  listModelCooldowns: { verb: "GET", path: "/api/resilience/model-cooldowns", input: "none" },
  clearModelCooldowns: { verb: "DELETE", path: "/api/resilience/model-cooldowns", input: "body" },
  monitoringHealth: { verb: "GET", path: "/api/monitoring/health", input: "none" },
  /** Requests, errors and latency per provider in time buckets, aggregated over the whole log (R14.2). */
  requestStats: { verb: "GET", path: "/api/monitoring/stats", input: "query" },
  setRateLimitProtection: { verb: "POST", path: "/api/rate-limits", input: "body" },

  getSettings: { verb: "GET", path: "/api/settings", input: "none" },
  patchSettings: { verb: "PATCH", path: "/api/settings", input: "body" },

  listLogs: { verb: "GET", path: "/api/logs", input: "query" },
  exportConfig: { verb: "GET", path: "/api/config/export", input: "query" },
  importConfig: { verb: "POST", path: "/api/config/import", input: "body" },

  getClock: { verb: "GET", path: "/api/debug/clock", input: "none" },
  advanceClock: { verb: "POST", path: "/api/debug/clock", input: "body" },
} as const satisfies Record<string, ContractEntry>;

export type ContractMethod = keyof typeof CONTRACT;

/** Error shape of every management failure (HTTP body and IPC rejection alike). */
export interface ContractError {
  error: { code: string; message: string; path?: string };
}

/** The IPC channel names: one invoke channel for calls, one push channel for events. */
export const IPC_INVOKE_CHANNEL = "switchyard:invoke";
export const IPC_EVENT_CHANNEL = "switchyard:event";
