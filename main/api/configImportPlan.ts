// R0.4 import, phase one: validate a whole config document against the store and itself and
// turn it into a list of writes. Nothing is written here, so a bad document changes nothing;
// every failure names its field (`connections.2.apiKey`).
import {
  type ComboPatchBody,
  type ConfigDocumentInput,
  type ProviderPatchBody,
  REDACTED_SECRET,
  comboCreateSchema,
  configDocumentSchema,
  providerCreateSchema,
} from "../../shared/schemas/config.js";
import type { ApiKeyInfo, AppSettings, Budget, Combo } from "../../shared/types.js";
import type { ConnectionInput, ProviderInput } from "../store/types.js";
import { type ConfigCatalog, catalogFromStore, checkComboNameFree, checkComboTargets, checkConnectionsExist, checkProviderIdFree } from "./catalog.js";
import { accountSettingsOnly, connectionConfigFromBody, connectionPatchFromBody, generateConnectionId } from "./connectionHandlers.js";
import { ApiError, conflict, invalidRequest, unknownProvider } from "./errors.js";
import { type ResilienceValidator, parseInput } from "./handlerTypes.js";
import type { ManagementStore } from "./ports.js";
import { checkPatchedProvider, providerInputFromBody, withNormalisedBaseUrl } from "./providerHandlers.js";
import { applySettingsPatch, mergeResilienceDocument, readAppSettings, readResilienceDocument } from "./settingsDocument.js";

/** What planning reads; it never writes. */
type ImportStore = Pick<ManagementStore, "providers" | "connections" | "combos" | "apiKeys" | "settings">;

export type Env = Readonly<Record<string, string | undefined>>;

type Protection = boolean | null | undefined;

export type ProviderStep = { kind: "create"; input: ProviderInput } | { kind: "update"; id: string; patch: ProviderPatchBody };

export type ConnectionStep =
  | { kind: "create"; input: ConnectionInput; secret: string | undefined; protection: Protection }
  | {
      kind: "update";
      id: string;
      patch: Partial<Omit<ConnectionInput, "id" | "provider">>;
      secret: string | null | undefined;
      protection: Protection;
    };

export type ComboStep = { kind: "create"; combo: Omit<Combo, "createdAt" | "updatedAt"> } | { kind: "update"; name: string; patch: ComboPatchBody };

export type KeyStep =
  | { kind: "keep"; id: string; budget: Budget | null | undefined }
  | {
      kind: "create";
      /** R18.4: undefined = none said (keep / none). */
      budget: Budget | null | undefined;
      name: string;
      scopes: string[];
      allowedConnections: string[];
      /** A fixed key value (from `env:NAME` or a literal); undefined = generate one. */
      key: string | undefined;
      /** Id of the same-named key this one replaces, if any. */
      replaces: string | null;
    };

export interface ImportPlan {
  providers: ProviderStep[];
  connections: ConnectionStep[];
  combos: ComboStep[];
  keys: KeyStep[];
  settings: AppSettings | null;
  resilience: Record<string, unknown> | null;
}

const ENV_PREFIX = "env:";
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MIN_FIXED_KEY_LENGTH = 16;

/** `env:NAME` reads the environment at import time; `<redacted>` or absent keeps what is stored. */
export function resolveSecret(value: string | null | undefined, env: Env, path: string): string | null | undefined {
  if (value === undefined || value === REDACTED_SECRET) return undefined;
  if (value === null || !value.startsWith(ENV_PREFIX)) return value;
  const name = value.slice(ENV_PREFIX.length);
  if (!ENV_NAME.test(name)) throw invalidRequest(`${path}: "${name}" is not an environment variable name`, path);
  const resolved = env[name];
  if (resolved === undefined || resolved === "") {
    throw invalidRequest(`${path}: environment variable ${name} is not set`, path);
  }
  return resolved;
}

