// R0.4: the current configuration as one declarative document, secrets redacted. The same
// shape is accepted back by POST /api/config/import and `--config`, so an export re-imports
// as-is: a redacted secret means "keep the one you have".
import type { ConfigDocument, ExportedConnection } from "../../shared/apiTypes.js";
import { REDACTED_SECRET } from "../../shared/schemas/config.js";
import type { Connection } from "../../shared/types.js";
import type { StorePorts } from "./ports.js";
import { readAppSettings, readResilienceDocument } from "./settingsDocument.js";

export type { ConfigDocument };

export const CONFIG_DOCUMENT_VERSION = 1;

/** Sorted by id/name, so that two exports of the same config are byte-identical and diff cleanly. */
export function buildConfigDocument(store: StorePorts<"providers" | "connections" | "combos" | "settings">): ConfigDocument {
  return {
    version: CONFIG_DOCUMENT_VERSION,
    providers: store.providers
      .list()
      .map(({ createdAt: _c, updatedAt: _u, ...provider }) => provider)
      .sort((a, b) => compare(a.id, b.id)),
    // R21.2: a login's account is no configuration: it is made again when its login next comes.
    connections: store.connections
      .list()
      .filter((c) => c.accountOf === null)
      .map(exportConnection)
      .sort((a, b) => compare(a.provider, b.provider) || compare(a.id, b.id)),
    combos: store.combos
      .list()
      .map(({ createdAt: _c, updatedAt: _u, ...combo }) => combo)
      .sort((a, b) => compare(a.name, b.name)),
    settings: readAppSettings(store),
    resilience: readResilienceDocument(store),
  };
}

/** Picks configuration fields only: runtime state (cooldowns, errors) is not configuration. */
function exportConnection(c: Connection): ExportedConnection {
  const exported: ExportedConnection = {
    id: c.id,
    provider: c.provider,
    name: c.name,
    priority: c.priority,
    weight: c.weight,
    active: c.active,
    maxConcurrent: c.maxConcurrent,
    rateLimitOverrides: c.rateLimitOverrides,
    providerSpecificData: c.providerSpecificData,
    disableCooling: c.disableCooling,
    rateLimitProtection: c.rateLimitProtection,
    ...(c.subscription ? { subscription: true } : {}),
    ...(c.budget ? { budget: c.budget } : {}),
    ...(c.credential === "client" ? { credential: "client" as const } : {}),
  };
  if (c.hasSecret) exported.apiKey = REDACTED_SECRET;
  return exported;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
