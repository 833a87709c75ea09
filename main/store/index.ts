// Composition of the store: one SQLite connection, one set of prepared statements,
// the repositories the engine, gateway and API depend on.
import type { Clock } from "../engine/ports.js";
import { createApiKeyRepo } from "./apiKeyRepo.js";
import { createBreakerRepo } from "./breakerRepo.js";
import { createComboRepo } from "./comboRepo.js";
import { createConnectionRepo } from "./connectionRepo.js";
import { openDatabase } from "./database.js";
import { createLeaseRepo } from "./leaseRepo.js";
import { createProviderRepo } from "./providerRepo.js";
import { createProvenanceRepo } from "./provenanceRepo.js";
import { createModelWindowRepo } from "./modelWindowRepo.js";
import { createQuotaRepo } from "./quotaRepo.js";
import { DEFAULT_REQUEST_LOG_RETENTION, createRequestLogRepo } from "./requestLogRepo.js";
import { createResponsesRepo } from "./responsesRepo.js";
import { createUsageRepo } from "./usageRepo.js";
import type { LogWriterKind } from "./requestLogSink.js";
import type { SecretCipher } from "./secrets.js";
import { createSessionPinRepo } from "./sessionRepo.js";
import { createSettingsRepo } from "./settingsRepo.js";
import { createWriteEpoch } from "./readCache.js";
import type { Store } from "./types.js";

export interface CreateStoreOptions {
  dbPath: string;
  cipher: SecretCipher;
  clock?: Clock;
  /** Request-log rows kept (R15.1); defaults to DEFAULT_REQUEST_LOG_RETENTION. */
  logRetention?: number;
  /** Failures of background request-log flushes; defaults to a process warning. */
  onLogError?: (err: Error) => void;
  /** Who commits request-log batches: this thread (the default) or the log's writer thread (the gateway). */
  logWriter?: LogWriterKind;
}

const systemClock: Clock = { now: () => Date.now() };

function warnLogError(err: Error): void {
  process.emitWarning(err, "SwitchyardRequestLog");
}

/** Flushes every write-behind repo, even past one that fails; the first failure is thrown after. */
function flushEach(repos: ReadonlyArray<{ flush(): void }>): void {
  let failure: Error | null = null;
  for (const repo of repos) {
    try {
      repo.flush();
    } catch (err) {
      failure ??= err instanceof Error ? err : new Error(String(err));
    }
  }
  if (failure) throw failure;
}

export function createStore(opts: CreateStoreOptions): Store {
  const clock = opts.clock ?? systemClock;
  const db = openDatabase(opts.dbPath);
  const epoch = createWriteEpoch();
  try {
    const logs = createRequestLogRepo(db, {
      retention: opts.logRetention ?? DEFAULT_REQUEST_LOG_RETENTION,
      onError: opts.onLogError ?? warnLogError,
      now: () => clock.now(),
      writer: opts.logWriter,
    });
    const sessionPins = createSessionPinRepo(db, opts.onLogError ?? warnLogError);
    const quotas = createQuotaRepo(db, opts.onLogError ?? warnLogError);
    const reasoningProvenance = createProvenanceRepo(db, () => clock.now(), opts.onLogError ?? warnLogError);
    const modelWindows = createModelWindowRepo(db, opts.onLogError ?? warnLogError);
    return {
      providers: createProviderRepo(db, clock, epoch),
      connections: createConnectionRepo(db, clock, opts.cipher, epoch),
      combos: createComboRepo(db, clock, epoch),
      apiKeys: createApiKeyRepo(db, clock),
      settings: createSettingsRepo(db, clock),
      logs,
      breakers: createBreakerRepo(db),
      sessionPins,
      leases: createLeaseRepo(db),
      responses: createResponsesRepo(db, clock),
      quotas,
      reasoningProvenance,
      modelWindows,
      usage: createUsageRepo(db, () => logs.flush()),
      transaction: (fn) => {
        try {
          // IMMEDIATE, as every read-then-write here: the request log's writer thread commits to the
          // same file, and a deferred transaction whose snapshot it made stale would fail, not wait.
          return db.transaction(fn).immediate();
        } finally {
          epoch.bump();
        }
      },
      close() {
        if (!db.open) return;
        try {
          try {
            flushEach([quotas, sessionPins, reasoningProvenance, modelWindows]);
          } finally {
            logs.close();
          }
        } finally {
          db.close();
        }
      },
    };
  } catch (err) {
    db.close();
    throw err;
  }
}

export type { Store } from "./types.js";
export type { ApiKeyRepo, ComboRepo, ConnectionInput, ConnectionRepo, ProviderInput, ProviderRepo, RequestLogRepo, ResponsesRepo, SettingsRepo } from "./types.js";
export { type SecretCipher, SecretDecryptError, createFileKeyCipher } from "./secrets.js";
export { StoreConflictError, StoreError, StoreReferenceError, StoreSchemaTooNewError, type StoreEntity } from "./errors.js";
export { CURRENT_SCHEMA_VERSION } from "./migrations.js";
export { DEFAULT_REQUEST_LOG_RETENTION } from "./requestLogRepo.js";
export { PROVENANCE_BOUNDS, type ProvenanceRepo } from "./provenanceRepo.js";
export { hashApiKey } from "./apiKeyRepo.js";
