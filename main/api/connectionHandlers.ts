// Connections: one account / key of a provider (API.md "Connections"). Responses come straight
// from the store, which never reads the secret column into a Connection (only `hasSecret`).
import { randomBytes } from "node:crypto";
import type { ConnectionPatchBody } from "../../shared/schemas/config.js";
import { isRecord } from "../../shared/records.js";
import type { Connection } from "../../shared/types.js";
import { ACCOUNT_FIELDS, ACCOUNT_PROVIDER_DATA } from "../gateway/context/clientLogin.js";
import type { ConnectionInput } from "../store/types.js";
import { conflict, fromStoreError, invalidRequest, notFound, unknownProvider } from "./errors.js";
import { type DepsWith, type HandlersFor, emitConfigChanges, withBudgetUse } from "./handlerTypes.js";

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
    subscription: body.subscription ?? false,
    budget: body.budget ?? null,
  };
}

/** Only the fields a PATCH body actually carries (the secret travels separately). */
export function connectionPatchFromBody(body: ConnectionPatchBody): Partial<ConnectionConfig> {
  const { apiKey: _secret, ...fields } = body;
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/** R21.1: a client-login connection or a login's account takes no key; any other keeps the body's. */
function noSecretForLogins(connection: Connection, apiKey: string | null | undefined): string | null | undefined {
  if (connection.credential === "client" && typeof apiKey === "string") {
    throw invalidRequest('apiKey: a connection with credential "client" holds no key (each request brings its own login)', "apiKey");
  }
  return apiKey;
}

/**
 * R24.5: a login's account row (R21.2) takes its own settings only (ACCOUNT_FIELDS); every other
 * field comes from its client-login connection, so a body that sets one here would answer 200 and
 * change nothing. It is refused, naming the field, before anything is saved.
 */
export function accountSettingsOnly(connection: Connection, body: Record<string, unknown>, at = ""): void {
  if (connection.accountOf === null) return;
  const refuse = (field: string, allowed: readonly string[]) =>
    invalidRequest(`${at}${field}: a login's account takes only ${allowed.join(", ")}; set it on "${connection.accountOf}"`, `${at}${field}`);
  const own: ReadonlySet<string> = new Set(ACCOUNT_FIELDS);
  for (const [field, value] of Object.entries(body)) {
    if (value !== undefined && !own.has(field)) throw refuse(field, ACCOUNT_FIELDS);
  }
  const data: ReadonlySet<string> = new Set(ACCOUNT_PROVIDER_DATA);
  const given = body.providerSpecificData;
  const extra = isRecord(given) ? Object.keys(given).find((key) => !data.has(key)) : undefined;
  if (extra !== undefined) throw refuse(`providerSpecificData.${extra}`, ACCOUNT_PROVIDER_DATA);
}

/** PUT on an account row: its own settings, absent ones at their defaults (the rest is its connection's). */
function accountConfigFromBody(body: ConnectionPatchBody): Partial<ConnectionConfig> {
  return {
    priority: body.priority ?? 0,
    weight: body.weight ?? 1,
    active: body.active ?? true,
    providerSpecificData: body.providerSpecificData ?? {},
    budget: body.budget ?? null,
  };
}

export function generateConnectionId(provider: string): string {
  return `${provider}-${randomBytes(6).toString("hex")}`;
}

/**
 * R9.5: rateLimitProtection is written only by POST /api/rate-limits. A PATCH/PUT that tries
 * to change it is refused (400 naming the field) rather than silently ignored, so a caller
 * never believes it switched protection on; echoing the stored value back is not a change.
 */
function refuseProtectionChange(requested: unknown, current: Connection): void {
  if (requested === undefined || requested === current.rateLimitProtection) return;
  throw invalidRequest("rateLimitProtection: cannot be changed here; use POST /api/rate-limits", "rateLimitProtection");
}

type ConnectionMethod = "listConnections" | "getConnection" | "createConnection" | "updateConnection" | "replaceConnection" | "deleteConnection" | "testConnection";

export function createConnectionHandlers(deps: DepsWith<"providers" | "connections">): HandlersFor<ConnectionMethod> {
  const { store } = deps;

  const requireConnection = (id: string): Connection => {
    const connection = store.connections.get(id);
    if (!connection) throw notFound("connection", id);
    return connection;
  };

  const updated = (id: string, connection: Connection | null): Connection => {
    if (!connection) throw notFound("connection", id);
    emitConfigChanges(deps, [{ entity: "connection", id, action: "updated" }]);
    return shown(connection);
  };
  const shown = (connection: Connection): Connection => withBudgetUse(deps, "connection", connection);

  return {
    listConnections(query) {
      return store.connections.list(query.provider === undefined ? undefined : { provider: query.provider }).map(shown);
    },

    getConnection: ({ id }) => shown(requireConnection(id)),

    createConnection(body) {
      if (!store.providers.get(body.provider)) throw unknownProvider(body.provider, "provider");
      const id = body.id ?? generateConnectionId(body.provider);
      if (store.connections.get(id)) throw conflict(`connection "${id}" already exists`, "id");
      // R21.1: a client-login connection never holds a secret: its requests bring their own login.
      if (body.credential === "client" && body.apiKey)
        throw invalidRequest('apiKey: a connection with credential "client" holds no key (each request brings its own login)', "apiKey");
      let created: Connection;
      try {
        created = store.connections.create({ id, provider: body.provider, ...connectionConfigFromBody(body, id), credential: body.credential ?? "key" }, body.apiKey ?? undefined);
      } catch (err) {
        throw fromStoreError(err, "id");
      }
      emitConfigChanges(deps, [{ entity: "connection", id, action: "created" }]);
      return shown(created);
    },

    updateConnection({ id, rateLimitProtection, ...body }) {
      const current = requireConnection(id);
      refuseProtectionChange(rateLimitProtection, current);
      accountSettingsOnly(current, body);
      return updated(id, store.connections.update(id, connectionPatchFromBody(body), noSecretForLogins(current, body.apiKey)));
    },

    /** Absent fields return to their defaults, except the secret: absent keeps it (it is never read back). */
    replaceConnection({ id, rateLimitProtection, ...body }) {
      const current = requireConnection(id);
      refuseProtectionChange(rateLimitProtection, current);
      if (body.provider !== undefined && body.provider !== current.provider) {
        throw invalidRequest("provider: a connection cannot move to another provider", "provider");
      }
      const { provider: _provider, ...fields } = body;
      accountSettingsOnly(current, fields);
      const config = current.accountOf === null ? connectionConfigFromBody(body, id) : accountConfigFromBody(body);
      return updated(id, store.connections.update(id, config, noSecretForLogins(current, body.apiKey)));
    },

    deleteConnection({ id }) {
      if (!store.connections.delete(id)) throw notFound("connection", id);
      emitConfigChanges(deps, [{ entity: "connection", id, action: "deleted" }]);
      return { ok: true, id };
    },

    async testConnection({ id }) {
      requireConnection(id);
      return deps.testConnection(id);
    },
  };
}
