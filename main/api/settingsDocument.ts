// The two settings documents of the store and how a patch lands on the general one.
import { normaliseAppSettings } from "../../shared/schemas/appSettings.js";
import type { SettingsPatchBody } from "../../shared/schemas/config.js";
import type { AppSettings } from "../../shared/types.js";
import { isRecord } from "../../shared/records.js";
import type { SettingsPort } from "./ports.js";

export const SETTINGS_DOCUMENT = "settings";
export const RESILIENCE_DOCUMENT = "resilience";

export function readAppSettings(store: { settings: SettingsPort }): AppSettings {
  return normaliseAppSettings(store.settings.getDocument(SETTINGS_DOCUMENT));
}

/**
 * Top-level keys replace what is stored (a list or map is edited as a whole, so removing an
 * alias or a rule is "send the list without it"); `emergencyFallback` merges its two fields.
 * The result is normalised, which clamps out-of-range numbers (R10.1).
 */
export function applySettingsPatch(current: AppSettings, patch: SettingsPatchBody): AppSettings {
  const { emergencyFallback, ...rest } = patch;
  const defined = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
  return normaliseAppSettings({
    ...current,
    ...defined,
    emergencyFallback: { ...current.emergencyFallback, ...stripUndefined(emergencyFallback ?? {}) },
  });
}

/**
 * R11.6 with R10.2: until an operator saves `emergencyFallback`, OMNIROUTE_EMERGENCY_FALLBACK
 * decides it, so saving some other setting must not store the default in its place.
 */
export function withoutUnsavedEmergencyFallback(next: AppSettings, stored: unknown, patch: SettingsPatchBody): Partial<AppSettings> {
  if (patch.emergencyFallback !== undefined || (isRecord(stored) && stored.emergencyFallback !== undefined)) return next;
  const { emergencyFallback: _default, ...rest } = next;
  return rest;
}

/** Deep-merges a resilience patch into the stored raw document; arrays and scalars replace. */
export function mergeResilienceDocument(stored: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...stored };
  for (const [key, value] of Object.entries(patch)) {
    const previous = out[key];
    out[key] = isRecord(previous) && isRecord(value) ? mergeResilienceDocument(previous, value) : value;
  }
  return out;
}

export function readResilienceDocument(store: { settings: SettingsPort }): Record<string, unknown> {
  const stored = store.settings.getDocument(RESILIENCE_DOCUMENT);
  return isRecord(stored) ? stored : {};
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  const out = { ...value };
  for (const [key, v] of Object.entries(out)) if (v === undefined) Reflect.deleteProperty(out, key);
  return out;
}
