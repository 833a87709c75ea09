// main/api: the management API (handlers over narrow store ports) and its HTTP transport.
export { ApiError, conflict, fromStoreError, fromZodError, invalidRequest, joinPath, notFound } from "./errors.js";
export { type ManagementHandlers, type ManagementMethod, createManagementHandlers } from "./handlers.js";
export { type ConfigChange, type DepsWith, type EventBus, type HandlersFor, type ManagementDeps, type ResilienceValidator, parseInput } from "./handlerTypes.js";
export type { ApiKeysPort, CatalogReader, CombosPort, ConnectionsPort, ManagementStore, ProvidersPort, RequestLogReader, SettingsPort, StorePorts } from "./ports.js";
export { invokeContract, parseContractInput } from "./dispatch.js";
export { isAvailable, unavailable, unavailableHandlers } from "./unavailable.js";
export { type ApiRouterDeps, DEFAULT_BODY_LIMIT_BYTES, createApiRouter } from "./httpAdapter.js";
export { type HostGuardOptions, createHostGuard, isLoopbackHost, isLoopbackHostname, isSameLoopbackOrigin } from "./hostGuard.js";
export { SSE_HEARTBEAT_MS, sseEventsHandler } from "./sse.js";
export { type RawResponse, isRawResponse, rawResponse } from "./rawResponse.js";
export { CONFIG_DOCUMENT_VERSION, type ConfigDocument, buildConfigDocument } from "./configExport.js";
export { type ApplyConfigOptions, type ConfigImportResult, type Env, type ImportCounts, applyConfigDocument } from "./configImport.js";
export { type ConfigTextFormat, configFormatOf, loadConfigFile, parseConfigText } from "./configFile.js";
export { createMonitoringHandlers, statsWindow, toRequestStats } from "./monitoringHandlers.js";
export { createQuotaHandlers } from "./quotaHandlers.js";
export { type AdjustableClock, type BudgetRows, type SettingsCache, createResilienceHandlers } from "./resilienceHandlers.js";
export { type SessionHandlerDeps, createSessionHandlers } from "./sessionHandlers.js";