export function planConfigImport(store: ImportStore, raw: unknown, env: Env, validateResilience?: ResilienceValidator): ImportPlan {
  const doc = parseInput(configDocumentSchema, raw);
  const settings = doc.settings ? applySettingsPatch(readAppSettings(store), doc.settings) : null;
  const aliases = Object.keys((settings ?? readAppSettings(store)).aliases);
  const catalog = catalogFromStore(store, aliases);
  return {
    providers: planProviders(store, doc, catalog),
    connections: planConnections(store, doc, catalog, env),
    combos: planCombos(store, doc, catalog),
    keys: planKeys(store, doc, catalog, env),
    settings,
    resilience: planResilience(store, doc, validateResilience),
  };
}

function planProviders(store: ImportStore, doc: ConfigDocumentInput, catalog: ConfigCatalog): ProviderStep[] {
  const seen = new Set<string>();
  return (doc.providers ?? []).map((entry, i): ProviderStep => {
    const at = `providers.${i}`;
    if (seen.has(entry.id)) throw invalidRequest(`${at}.id: provider "${entry.id}" appears twice`, `${at}.id`);
    seen.add(entry.id);
    const current = store.providers.get(entry.id);
    if (current) {
      const { id, ...patch } = entry;
      checkPatchedProvider(current, patch, `${at}.`);

      return { kind: "update", id, patch: withNormalisedBaseUrl(current, patch) };
    }
    const body = parseInput(providerCreateSchema, entry, at);
    checkProviderIdFree(catalog, body.id, `${at}.id`);
    catalog.providers.add(body.id);
    return { kind: "create", input: providerInputFromBody(body) };
  });
}

function planConnections(store: ImportStore, doc: ConfigDocumentInput, catalog: ConfigCatalog, env: Env): ConnectionStep[] {
  const seen = new Set<string>();
  return (doc.connections ?? []).map((entry, i): ConnectionStep => {
    const at = `connections.${i}`;
    const { id: givenId, provider, apiKey, rateLimitProtection, credential, ...fields } = entry;
    if (!catalog.providers.has(provider)) throw unknownProvider(provider, `${at}.provider`);
    // Without an id, a hand-written entry is recognised by provider + name on later imports.
    const existing =
      givenId !== undefined
        ? store.connections.get(givenId)
        : fields.name !== undefined
          ? (store.connections.list({ provider }).find((c) => c.name === fields.name) ?? null)
          : null;
    const id = givenId ?? existing?.id ?? generateConnectionId(provider);
    if (seen.has(id)) throw invalidRequest(`${at}.id: connection "${id}" appears twice`, `${at}.id`);
    seen.add(id);
    const secret = resolveSecret(apiKey, env, `${at}.apiKey`);
    catalog.connections.set(id, provider);
    if (existing) {
      if (existing.provider !== provider) {
        throw invalidRequest(`${at}.provider: connection "${id}" belongs to provider "${existing.provider}"`, `${at}.provider`);
      }
      // R24.5: an account row takes only its own settings, from a document as from PATCH.
      // Its name is how an entry without an id finds it, not a change.
      accountSettingsOnly(existing, { ...fields, name: fields.name === existing.name ? undefined : fields.name, apiKey, rateLimitProtection }, `${at}.`);
      return { kind: "update", id, patch: connectionPatchFromBody(fields), secret, protection: rateLimitProtection };
    }
    return {
      kind: "create",
      input: { id, provider, ...connectionConfigFromBody(fields, id), credential: credential ?? "key" },
      secret: credential === "client" ? undefined : (secret ?? undefined),
      protection: rateLimitProtection,
    };
  });
}

