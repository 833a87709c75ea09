// Shared test doubles for the engine: a fake clock, in-memory ports and domain rows.
import { answerReader } from "../../../main/gateway/formats/answerReader.js";
import type { ResilienceSettings } from "../../../shared/resilienceSettings.js";
import { normalizeResilienceSettings } from "../../../shared/schemas/resilienceDocument.js";
import type { AppSettings, Connection, ConnectionRuntime, Provider, SwitchyardEvent } from "../../../shared/types.js";
import { createResilienceEngine, type ResilienceAdminEngine } from "../../../main/engine/index.js";
import type { UpstreamFailure, UpstreamHeaders } from "../../../main/engine/failure.js";
import type { BreakerSnapshot, BreakerStore, ConnectionRuntimeStore, FailureInput, Verdict } from "../../../main/engine/ports.js";

export const T0 = Date.UTC(2030, 0, 15, 12, 0, 0);

export interface FakeClock {
  now(): number;
  advance(ms: number): number;
}

export function fakeClock(start = T0): FakeClock {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

export function provider(over: Partial<Provider> = {}): Provider {
  return {
    id: "p",
    format: "openai",
    baseUrl: "https://api.example.test/v1",
    category: "apikey",
    models: ["m"],
    quotaFamilies: {},
    passthroughModels: false,
    rateLimitCooldownSeconds: null,
    priority: 0,
    options: {},
    createdAt: 0,
    updatedAt: 0,
    ...over,
  };
}

export function connection(over: Partial<Connection> = {}): Connection {
  return {
    id: "c1",
    provider: "p",
    name: "key one",
    priority: 0,
    weight: 1,
    active: true,
    hasSecret: true,
    maxConcurrent: null,
    rateLimitOverrides: {},
    rateLimitProtection: null,
    providerSpecificData: {},
    disableCooling: false,
    subscription: false,
    budget: null,
    credential: "key",
    accountOf: null,
    createdAt: 0,
    updatedAt: 0,
    testStatus: "active",
    rateLimitedUntil: null,
    backoffLevel: 0,
    lastError: null,
    lastErrorType: null,
    errorCode: null,
    lastErrorAt: null,
    authFailureCount: 0,
    ...over,
  };
}

export class MemoryConnections implements ConnectionRuntimeStore {
  readonly rows = new Map<string, Connection>();
  writes = 0;
  constructor(rows: Connection[] = []) {
    for (const row of rows) this.rows.set(row.id, { ...row });
  }
  updateRuntime(id: string, patch: Partial<ConnectionRuntime>): void {
    const row = this.rows.get(id);
    if (!row) throw new Error(`no connection ${id}`);
    this.writes++;
    this.rows.set(id, { ...row, ...patch });
  }
  get(id: string): Connection | null {
    return this.rows.get(id) ?? null;
  }
  row(id: string): Connection {
    const row = this.rows.get(id);
    if (!row) throw new Error(`no connection ${id}`);
    return row;
  }
  list(): Connection[] {
    return [...this.rows.values()];
  }
}

export class MemoryBreakers implements BreakerStore {
  readonly saved = new Map<string, BreakerSnapshot>();
  saves = 0;
  constructor(initial: BreakerSnapshot[] = []) {
    for (const s of initial) this.saved.set(s.provider, s);
  }
  loadAll(): BreakerSnapshot[] {
    return [...this.saved.values()];
  }
  save(snapshot: BreakerSnapshot): void {
    this.saves++;
    this.saved.set(snapshot.provider, snapshot);
  }
  delete(provider: string): void {
    this.saved.delete(provider);
  }
}

export function settingsWith(patch: unknown = {}): ResilienceSettings {
  return normalizeResilienceSettings(patch, {}).settings;
}

export interface Harness {
  engine: ResilienceAdminEngine;
  clock: FakeClock;
  store: MemoryConnections;
  breakers: MemoryBreakers;
  events: SwitchyardEvent[];
  settings: ResilienceSettings;
  app: Pick<AppSettings, "providerErrorRules" | "providerErrorDefaults">;
}

export function harness(opts: { connections?: Connection[]; settings?: unknown; breakers?: BreakerSnapshot[] } = {}): Harness {
  const clock = fakeClock();
  const store = new MemoryConnections(opts.connections ?? [connection()]);
  const breakers = new MemoryBreakers(opts.breakers);
  const events: SwitchyardEvent[] = [];
  const app: Pick<AppSettings, "providerErrorRules" | "providerErrorDefaults"> = { providerErrorRules: [], providerErrorDefaults: {} };
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- h.engine is set right below: the engine's deps read h
  const h = {
    clock,
    store,
    breakers,
    events,
    settings: settingsWith(opts.settings),
    app,
  } as Harness;
  h.engine = createResilienceEngine({
    clock,
    breakers,
    connections: store,
    getSettings: () => h.settings,
    getAppSettings: () => h.app,
    emit: (e) => events.push(e),
    answers: answerReader,
  });
  return h;
}

/**
 * A failed attempt to classify: an upstream answer (`status`, `headers`, `bodyText`; a 500 by
 * default), or any other failure given whole as `failure`.
 */
export interface FailureFields {
  provider?: Provider;
  model?: string;
  status?: number;
  headers?: UpstreamHeaders;
  bodyText?: string;
  failure?: UpstreamFailure;
}

export function failureInput(over: FailureFields = {}): FailureInput {
  const failure = over.failure ?? { kind: "http", status: over.status ?? 500, headers: over.headers ?? {}, bodyText: over.bodyText ?? "" };
  return { provider: over.provider ?? provider(), model: over.model ?? "m", failure };
}

/** Classifies and records one failed attempt through the facade, the way the gateway does. */
export function fail(h: Harness, input: FailureFields, at: { connectionId?: string; probe?: boolean; provider?: Provider } = {}): Verdict {
  const p = at.provider ?? input.provider ?? provider();
  const full = failureInput({ ...input, provider: p });
  const verdict = h.engine.classify(full);
  h.engine.recordFailure({ provider: p, connection: h.store.row(at.connectionId ?? "c1"), model: full.model, probe: at.probe ?? false }, verdict);
  return verdict;
}

export function succeed(h: Harness, at: { connectionId?: string; model?: string; probe?: boolean; provider?: Provider } = {}): void {
  h.engine.recordSuccess({ provider: at.provider ?? provider(), connection: h.store.row(at.connectionId ?? "c1"), model: at.model ?? "m", probe: at.probe ?? false });
}
