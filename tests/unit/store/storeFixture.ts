// Shared scaffolding for the store tests: a throwaway home directory, a fake clock
// and a store that can be closed and reopened on the same file.
import Database from "better-sqlite3";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ConnectionInput, ProviderInput } from "../../../main/store/types.js";
import type { RequestLogEntry } from "../../../shared/types.js";
import { createFileKeyCipher, createStore, type CreateStoreOptions, type Store } from "../../../main/store/index.js";
import { cacheReadShareOf } from "../../../main/store/requestLogRows.js";

export class FakeClock {
  constructor(public t = 1_700_000_000_000) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export interface StoreHarness {
  home: string;
  dbPath: string;
  clock: FakeClock;
  store: Store;
  /** Closes the current store and opens a new one on the same file and key. */
  reopen(extra?: Partial<CreateStoreOptions>): Store;
  /** A second, plain SQLite connection for reading rows exactly as stored. */
  raw(): Database.Database;
  cleanup(): void;
}

export function makeTempHome(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-store-"));
}

export function openHarness(extra: Partial<CreateStoreOptions> = {}): StoreHarness {
  const home = makeTempHome();
  const dbPath = path.join(home, "switchyard.db");
  const clock = new FakeClock();
  const open = (more: Partial<CreateStoreOptions>) => createStore({ dbPath, cipher: createFileKeyCipher(home), clock, ...extra, ...more });
  const rawConnections: Database.Database[] = [];
  const harness: StoreHarness = {
    home,
    dbPath,
    clock,
    store: open({}),
    reopen(more = {}) {
      harness.store.close();
      harness.store = open(more);
      return harness.store;
    },
    raw() {
      const db = new Database(dbPath, { readonly: true });
      rawConnections.push(db);
      return db;
    },
    cleanup() {
      for (const db of rawConnections) if (db.open) db.close();
      harness.store.close();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
  return harness;
}

export function providerInput(id: string, overrides: Partial<ProviderInput> = {}): ProviderInput {
  return {
    id,
    format: "openai",
    baseUrl: `https://${id}.example.test/v1`,
    category: "apikey",
    models: [],
    quotaFamilies: {},
    passthroughModels: false,
    rateLimitCooldownSeconds: null,
    priority: 0,
    options: {},
    ...overrides,
  };
}

export function connectionInput(id: string, provider: string, overrides: Partial<ConnectionInput> = {}): ConnectionInput {
  return {
    id,
    provider,
    name: id,
    priority: 0,
    weight: 1,
    active: true,
    maxConcurrent: null,
    rateLimitOverrides: {},
    providerSpecificData: {},
    disableCooling: false,
    ...overrides,
  };
}

/** A request-log row as the gateway writes it: one plain 200 with no tokens, changed by `over`. */
export function logEntry(over: Partial<RequestLogEntry> & Pick<RequestLogEntry, "id">): RequestLogEntry {
  return withCacheReadShare({
    time: 1_700_000_000_000,
    clientFormat: "openai",
    model: "m",
    combo: null,
    provider: "p",
    connectionId: "c",
    status: 200,
    errorCode: null,
    latencyMs: 5,
    ttfbMs: 2,
    stream: false,
    inputTokens: null,
    outputTokens: null,
    cacheReadTokens: null,
    cacheWriteTokens: null,
    reasoningTokens: null,
    costUsd: null,
    costSource: null,
    apiKeyId: null,
    servedModel: null,
    attempts: [],
    transport: "http",
    ...over,
  });
}

/** R20.2: every row reads back with its cache-read share, derived from its token counts. */
export function withCacheReadShare(e: RequestLogEntry): RequestLogEntry {
  return { ...e, cacheReadShare: cacheReadShareOf(e.cacheReadTokens ?? null, e.inputTokens) };
}
