// Referential rules between config entities, checked against a catalog of what exists.
// The same checks serve single API calls (catalog = the store) and config imports
// (catalog = the store plus the document being imported, before anything is written).
import type { ComboTarget } from "../../shared/types.js";
import type { CatalogReader } from "./ports.js";
import { conflict, invalidRequest, unknownProvider } from "./errors.js";

export interface ConfigCatalog {
  providers: Set<string>;
  /** connection id -> its provider */
  connections: Map<string, string>;
  combos: Set<string>;
  aliases: Set<string>;
}

export function catalogFromStore(store: CatalogReader, aliases: Iterable<string>): ConfigCatalog {
  return {
    providers: new Set(store.providers.list().map((p) => p.id)),
    connections: new Map(store.connections.list().map((c) => [c.id, c.provider])),
    combos: new Set(store.combos.list().map((c) => c.name)),
    aliases: new Set(aliases),
  };
}

/** Combo targets must name a known provider, and a pinned connection of that provider. */
export function checkComboTargets(catalog: ConfigCatalog, targets: readonly ComboTarget[], pathPrefix: string): void {
  targets.forEach((target, index) => {
    const at = `${pathPrefix}targets.${index}`;
    const provider = target.model.slice(0, target.model.indexOf("/"));
    if (!catalog.providers.has(provider)) throw unknownProvider(provider, `${at}.model`);
    if (target.connectionId === undefined) return;
    const owner = catalog.connections.get(target.connectionId);
    if (owner === undefined) {
      throw invalidRequest(`unknown connection "${target.connectionId}"`, `${at}.connectionId`);
    }
    if (owner !== provider) {
      throw invalidRequest(
        `connection "${target.connectionId}" belongs to provider "${owner}", not "${provider}"`,
        `${at}.connectionId`,
      );
    }
  });
}

/**
 * A combo is addressed by its bare name (R1.3). Names never contain "/", so no combo can shadow
 * a `provider/model` id; it must not reuse a provider id, an alias or another combo's name
 * either. A combo may share a bare model's name on purpose: the gateway resolves combos first.
 */
export function checkComboNameFree(catalog: ConfigCatalog, name: string, path: string): void {
  if (catalog.combos.has(name)) throw conflict(`combo "${name}" already exists`, path);
  if (catalog.providers.has(name)) throw conflict(`"${name}" is already a provider id`, path);
  if (catalog.aliases.has(name)) throw conflict(`"${name}" is already an alias`, path);
}

/** A provider id must not shadow a combo or an alias of the same name. */
export function checkProviderIdFree(catalog: ConfigCatalog, id: string, path: string): void {
  if (catalog.providers.has(id)) throw conflict(`provider "${id}" already exists`, path);
  if (catalog.combos.has(id)) throw conflict(`"${id}" is already a combo name`, path);
  if (catalog.aliases.has(id)) throw conflict(`"${id}" is already an alias`, path);
}

export function checkConnectionsExist(catalog: ConfigCatalog, ids: readonly string[], pathPrefix: string): void {
  ids.forEach((id, index) => {
    if (!catalog.connections.has(id)) throw invalidRequest(`unknown connection "${id}"`, `${pathPrefix}.${index}`);
  });
}
