// Providers: definitions of upstream services (API.md "Providers").
import { normaliseBaseUrl } from "../../shared/providerBaseUrl.js";
import type { ProviderCreateBody, ProviderPatchBody } from "../../shared/schemas/config.js";
import type { Provider, ProviderCategory } from "../../shared/types.js";
import type { ProviderInput } from "../store/types.js";
import { catalogFromStore, checkProviderIdFree } from "./catalog.js";
import { ApiError, fromStoreError, invalidRequest, notFound } from "./errors.js";
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
    baseUrl: normaliseBaseUrl(body.format, body.baseUrl ?? ""),
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

/**
 * R23.3: the patch with the base URL the provider ends up with in its format's convention; a patch
 * that changes only the format re-reads the stored URL in the new format's convention.
 */
export function withNormalisedBaseUrl<P extends ProviderPatchBody>(current: Provider, patch: P): P {
  if (patch.baseUrl === undefined && patch.format === undefined) return patch;
  const baseUrl = normaliseBaseUrl(patch.format ?? current.format, patch.baseUrl ?? current.baseUrl);
  return patch.baseUrl === undefined && baseUrl === current.baseUrl ? patch : { ...patch, baseUrl };
}

type ProviderMethod = "listProviders" | "getProvider" | "createProvider" | "updateProvider" | "replaceProvider" | "deleteProvider" | "doctorProvider";

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
      const current = requireProvider(id);
      checkPatchedProvider(current, patch);
      return saved({ entity: "provider", id, action: "updated" }, store.providers.update(id, withNormalisedBaseUrl(current, patch)));
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

    /** R23.4: on the first active connection in the order traffic tries them (the store lists them so). */
    doctorProvider({ id }) {
      const provider = requireProvider(id);
      const connection = store.connections.list({ provider: id }).find((c) => c.active);
      if (!connection) {
        throw new ApiError(409, "no_active_connection", `provider "${id}" has no active connection to check: add one, or switch one on, on the Providers page`);
      }
      return deps.doctorProvider(provider, connection);
    },
  };
}
