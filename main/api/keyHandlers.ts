// Client API keys (API.md "API keys", R1.7). The plain key is returned once, by POST; the
// store keeps only its SHA-256, so no later response can contain it.
import type { CreatedKey } from "../../shared/apiTypes.js";
import { catalogFromStore, checkConnectionsExist } from "./catalog.js";
import { fromStoreError, notFound } from "./errors.js";
import { type DepsWith, type HandlersFor, emitConfigChanges, withBudgetUse } from "./handlerTypes.js";

export function createKeyHandlers(deps: DepsWith<"providers" | "connections" | "combos" | "apiKeys">): HandlersFor<"listKeys" | "createKey" | "updateKey" | "deleteKey"> {
  const { store } = deps;

  return {
    listKeys: () => store.apiKeys.list().map((k) => withBudgetUse(deps, "key", k)),

    updateKey({ id, ...patch }) {
      const info = store.apiKeys.update(id, patch);
      if (!info) throw notFound("API key", id);
      emitConfigChanges(deps, [{ entity: "key", id, action: "updated" }]);
      return withBudgetUse(deps, "key", info);
    },

    createKey(body): CreatedKey {
      const allowedConnections = body.allowedConnections ?? [];
      checkConnectionsExist(catalogFromStore(store, []), allowedConnections, "allowedConnections");
      let created: ReturnType<typeof store.apiKeys.create>;
      try {
        created = store.apiKeys.create({ name: body.name, scopes: body.scopes ?? [], allowedConnections, budget: body.budget ?? null });
      } catch (err) {
        throw fromStoreError(err);
      }
      const { info, key } = created;
      emitConfigChanges(deps, [{ entity: "key", id: info.id, action: "created" }]);
      return {
        id: info.id,
        key,
        name: info.name,
        scopes: info.scopes,
        allowedConnections: info.allowedConnections,
        createdAt: info.createdAt,
        budget: info.budget,
      };
    },

    deleteKey({ id }) {
      if (!store.apiKeys.delete(id)) throw notFound("API key", id);
      emitConfigChanges(deps, [{ entity: "key", id, action: "deleted" }]);
      return { ok: true, id };
    },
  };
}
