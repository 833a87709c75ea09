// GET /api/config/export and POST /api/config/import (R0.4).
import YAML from "yaml";
import { configImportTextSchema, exportQuerySchema } from "../../shared/schemas/config.js";
import { buildConfigDocument } from "./configExport.js";
import { parseConfigText } from "./configFile.js";
import { applyConfigDocument } from "./configImport.js";
import {
  type ManagementDeps, type ManagementHandlers, emitConfigChanges, parseInput,
} from "./handlerTypes.js";
import { rawResponse } from "./rawResponse.js";

export function createConfigHandlers(deps: ManagementDeps): ManagementHandlers {
  const { store } = deps;

  return {
    exportConfig(input) {
      const { format } = parseInput(exportQuerySchema, input);
      const doc = buildConfigDocument(store);
      return format === "yaml" ? rawResponse("text/yaml; charset=utf-8", YAML.stringify(doc)) : doc;
    },

    importConfig(input) {
      const wrapped = configImportTextSchema.safeParse(input);
      const doc = wrapped.success ? parseConfigText(wrapped.data.text, wrapped.data.format) : input;
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
