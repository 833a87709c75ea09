// R0.4 import, dry run: what POST /api/config/import would change, from the same plan the import
// applies, so the dashboard can show it before the operator confirms. Nothing is written; a bad
// document fails here with the same 400 (naming its field) the import would give.
import type { ConfigImportPreview, ConfigPreviewChange } from "../../shared/apiTypes.js";
import type { AppSettings } from "../../shared/types.js";
import { type Env, type ImportPlan, planConfigImport } from "./configImportPlan.js";
import type { ResilienceValidator } from "./handlerTypes.js";
import type { ManagementStore } from "./ports.js";
import { readAppSettings, readResilienceDocument } from "./settingsDocument.js";

type PreviewStore = Pick<ManagementStore, "providers" | "connections" | "combos" | "apiKeys" | "settings">;

/** Fields of `patch` whose value differs from `current` (deep, by JSON). */
function changedFields(current: object | null, patch: object): string[] {
  const now = new Map<string, unknown>(Object.entries(current ?? {}));
  return Object.entries(patch)
    .filter(([key, value]) => value !== undefined && JSON.stringify(value) !== JSON.stringify(now.get(key)))
    .map(([key]) => key)
    .sort();
}

function updateOrUnchanged(entity: ConfigPreviewChange["entity"], id: string, fields: string[]): ConfigPreviewChange {
  return { entity, id, action: fields.length > 0 ? "update" : "unchanged", fields };
}

function entityChanges(store: PreviewStore, plan: ImportPlan): ConfigPreviewChange[] {
  const changes: ConfigPreviewChange[] = [];
  for (const step of plan.providers) {
    if (step.kind === "create") changes.push({ entity: "provider", id: step.input.id, action: "create", fields: [] });
    else changes.push(updateOrUnchanged("provider", step.id, changedFields(store.providers.get(step.id), step.patch)));
  }
  for (const step of plan.connections) {
    if (step.kind === "create") {
      changes.push({ entity: "connection", id: step.input.id, action: "create", fields: step.secret === undefined ? [] : ["apiKey"] });
      continue;
    }
    const fields = changedFields(store.connections.get(step.id), step.patch);
    // A secret is never compared (it is not readable): a given one counts as a change.
    if (step.secret !== undefined) fields.push("apiKey");
    changes.push(updateOrUnchanged("connection", step.id, fields));
  }
  for (const step of plan.combos) {
    if (step.kind === "create") changes.push({ entity: "combo", id: step.combo.name, action: "create", fields: [] });
    else changes.push(updateOrUnchanged("combo", step.name, changedFields(store.combos.get(step.name), step.patch)));
  }
  for (const step of plan.keys) {
    if (step.kind === "keep") changes.push({ entity: "key", id: step.id, action: "unchanged", fields: [] });
    else changes.push({ entity: "key", id: step.name, action: step.replaces === null ? "create" : "replace", fields: [] });
  }
  return changes;
}

function settingsFields(before: AppSettings, after: AppSettings | null): string[] {
  return after ? changedFields(before, after) : [];
}

export function previewConfigImport(store: PreviewStore, doc: unknown, env: Env, validateResilience?: ResilienceValidator): ConfigImportPreview {
  const settingsBefore = readAppSettings(store);
  const resilienceBefore = readResilienceDocument(store);
  const plan = planConfigImport(store, doc, env, validateResilience);
  const changes = entityChanges(store, plan);
  return {
    ok: true,
    changes,
    settings: settingsFields(settingsBefore, plan.settings),
    resilience: plan.resilience === null ? [] : changedFields(resilienceBefore, plan.resilience),
    total: changes.filter((c) => c.action !== "unchanged").length,
  };
}
