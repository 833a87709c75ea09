// The resilience settings document, normalised once per save (R10.3: live apply) and read by the
// engine, the gateway and the management routes alike.
import { resilienceDefaults } from "../../shared/resilienceEnv.js";
import type { ResilienceSettings } from "../../shared/resilienceSettings.js";
import { normalizeResilienceSettings, resiliencePatchSchema } from "../../shared/schemas/resilienceDocument.js";
import { parseInput, type SettingsPort } from "../api/index.js";
import type { SettingsCache } from "../api/resilienceHandlers.js";

const RESILIENCE_KEY = "resilience";

/** The normalised resilience document, recomputed only when it is saved (R10.3: live apply). */
export function createSettingsCache(store: { settings: SettingsPort }, env: NodeJS.ProcessEnv): SettingsCache {
  let raw: Record<string, unknown> = {};
  let current: ResilienceSettings;
  const load = () => {
    raw = store.settings.getDocument<Record<string, unknown>>(RESILIENCE_KEY) ?? {};
    current = normalizeResilienceSettings(raw, env).settings;
  };
  load();
  return {
    get: () => current,
    reload: load,
    sources: () => ({ stored: raw, envDefaults: resilienceDefaults(env) }),
    validate: (doc) => parseInput(resiliencePatchSchema, doc),
    raw: () => raw,
    save(next) {
      const normalised = normalizeResilienceSettings(next, env).settings;
      store.settings.setDocument(RESILIENCE_KEY, next);
      raw = next;
      current = normalised;
      return normalised;
    },
  };
}
