// GET /api/config/export and POST /api/config/import (R0.4).
import YAML from "yaml";
import { buildConfigDocument } from "./configExport.js";
import { parseConfigText } from "./configFile.js";
import { applyConfigDocument } from "./configImport.js";
import { type DepsWith, type HandlersFor, emitConfigChanges } from "./handlerTypes.js";
import type { ManagementStore } from "./ports.js";
import { rawResponse } from "./rawResponse.js";

export function createConfigHandlers(deps: DepsWith<keyof ManagementStore>): HandlersFor<"exportConfig" | "importConfig"> {
  const { store } = deps;

  return {
    exportConfig({ format }) {
      const doc = buildConfigDocument(store);
      return format === "yaml" ? rawResponse("text/yaml; charset=utf-8", YAML.stringify(doc)) : doc;
    },

    importConfig(input) {
      const doc = input.kind === "text" ? parseConfigText(input.text, input.format) : input.document;
      const result = applyConfigDocument(store, doc, process.env, { validateResilience: deps.validateResilience });
      emitConfigChanges(deps, result.changes);
      const at = deps.clock.now();
      if (result.settingsChanged || result.resilienceChanged) deps.onSettingsChanged?.();
      if (result.settingsChanged) deps.bus.emit({ type: "settings", scope: "settings", at });
      if (result.resilienceChanged) deps.bus.emit({ type: "settings", scope: "resilience", at });
      return {
        ok: true,
        imported: result.imported,
        ...(result.createdKeys.length > 0 ? { createdKeys: result.createdKeys } : {}),
      };
    },
  };
}
