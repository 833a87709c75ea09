// Combos: named multi-target models (API.md "Combos", R11.1).
import type { Combo } from "../../shared/types.js";
import { catalogFromStore, checkComboNameFree, checkComboTargets } from "./catalog.js";
import { fromStoreError, notFound } from "./errors.js";
import { type DepsWith, type HandlersFor, emitConfigChanges } from "./handlerTypes.js";
import type { CatalogReader, StorePorts } from "./ports.js";
import { readAppSettings } from "./settingsDocument.js";

export const DEFAULT_COMBO_STRATEGY = "priority";

export function createComboHandlers(
  deps: Omit<DepsWith<"combos" | "settings">, "store"> & { store: CatalogReader & StorePorts<"combos" | "settings"> },
): HandlersFor<"listCombos" | "createCombo" | "updateCombo" | "deleteCombo"> {
  const { store } = deps;
  const catalog = () => catalogFromStore(store, Object.keys(readAppSettings(store).aliases));

  return {
    listCombos: () => store.combos.list(),

    createCombo(body) {
      const known = catalog();
      checkComboNameFree(known, body.name, "name");
      checkComboTargets(known, body.targets, "", body.name);
      let created: Combo;
      try {
        created = store.combos.create({
          name: body.name,
          strategy: body.strategy ?? DEFAULT_COMBO_STRATEGY,
          targets: body.targets,
          config: body.config ?? {},
        });
      } catch (err) {
        throw fromStoreError(err, "name");
      }
      emitConfigChanges(deps, [{ entity: "combo", id: created.name, action: "created" }]);
      return created;
    },

    updateCombo({ name, ...patch }) {
      if (!store.combos.get(name)) throw notFound("combo", name);
      if (patch.targets) checkComboTargets(catalog(), patch.targets, "", name);
      const updated = store.combos.update(name, patch);
      if (!updated) throw notFound("combo", name);
      emitConfigChanges(deps, [{ entity: "combo", id: name, action: "updated" }]);
      return updated;
    },

    deleteCombo({ name }) {
      if (!store.combos.delete(name)) throw notFound("combo", name);
      emitConfigChanges(deps, [{ entity: "combo", id: name, action: "deleted" }]);
      return { ok: true, name };
    },
  };
}
