// The narrow ports the management API depends on. Each handler module names only the
// repositories it touches (StorePorts<"providers" | "combos">); the SQLite store satisfies them
// all, and a unit test can hand a handler a small in-memory fake of just those.
import type { ApiKeyRepo, ComboRepo, ConnectionRepo, ProviderRepo, RequestLogRepo, SettingsRepo } from "../store/types.js";

export type ProvidersPort = Pick<ProviderRepo, "list" | "get" | "create" | "update" | "delete">;
export type ConnectionsPort = Pick<ConnectionRepo, "list" | "get" | "create" | "update" | "delete" | "setRateLimitProtection">;
export type CombosPort = Pick<ComboRepo, "list" | "get" | "create" | "update" | "delete">;
/** `verify` lets a config import recognise a key it already holds without reading any key back. */
export type ApiKeysPort = Pick<ApiKeyRepo, "list" | "create" | "delete" | "verify" | "update" | "get">;
export type SettingsPort = Pick<SettingsRepo, "getDocument" | "setDocument">;
export type RequestLogReader = Pick<RequestLogRepo, "flush" | "list" | "stats" | "get" | "latestPerClient">;

/** Everything the management API reads and writes. */
export interface ManagementStore {
  providers: ProvidersPort;
  connections: ConnectionsPort;
  combos: CombosPort;
  apiKeys: ApiKeysPort;
  settings: SettingsPort;
  logs: RequestLogReader;
  /** Runs fn all-or-nothing (a config import). */
  transaction<T>(fn: () => T): T;
}

export type StorePorts<K extends keyof ManagementStore> = Pick<ManagementStore, K>;

/** What the referential checks read (main/api/catalog.ts): the lists, nothing else. */
export interface CatalogReader {
  providers: Pick<ProvidersPort, "list">;
  connections: Pick<ConnectionsPort, "list">;
  combos: Pick<CombosPort, "list">;
}
