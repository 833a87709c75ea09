// Client API keys (API.md "API keys", R1.7). The plain key is returned once, by POST; the
// store keeps only its SHA-256, so no later response can contain it.
import { keyCreateSchema } from "../../shared/schemas/config.js";
import { catalogFromStore, checkConnectionsExist } from "./catalog.js";
import { fromStoreError, notFound } from "./errors.js";
import {
  type ManagementDeps, type ManagementHandlers, emitConfigChanges, parseInput, pathParam,
} from "./handlerTypes.js";

export interface CreatedKey {
  id: string;
  key: string;
  name: string;
  scopes: string[];
  allowedConnections: string[];
  createdAt: number;
}

export function createKeyHandlers(deps: ManagementDeps): ManagementHandlers {
  const { store } = deps;

  return {
    listKeys: () => store.apiKeys.list(),

    createKey(input): CreatedKey {
      const body = parseInput(keyCreateSchema, input);
      const allowedConnections = body.allowedConnections ?? [];
      checkConnectionsExist(catalogFromStore(store, []), allowedConnections, "allowedConnections");
      let created: ReturnType<typeof store.apiKeys.create>;
      try {
        created = store.apiKeys.create({ name: body.name, scopes: body.scopes ?? [], allowedConnections });
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
      };
    },

    deleteKey(input) {
      const id = pathParam(input, "id");
      if (!store.apiKeys.delete(id)) throw notFound("API key", id);
      emitConfigChanges(deps, [{ entity: "key", id, action: "deleted" }]);
      return { ok: true, id };
    },
  };
}
