// Connections: one account / key of a provider (API.md "Connections"). Responses come straight
// from the store, which never reads the secret column into a Connection (only `hasSecret`).
import { randomBytes } from "node:crypto";
import {
  type ConnectionPatchBody, connectionCreateSchema, connectionPatchSchema, connectionReplaceSchema,
  listConnectionsQuerySchema,
} from "../../shared/schemas/config.js";
import type { Connection } from "../../shared/types.js";
import type { ConnectionInput } from "../store/types.js";
import { conflict, fromStoreError, invalidRequest, notFound, unknownProvider } from "./errors.js";
import {
  type ManagementDeps, type ManagementHandlers, emitConfigChanges, parseInput, pathParam,
} from "./handlerTypes.js";

type ConnectionConfig = Omit<ConnectionInput, "id" | "provider">;

/** Every caller-settable field, absent ones at their defaults (create and PUT). */
export function connectionConfigFromBody(body: ConnectionPatchBody, id: string): ConnectionConfig {
  return {
    name: body.name ?? id,
    priority: body.priority ?? 0,
    weight: body.weight ?? 1,
    active: body.active ?? true,
    maxConcurrent: body.maxConcurrent ?? null,
    rateLimitOverrides: body.rateLimitOverrides ?? {},
    providerSpecificData: body.providerSpecificData ?? {},
    disableCooling: body.disableCooling ?? false,
  };
}

/** Only the fields a PATCH body actually carries (the secret travels separately). */
export function connectionPatchFromBody(body: ConnectionPatchBody): Partial<ConnectionConfig> {
  const { apiKey: _secret, ...fields } = body;
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

export function generateConnectionId(provider: string): string {
  return `${provider}-${randomBytes(6).toString("hex")}`;
}

/**
 * R9.5: rateLimitProtection is written only by POST /api/rate-limits. A PATCH/PUT that tries
 * to change it is refused (400 naming the field) rather than silently ignored, so a caller
 * never believes it switched protection on; echoing the stored value back is not a change.
 */
function refuseProtectionChange(input: Record<string, unknown>, current: Connection): void {
  if (!("rateLimitProtection" in input)) return;
  if (input.rateLimitProtection === current.rateLimitProtection) return;
  throw invalidRequest(
    "rateLimitProtection: cannot be changed here; use POST /api/rate-limits",
    "rateLimitProtection",
  );
}

export function createConnectionHandlers(deps: ManagementDeps): ManagementHandlers {
  const { store } = deps;

  const requireConnection = (id: string): Connection => {
    const connection = store.connections.get(id);
    if (!connection) throw notFound("connection", id);
    return connection;
  };

  const updated = (id: string, connection: Connection | null): Connection => {
    if (!connection) throw notFound("connection", id);
    emitConfigChanges(deps, [{ entity: "connection", id, action: "updated" }]);
    return connection;
  };

  return {
    listConnections(input) {
      const query = parseInput(listConnectionsQuerySchema, input);
      return store.connections.list(query.provider === undefined ? undefined : { provider: query.provider });
    },

    getConnection: (input) => requireConnection(pathParam(input, "id")),

    createConnection(input) {
      const body = parseInput(connectionCreateSchema, input);
      if (!store.providers.get(body.provider)) throw unknownProvider(body.provider, "provider");
      const id = body.id ?? generateConnectionId(body.provider);
      if (store.connections.get(id)) throw conflict(`connection "${id}" already exists`, "id");
      let created: Connection;
      try {
        created = store.connections.create(
          { id, provider: body.provider, ...connectionConfigFromBody(body, id) },
          body.apiKey ?? undefined,
        );
      } catch (err) {
        throw fromStoreError(err, "id");
      }
      emitConfigChanges(deps, [{ entity: "connection", id, action: "created" }]);
      return created;
    },

    updateConnection(input) {
      const id = pathParam(input, "id");
      const current = requireConnection(id);
      refuseProtectionChange(input, current);
      const body = parseInput(connectionPatchSchema, input);
      return updated(id, store.connections.update(id, connectionPatchFromBody(body), body.apiKey));
    },

    /** Absent fields return to their defaults, except the secret: absent keeps it (it is never read back). */
    replaceConnection(input) {
      const id = pathParam(input, "id");
      const current = requireConnection(id);
      refuseProtectionChange(input, current);
      const body = parseInput(connectionReplaceSchema, input);
      if (body.provider !== undefined && body.provider !== current.provider) {
        throw invalidRequest("provider: a connection cannot move to another provider", "provider");
      }
      return updated(id, store.connections.update(id, connectionConfigFromBody(body, id), body.apiKey));
    },

    deleteConnection(input) {
      const id = pathParam(input, "id");
      if (!store.connections.delete(id)) throw notFound("connection", id);
      emitConfigChanges(deps, [{ entity: "connection", id, action: "deleted" }]);
      return { ok: true, id };
    },

    async testConnection(input) {
      const id = pathParam(input, "id");
      requireConnection(id);
      return deps.testConnection(id);
    },
  };
}
