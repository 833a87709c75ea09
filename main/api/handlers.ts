// The management handlers the API owns, as one table keyed by contract method. The resilience,
// monitoring, rate-limit and debug-clock methods are the engine's and are added by main/app.
import { createComboHandlers } from "./comboHandlers.js";
import { createConfigHandlers } from "./configHandlers.js";
import { createConnectionHandlers } from "./connectionHandlers.js";
import type { ManagementDeps, ManagementHandlers } from "./handlerTypes.js";
import { createKeyHandlers } from "./keyHandlers.js";
import { createProviderHandlers } from "./providerHandlers.js";
import { createSettingsHandlers } from "./settingsHandlers.js";

export type { ConnectionTestResult, Handler, ManagementDeps, ManagementHandlers } from "./handlerTypes.js";

export function createManagementHandlers(deps: ManagementDeps): ManagementHandlers {
  return {
    ...createProviderHandlers(deps),
    ...createConnectionHandlers(deps),
    ...createComboHandlers(deps),
    ...createKeyHandlers(deps),
    ...createSettingsHandlers(deps),
    ...createConfigHandlers(deps),
  };
}
