// The management handlers the API owns, as one table keyed by contract method. The resilience,
// monitoring, rate-limit and debug-clock methods are the engine's and are added by main/app;
// the complete table is typed ContractHandlers, so a method nobody serves fails to compile there.
import { createComboHandlers } from "./comboHandlers.js";
import { createConfigHandlers } from "./configHandlers.js";
import { createConnectionHandlers } from "./connectionHandlers.js";
import type { HandlersFor, ManagementDeps } from "./handlerTypes.js";
import { createKeyHandlers } from "./keyHandlers.js";
import { createLogHandlers } from "./logHandlers.js";
import { createProviderHandlers } from "./providerHandlers.js";
import { createSettingsHandlers } from "./settingsHandlers.js";

export type { ManagementDeps } from "./handlerTypes.js";

/** The contract methods main/api serves itself. */
export type ManagementMethod =
  | "listProviders"
  | "getProvider"
  | "createProvider"
  | "updateProvider"
  | "replaceProvider"
  | "deleteProvider"
  | "doctorProvider"
  | "listConnections"
  | "getConnection"
  | "createConnection"
  | "updateConnection"
  | "replaceConnection"
  | "deleteConnection"
  | "testConnection"
  | "listCombos"
  | "createCombo"
  | "updateCombo"
  | "deleteCombo"
  | "listKeys"
  | "createKey"
  | "updateKey"
  | "deleteKey"
  | "getSettings"
  | "patchSettings"
  | "listLogs"
  | "getLog"
  | "listClientActivity"
  | "exportConfig"
  | "importConfig"
  | "previewConfigImport";

export type ManagementHandlers = HandlersFor<ManagementMethod>;

export function createManagementHandlers(deps: ManagementDeps): ManagementHandlers {
  return {
    ...createProviderHandlers(deps),
    ...createConnectionHandlers(deps),
    ...createComboHandlers(deps),
    ...createKeyHandlers(deps),
    ...createSettingsHandlers(deps),
    ...createConfigHandlers(deps),
    ...createLogHandlers(deps),
  };
}
