// General settings and the request log (API.md "Settings", "Logs"; R10.3, R15.1).
import { type DepsWith, type HandlersFor } from "./handlerTypes.js";
import { SETTINGS_DOCUMENT, applySettingsPatch, readAppSettings, withoutUnsavedEmergencyFallback } from "./settingsDocument.js";

export function createSettingsHandlers(deps: DepsWith<"settings" | "logs">): HandlersFor<"getSettings" | "patchSettings" | "listLogs"> {
  const { store } = deps;

  return {
    getSettings: () => readAppSettings(store),

    patchSettings(patch) {
      const next = applySettingsPatch(readAppSettings(store), patch);
      store.settings.setDocument(SETTINGS_DOCUMENT, withoutUnsavedEmergencyFallback(next, store.settings.getDocument(SETTINGS_DOCUMENT), patch));
      // R10.3: the next request sees the change, and the renderer is told without polling.
      deps.onSettingsChanged?.();
      deps.bus.emit({ type: "settings", scope: "settings", at: deps.clock.now() });
      return next;
    },

    listLogs(query) {
      // Appends are batched off the hot path; a reader expects to see requests already answered.
      store.logs.flush();
      return store.logs.list(query);
    },
  };
}
