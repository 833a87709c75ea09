// Providers: definitions of upstream services (API.md "Providers").
import type { ProviderCreateBody, ProviderPatchBody } from "../../shared/schemas/config.js";
import type { Provider, ProviderCategory } from "../../shared/types.js";
import type { ProviderInput } from "../store/types.js";
import { catalogFromStore, checkProviderIdFree } from "./catalog.js";
import { fromStoreError, invalidRequest, notFound } from "./errors.js";
import { type ConfigChange, type DepsWith, type HandlersFor, emitConfigChanges } from "./handlerTypes.js";
import { readAppSettings } from "./settingsDocument.js";

/** The simulator runs locally; everything else is assumed to be a keyed cloud API. */
function defaultCategory(format: Provider["format"]): ProviderCategory {
  return format === "simulator" ? "local" : "apikey";
}

/** A whole provider from a create/replace body: absent optional fields take their defaults. */
export function providerInputFromBody(body: ProviderCreateBody): ProviderInput {
  return {
    id: body.id,
    format: body.format,
    baseUrl: body.baseUrl ?? "",
    category: body.category ?? defaultCategory(body.format),
    models: body.models ?? [],
    quotaFamilies: body.quotaFamilies ?? {},
    passthroughModels: body.passthroughModels ?? false,
    rateLimitCooldownSeconds: body.rateLimitCooldownSeconds ?? null,
    priority: body.priority ?? 0,
    maxConcurrent: body.maxConcurrent ?? null,
    options: body.options ?? {},
    ...(body.modelInfo ? { modelInfo: body.modelInfo } : {}),
  };
}

/** A patch may not leave a non-simulator provider without a base URL. */
export function checkPatchedProvider(current: Provider, patch: ProviderPatchBody, pathPrefix = ""): void {
  const format = patch.format ?? current.format;
  const baseUrl = patch.baseUrl ?? current.baseUrl;
  if (format !== "simulator" && !baseUrl) {
    throw invalidRequest(`${pathPrefix}baseUrl: is required (an http(s) URL)`, `${pathPrefix}baseUrl`);
  }
}

type ProviderMethod = "listProviders" | "getProvider" | "createProvider" | "updateProvider" | "replaceProvider" | "deleteProvider";

export function createProviderHandlers(deps: DepsWith<"providers" | "connections" | "combos" | "settings">): HandlersFor<ProviderMethod> {
  const { store } = deps;

  const requireProvider = (id: string): Provider => {
    const provider = store.providers.get(id);
    if (!provider) throw notFound("provider", id);
    return provider;
  };

  const saved = (change: ConfigChange, provider: Provider | null): Provider => {
    if (!provider) throw notFound("provider", change.id);
    emitConfigChanges(deps, [change]);
    return provider;
  };

  return {
    listProviders: () => store.providers.list(),

    getProvider: ({ id }) => requireProvider(id),

    createProvider(body) {
      checkProviderIdFree(catalogFromStore(store, Object.keys(readAppSettings(store).aliases)), body.id, "id");
      let created: Provider;
      try {
        created = store.providers.create(providerInputFromBody(body));
      } catch (err) {
        throw fromStoreError(err, "id");
      }
      return saved({ entity: "provider", id: created.id, action: "created" }, created);
    },

    updateProvider({ id, ...patch }) {
      checkPatchedProvider(requireProvider(id), patch);
      return saved({ entity: "provider", id, action: "updated" }, store.providers.update(id, patch));
    },

    /** The URL names the provider: the HTTP adapter lets path parameters win over the body. */
    replaceProvider(body) {
      const { id } = body;
      requireProvider(id);
      return saved({ entity: "provider", id, action: "updated" }, store.providers.update(id, providerInputFromBody(body)));
    },

    deleteProvider({ id }) {
      requireProvider(id);
      // The store cascades to the provider's connections; the UI hears about each of them.
      const connections = store.connections.list({ provider: id });
      store.providers.delete(id);
      emitConfigChanges(deps, [{ entity: "provider", id, action: "deleted" }, ...connections.map((c): ConfigChange => ({ entity: "connection", id: c.id, action: "deleted" }))]);
      return { ok: true, id };
    },
  };
}
