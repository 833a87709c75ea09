// GET /api/config/export, POST /api/config/import and its dry run /api/config/import/preview (R0.4).
import YAML from "yaml";
import type { ConfigDocument } from "../../shared/apiTypes.js";
import { REDACTED_SECRET } from "../../shared/schemas/config.js";
import { buildConfigDocument } from "./configExport.js";
import { parseConfigText } from "./configFile.js";
import { applyConfigDocument } from "./configImport.js";
import { previewConfigImport } from "./configPreview.js";
import { type DepsWith, type HandlersFor, emitConfigChanges } from "./handlerTypes.js";
import type { ManagementStore } from "./ports.js";
import { rawResponse } from "./rawResponse.js";

/** The environment variable an `env` export names for a connection's secret: SWITCHYARD_KEY_<PROVIDER>_<ID>. */
export function secretEnvName(provider: string, connectionId: string): string {
  return `SWITCHYARD_KEY_${provider}_${connectionId}`.toUpperCase().replace(/[^A-Z0-9_]/g, "_");
}

/** Every redacted secret becomes an `env:NAME` reference, so the file imports on another machine once NAME is set. */
function withEnvSecrets(doc: ConfigDocument): ConfigDocument {
  return {
    ...doc,
    connections: doc.connections.map((c) => (c.apiKey === REDACTED_SECRET ? { ...c, apiKey: `env:${secretEnvName(c.provider, c.id)}` } : c)),
  };
}

type ImportInput = { kind: "text"; format: "json" | "yaml"; text: string } | { kind: "document"; document: unknown };

function documentOf(input: ImportInput): unknown {
  return input.kind === "text" ? parseConfigText(input.text, input.format) : input.document;
}

export function createConfigHandlers(deps: DepsWith<keyof ManagementStore>): HandlersFor<"exportConfig" | "importConfig" | "previewConfigImport"> {
  const { store } = deps;

  return {
    exportConfig({ format, secrets }) {
      const built = buildConfigDocument(store);
      const doc = secrets === "env" ? withEnvSecrets(built) : built;
      return format === "yaml" ? rawResponse("text/yaml; charset=utf-8", YAML.stringify(doc)) : doc;
    },

    previewConfigImport(input) {
      return previewConfigImport(store, documentOf(input), process.env, deps.validateResilience);
    },

    importConfig(input) {
      const result = applyConfigDocument(store, documentOf(input), process.env, { validateResilience: deps.validateResilience });
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
