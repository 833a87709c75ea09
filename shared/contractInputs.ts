// The input schema of every contract method, as objects the adapters run. Kept apart from
// shared/contract.ts only so that the renderer, which needs the routes, does not bundle zod; the
// `satisfies` clause holds each schema to exactly the one its contract entry names.
import type { ContractMethod, ContractSchema } from "./contract.js";
import {
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
import { requestStatsQuerySchema } from "./schemas/monitoring.js";
import {
  advanceClockBodySchema,
  clearCooldownsBodySchema,
  clearModelCooldownsBodySchema,
  listCooldownsQuerySchema,
  rateLimitProtectionBodySchema,
  resetBreakersBodySchema,
  resiliencePatchSchema,
} from "./schemas/resilience.js";
import { leaseConnectionSchema, sessionKeySchema } from "./schemas/sessions.js";
import { keyUpdateSchema, usageQuerySchema } from "./schemas/usage.js";

export const CONTRACT_INPUTS = {
  listProviders: noInputSchema,
  getProvider: byIdSchema,
  createProvider: providerCreateSchema,
  updateProvider: providerUpdateSchema,
  replaceProvider: providerCreateSchema,
  deleteProvider: byIdSchema,
  doctorProvider: byIdSchema,

  listConnections: listConnectionsQuerySchema,
  getConnection: byIdSchema,
  createConnection: connectionCreateSchema,
  updateConnection: connectionUpdateSchema,
  replaceConnection: connectionReplaceByIdSchema,
  deleteConnection: byIdSchema,
  testConnection: byIdSchema,

  listCombos: noInputSchema,
  createCombo: comboCreateSchema,
  updateCombo: comboUpdateSchema,
  deleteCombo: byNameSchema,

  listKeys: noInputSchema,
  createKey: keyCreateSchema,
  updateKey: keyUpdateSchema,
  deleteKey: byIdSchema,
  getUsage: usageQuerySchema,
  getUsageCsv: usageQuerySchema,
  listQuotas: noInputSchema,

  getResilience: noInputSchema,
  patchResilience: resiliencePatchSchema,
  getResilienceSources: noInputSchema,
  resetBreakers: resetBreakersBodySchema,
  listCooldowns: listCooldownsQuerySchema,
  clearCooldowns: clearCooldownsBodySchema,
  listModelCooldowns: noInputSchema,
  clearModelCooldowns: clearModelCooldownsBodySchema,
  monitoringHealth: noInputSchema,
  requestStats: requestStatsQuerySchema,
  setRateLimitProtection: rateLimitProtectionBodySchema,

  listSessionPins: noInputSchema,
  unpinSession: sessionKeySchema,
  listSessionLeases: noInputSchema,
  releaseSessionLease: leaseConnectionSchema,
  getSettings: noInputSchema,
  patchSettings: settingsPatchSchema,

  listLogs: logsQuerySchema,
  getLog: byIdSchema,
  listClientActivity: noInputSchema,
  exportConfig: exportQuerySchema,
  importConfig: configImportSchema,
  previewConfigImport: configImportSchema,
  startDemo: noInputSchema,
  getInstance: noInputSchema,

  getClock: noInputSchema,
  advanceClock: advanceClockBodySchema,
} satisfies { [M in ContractMethod]: ContractSchema<M> };
