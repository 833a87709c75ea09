// The store's public surface, used by main/app, main/api and main/gateway.
// Implemented with better-sqlite3 (synchronous, prepared statements, WAL).
import type { UsageRepo } from "./usageRepo.js";
import type { QuotaRepo } from "./quotaRepo.js";
import type { ProvenanceRepo } from "./provenanceRepo.js";
import type { ModelWindowRepo } from "./modelWindowRepo.js";
import type { ApiKeyInfo, AppSettings, ClientKind, Combo, Connection, ConnectionRuntime, Provider, RequestLogEntry, StoredResponseRecord } from "../../shared/types.js";
import type { LeaseStore } from "../engine/leases.js";
import type { BreakerStore, ConnectionRuntimeStore } from "../engine/ports.js";
import type { SessionPinStore } from "../engine/sessionAffinity.js";

export type ProviderInput = Omit<Provider, "createdAt" | "updatedAt">;

/** Everything a caller may set on a connection (runtime fields are written by the engine only). */
export interface ConnectionInput {
  id: string;
  provider: string;
  name: string;
  priority: number;
  weight: number;
  active: boolean;
  maxConcurrent: number | null;
  rateLimitOverrides: Connection["rateLimitOverrides"];
  providerSpecificData: Connection["providerSpecificData"];
  disableCooling: boolean;
  subscription?: boolean;
  budget?: Connection["budget"];
  /** Set at creation only (R21.1): "client" = the request's login is the credential. */
  credential?: Connection["credential"];
  /** Set at creation only (R21.2): the client-login connection a login's account belongs to. */
  accountOf?: string | null;
}

export interface ProviderRepo {
  list(): Provider[];
  get(id: string): Provider | null;
  create(input: ProviderInput): Provider;
  /** Partial update; returns the updated provider or null when absent. */
  update(id: string, patch: Partial<ProviderInput>): Provider | null;
  /** Deletes the provider and its connections. */
  delete(id: string): boolean;
}

export interface ConnectionRepo extends ConnectionRuntimeStore {
  list(filter?: { provider?: string }): Connection[];
  get(id: string): Connection | null;
  /** `secret` undefined = no secret; the store encrypts it at rest. */
  create(input: ConnectionInput, secret?: string): Connection;
  /** `secret`: undefined = keep, null = remove, string = replace (and reset terminal state). */
  update(id: string, patch: Partial<Omit<ConnectionInput, "id" | "provider">>, secret?: string | null): Connection | null;
  delete(id: string): boolean;
  /** Decrypted secret, for the upstream call only. Never put it in a response or log. */
  getSecret(id: string): string | null;
  setRateLimitProtection(id: string, enabled: boolean | null): Connection | null;
  updateRuntime(id: string, patch: Partial<ConnectionRuntime>): void;
}

export interface ComboRepo {
  list(): Combo[];
  get(name: string): Combo | null;
  create(input: Omit<Combo, "createdAt" | "updatedAt">): Combo;
  update(name: string, patch: Partial<Omit<Combo, "name" | "createdAt" | "updatedAt">>): Combo | null;
  delete(name: string): boolean;
}

export interface ApiKeyRepo {
  list(): ApiKeyInfo[];
  /**
   * Creates a key `sk-sy-…` (or registers `key` when a config file chose it); the plain key is
   * returned once and only its SHA-256 is stored.
   */
  create(input: { name: string; scopes: string[]; allowedConnections: string[]; key?: string; budget?: ApiKeyInfo["budget"] }): { info: ApiKeyInfo; key: string };
  /** Renames a key or sets its budget; null when absent. */
  update(id: string, patch: { name?: string; budget?: ApiKeyInfo["budget"] }): ApiKeyInfo | null;
  get(id: string): ApiKeyInfo | null;
  delete(id: string): boolean;
  /** Looks a presented key up by its hash; updates lastUsedAt. */
  verify(key: string): ApiKeyInfo | null;
}

/** Key/value documents: "settings" (AppSettings, partial) and "resilience" (raw patch document). */
export interface SettingsRepo {
  getDocument<T = unknown>(key: string): T | null;
  setDocument(key: string, value: unknown): void;
}

export interface RequestLogRepo {
  /** Buffered: written in batches off the hot path; `flush()` writes now. */
  append(entry: RequestLogEntry): void;
  flush(): void;
  list(query: RequestLogQuery): RequestLogEntry[];
  /** One request by its id (the timeline), or null. Flushes first. */
  get(id: string): RequestLogEntry | null;
  /** The newest request of each client kind seen (rows without a kind are left out). Flushes first. */
  latestPerClient(): RequestLogEntry[];
  /** Logged prompts are erased once older than `ms`; null erases them all now and keeps none. */
  setPromptRetention(ms: number | null): void;
  /**
   * Requests per provider and time bucket, over every stored row from `since` (inclusive) to
   * `until` (exclusive; no upper bound when absent). Buckets start at `since + k * bucketMs`;
   * only non-empty ones are returned, ordered by bucket then provider. Flushes first.
   */
  stats(query: { since: number; bucketMs: number; until?: number }): RequestStatsRow[];
  /** Rows kept from the next flush on (setting requestLogRetention, R15.1). */
  setRetention(rows: number): void;
  /** R12.5: each connection's newest recorded egress IP since `since` (flushes first). */
  lastEgressIps(since: number): Map<string, string>;
}

/** Stored Responses API turns (R16.4, table responses). */
export interface ResponsesRepo {
  /** Inserts or replaces the turn with this id; expired turns are purged on the way, at most once a minute. */
  save(entry: StoredResponseRecord): void;
  /** The turn, or null when absent or expired at `now`. */
  get(id: string, now: number): StoredResponseRecord | null;
  delete(id: string): boolean;
  /** Deletes every turn expired at `now`; returns how many went. */
  purgeExpired(now: number): number;
  /**
   * Setting responsesRetentionHours changed: no stored turn outlives `ms` from its creation (0
   * erases them all now). A longer retention applies to turns stored from then on.
   */
  capRetention(ms: number): void;
}

export interface RequestLogQuery {
  limit?: number;
  provider?: string;
  model?: string;
  status?: number;
  combo?: string;
  client?: ClientKind;
  /** Epoch ms, inclusive. */
  since?: number;
  /** Epoch ms, exclusive. */
  until?: number;
}

/** One provider's requests in one time bucket (R14.2). */
export interface RequestStatsRow {
  bucketStart: number;
  /** null: requests that never reached a provider. */
  provider: string | null;
  requests: number;
  /** Status >= 400, or an error code recorded on a 200 (a stream that failed after output). */
  errors: number;
  latencyMsSum: number;
}

export interface Store {
  providers: ProviderRepo;
  connections: ConnectionRepo;
  combos: ComboRepo;
  apiKeys: ApiKeyRepo;
  settings: SettingsRepo;
  logs: RequestLogRepo;
  breakers: BreakerStore;
  sessionPins: SessionPinStore;
  leases: LeaseStore;
  responses: ResponsesRepo;
  /** R18.3: the quota windows upstream headers announced, per connection and window. */
  quotas: QuotaRepo;
  /** R22.3: which connection issued each reasoning artifact relayed, by the artifact's digest. */
  reasoningProvenance: ProvenanceRepo;
  /** R25.1: learned context windows, written behind. */
  modelWindows: ModelWindowRepo;
  /** R18.2: usage reports from the rollups. */
  usage: UsageRepo;
  /** Runs fn in one SQLite transaction. */
  transaction<T>(fn: () => T): T;
  close(): void;
}

export type { AppSettings };
