// Referential rules between config entities, checked against a catalog of what exists.
// The same checks serve single API calls (catalog = the store) and config imports
// (catalog = the store plus the document being imported, before anything is written).
import type { ComboTarget } from "../../shared/types.js";
import type { CatalogReader } from "./ports.js";
import { checkComboNesting } from "./comboGraph.js";
import { conflict, invalidRequest, unknownProvider } from "./errors.js";

export interface ConfigCatalog {
  providers: Set<string>;
  /** connection id -> its provider */
  connections: Map<string, string>;
  combos: Set<string>;
  /** combo name -> its target model names, for nested-combo checks (D11). */
  comboTargets: Map<string, readonly string[]>;
  aliases: Set<string>;
}

export function catalogFromStore(store: CatalogReader, aliases: Iterable<string>): ConfigCatalog {
  return {
    providers: new Set(store.providers.list().map((p) => p.id)),
    connections: new Map(store.connections.list().map((c) => [c.id, c.provider])),
    combos: new Set(store.combos.list().map((c) => c.name)),
    comboTargets: new Map(store.combos.list().map((c) => [c.name, c.targets.map((t) => t.model)])),
    aliases: new Set(aliases),
  };
}

/**
 * Combo targets name another combo (D11: no cycle, at most 3 levels, no connection pin) or a known
 * provider's model, optionally pinned to a connection of that provider. `comboName` is the combo
 * being saved.
 */
export function checkComboTargets(catalog: ConfigCatalog, targets: readonly ComboTarget[], pathPrefix: string, comboName?: string): void {
  if (comboName !== undefined) checkComboNesting(catalog.comboTargets, comboName, targets, pathPrefix);
  targets.forEach((target, index) => {
    const at = `${pathPrefix}targets.${index}`;
    if (catalog.comboTargets.has(target.model) && target.model !== comboName) {
      if (target.connectionId !== undefined) throw invalidRequest(`a target naming combo "${target.model}" cannot pin a connection`, `${at}.connectionId`);
      return;
    }
    const slash = target.model.indexOf("/");
    if (slash <= 0) throw invalidRequest(`"${target.model}" names neither a combo nor a provider/model`, `${at}.model`);
    const provider = target.model.slice(0, slash);
    if (!catalog.providers.has(provider)) throw unknownProvider(provider, `${at}.model`);
    if (target.connectionId === undefined) return;
    const owner = catalog.connections.get(target.connectionId);
    if (owner === undefined) {
      throw invalidRequest(`unknown connection "${target.connectionId}"`, `${at}.connectionId`);
    }
    if (owner !== provider) {
      throw invalidRequest(`connection "${target.connectionId}" belongs to provider "${owner}", not "${provider}"`, `${at}.connectionId`);
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