function planCombos(store: ImportStore, doc: ConfigDocumentInput, catalog: ConfigCatalog): ComboStep[] {
  const seen = new Set<string>();
  // Combos of the document may name each other in any order: the graph knows them all first.
  for (const entry of doc.combos ?? [])
    if (entry.targets)
      catalog.comboTargets.set(
        entry.name,
        entry.targets.map((t) => t.model),
      );
  return (doc.combos ?? []).map((entry, i): ComboStep => {
    const at = `combos.${i}`;
    if (seen.has(entry.name)) throw invalidRequest(`${at}.name: combo "${entry.name}" appears twice`, `${at}.name`);
    seen.add(entry.name);
    if (entry.targets) checkComboTargets(catalog, entry.targets, `${at}.`, entry.name);
    const { name, ...patch } = entry;
    if (store.combos.get(name)) return { kind: "update", name, patch };
    const body = parseInput(comboCreateSchema, entry, at);
    checkComboNameFree(catalog, name, `${at}.name`);
    catalog.combos.add(name);
    return {
      kind: "create",
      combo: { name, strategy: body.strategy ?? "priority", targets: body.targets, config: body.config ?? {} },
    };
  });
}

function planKeys(store: ImportStore, doc: ConfigDocumentInput, catalog: ConfigCatalog, env: Env): KeyStep[] {
  const stored = store.apiKeys.list();
  const seen = new Set<string>();
  return (doc.apiKeys ?? []).map((entry, i): KeyStep => {
    const at = `apiKeys.${i}`;
    if (seen.has(entry.name)) throw invalidRequest(`${at}.name: API key "${entry.name}" appears twice`, `${at}.name`);
    seen.add(entry.name);
    const scopes = entry.scopes ?? [];
    const allowedConnections = entry.allowedConnections ?? [];
    checkConnectionsExist(catalog, allowedConnections, `${at}.allowedConnections`);
    const key = resolveSecret(entry.key, env, `${at}.key`) ?? undefined;
    if (key !== undefined && key.length < MIN_FIXED_KEY_LENGTH) {
      throw invalidRequest(`${at}.key: a client key needs at least ${MIN_FIXED_KEY_LENGTH} characters`, `${at}.key`);
    }
    const sameNamed = stored.filter((k) => k.name === entry.name);
    if (sameNamed.length > 1) throw conflict(`${at}.name: several API keys are named "${entry.name}"`, `${at}.name`);
    const current = sameNamed[0] ?? null;
    const holder = key === undefined ? null : findKeyHolder(store, stored, key);
    if (holder && holder.id !== current?.id) {
      throw conflict(`${at}.key: this key already belongs to API key "${holder.name}"`, `${at}.key`);
    }
    const unchanged = current !== null && sameList(current.scopes, scopes) && sameList(current.allowedConnections, allowedConnections);
    if (current && unchanged && (key === undefined || holder?.id === current.id)) return { kind: "keep", id: current.id, budget: entry.budget };
    if (current && key === undefined) {
      // Replacing it would hand every client of that key a new secret behind the operator's back.
      throw conflict(`${at}: API key "${entry.name}" exists with other scopes or connections; give it a key or delete it first`, at);
    }
    return { kind: "create", name: entry.name, scopes, allowedConnections, key, replaces: current?.id ?? null, budget: entry.budget };
  });
}

/**
 * Only a stored key with the same visible prefix can be this key; verify() confirms it by hash
 * (and stamps lastUsedAt, which is fair: the operator just presented the key).
 */
function findKeyHolder(store: ImportStore, stored: readonly ApiKeyInfo[], key: string): ApiKeyInfo | null {
  if (!stored.some((k) => key.startsWith(k.prefix))) return null;
  return store.apiKeys.verify(key);
}

function planResilience(store: ImportStore, doc: ConfigDocumentInput, validate: ResilienceValidator | undefined): Record<string, unknown> | null {
  if (!doc.resilience || Object.keys(doc.resilience).length === 0) return null;
  const merged = mergeResilienceDocument(readResilienceDocument(store), doc.resilience);
  if (!validate) return merged;
  try {
    return validate(merged);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    throw new ApiError(err.status, err.code, err.message, err.path ? `resilience.${err.path}` : "resilience");
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join("\u0000") === [...b].sort().join("\u0000");
}
