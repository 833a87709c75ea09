// R19.1 (issue 25): the engine's kinds of shared state: connection runtime (cooldown, backoff level,
// terminal state), provider breakers, model lockouts and the opt-in provider cooldown. The engine
// stays pure: its store ports are decorated here (every runtime write and breaker save is handed
// to the group) and its `share` port hears lockout and provider-cooldown changes; what the group
// says is applied to the local store and the engine's memory without being handed back, and
// announced on the bus as a local change is, so the dashboard and the event stream see it.
import type { Connection, ConnectionRuntime, SwitchyardEvent } from "../../shared/types.js";
import { isTerminal } from "../engine/connectionCooldown.js";
import type { BreakerSnapshot, BreakerStore, Clock, ConnectionRuntimeStore, EngineSharedChange, EventSink, ProviderCooldownPart, RuntimeWriteCause } from "../engine/ports.js";
import type { ResilienceAdmin } from "../engine/admin.js";
import { connectionKeys, type ConnectionKeys } from "./sessionKinds.js";
import type { SharedEntry, SharedState } from "../engine/sharedState.js";

export interface RuntimeRows {
  get(id: string): Connection | null;
  list(filter?: { provider?: string }): Connection[];
  updateRuntime(id: string, patch: Partial<ConnectionRuntime>): void;
}

type RuntimeEntry = Omit<SharedEntry<ConnectionRuntime>, "origin">;

/** What a clear (a success, an operator's reset, new credentials) leaves: successPatch's fields. */
const CLEARED: ConnectionRuntime = {
  testStatus: "active",
  rateLimitedUntil: null,
  backoffLevel: 0,
  lastError: null,
  lastErrorType: null,
  errorCode: null,
  lastErrorAt: null,
  authFailureCount: 0,
};
const RUNTIME_FIELDS: ReadonlyArray<keyof ConnectionRuntime> = [
  "testStatus",
  "rateLimitedUntil",
  "backoffLevel",
  "lastError",
  "lastErrorType",
  "errorCode",
  "lastErrorAt",
  "authFailureCount",
];

/** Only the runtime fields of a row (the group has no use for its configuration). */
function runtimeOf(c: ConnectionRuntime): ConnectionRuntime {
  const { testStatus, rateLimitedUntil, backoffLevel, lastError, lastErrorType, errorCode, lastErrorAt, authFailureCount } = c;
  return { testStatus, rateLimitedUntil, backoffLevel, lastError, lastErrorType, errorCode, lastErrorAt, authFailureCount };
}

const isClean = (c: ConnectionRuntime) => c.testStatus === "active" && c.rateLimitedUntil === null && c.backoffLevel === 0;

/**
 * The group's entry for one runtime write, or null when it is none of the shared states (an error
 * recorded without a cooldown). A cooldown carries the level it raised from (anti-herd, R19.2).
 */
export function runtimeEntry(
  before: ConnectionRuntime | null,
  after: ConnectionRuntime,
  patch: Partial<ConnectionRuntime>,
  cause: RuntimeWriteCause | undefined,
  at: number,
): RuntimeEntry | null {
  const force = cause === "operator" ? { force: true } : {};
  if (patch.testStatus !== undefined && isTerminal(patch.testStatus)) return { value: runtimeOf(after), at, until: null, terminal: true, ...force };
  if (typeof patch.rateLimitedUntil === "number") {
    return { value: runtimeOf(after), at, until: patch.rateLimitedUntil, base: before?.backoffLevel ?? 0, level: after.backoffLevel, ...force };
  }
  if (patch.testStatus === "active" && patch.rateLimitedUntil === null) return { value: null, at, until: null, ...force };
  return null;
}

/** The runtime fields that differ between a row and what the group holds (empty = nothing to apply). */
function runtimeChange(row: ConnectionRuntime, entry: SharedEntry<ConnectionRuntime>): Partial<ConnectionRuntime> {
  const target: ConnectionRuntime = entry.value === null ? CLEARED : { ...runtimeOf(entry.value), backoffLevel: entry.level ?? entry.value.backoffLevel };
  return Object.fromEntries(RUNTIME_FIELDS.filter((field) => row[field] !== target[field]).map((field) => [field, target[field]]));
}

/** The bus event a local change of the same kind emits (engine/index.ts applyPlan, recordSuccess). */
function announceRuntime(emit: EventSink, c: Connection, entry: SharedEntry<ConnectionRuntime>, at: number): void {
  if (entry.value === null) {
    if (!isClean(c) || isTerminal(c.testStatus)) emit({ type: "cooldown.cleared", connectionId: c.id, provider: c.provider, at });
    return;
  }
  const terminal = isTerminal(entry.value.testStatus);
  const reason = terminal ? entry.value.testStatus : (entry.value.lastErrorType ?? "rate_limit");
  emit({ type: "cooldown.set", connectionId: c.id, provider: c.provider, until: terminal ? null : entry.value.rateLimitedUntil, reason, at });
}

export interface EngineSharingDeps {
  shared: SharedState;
  rows: RuntimeRows;
  breakers: BreakerStore;
  clock: Clock;
  emit: EventSink;
}

/** The store ports the engine is built with, and its `share` port; `bind` then applies what the group says. */
export interface EngineSharing {
  connections: ConnectionRuntimeStore;
  breakers: BreakerStore;
  share: (change: EngineSharedChange) => void;
  keys: ConnectionKeys;
  bind(engine: Pick<ResilienceAdmin, "applyShared">, subscribeBus: (listener: (e: SwitchyardEvent) => void) => unknown): void;
}

export function shareEngineState(deps: EngineSharingDeps): EngineSharing {
  const { shared, rows, clock } = deps;
  const keys = connectionKeys(rows);
  const runtime = shareRuntime(deps, keys);
  let applyingBreaker = false;
  return {
    keys,
    connections: runtime.port,
    breakers: {
      loadAll: () => deps.breakers.loadAll(),
      delete: (provider) => deps.breakers.delete(provider),
      save(snapshot) {
        deps.breakers.save(snapshot);
        if (!applyingBreaker) shared.write<BreakerSnapshot>("breaker", snapshot.provider, { value: snapshot, at: clock.now(), until: null }, "lww");
      },
    },
    share: (change) => shareEngineChange(shared, keys, change),
    bind(engine, subscribeBus) {
      runtime.listen(subscribeBus);
      // Under lww this instance's own snapshot is already its cell; an echo could undo a later change made here.
      shared.subscribe<BreakerSnapshot>("breaker", (_provider, entry, fromSelf) => {
        if (fromSelf || entry.value === null) return;
        applyingBreaker = true;
        try {
          engine.applyShared({ kind: "breaker", snapshot: entry.value });
        } finally {
          applyingBreaker = false;
        }
      });
      listenEngineKinds(shared, keys, engine);
    },
  };
}

/**
 * Connection runtime (rule until). Every write through the decorated port is handed to the group;
 * remote entries are written to the row directly (not handed back). New credentials reset the row
 * in the store itself (R4.6), so a connection update that left a clean row where the group holds
 * a state is told to the group as the operator's reset it is.
 */
function shareRuntime(deps: EngineSharingDeps, keys: ConnectionKeys) {
  const { shared, rows, clock, emit } = deps;
  const held = new Map<string, SharedEntry<ConnectionRuntime>>();
  /** The instant of this instance's latest write per key: an own echo older than it crossed a later change made here. */
  const lastWrite = new Map<string, number>();
  const write = (key: string, entry: RuntimeEntry) => {
    lastWrite.set(key, entry.at);
    shared.write<ConnectionRuntime>("runtime", key, entry, "until");
  };
  const apply = (key: string, entry: SharedEntry<ConnectionRuntime>) => {
    const id = keys.idOf(key);
    const row = id === null ? null : rows.get(id);
    if (!row) return;
    const change = runtimeChange(row, entry);
    if (Object.keys(change).length === 0) return;
    rows.updateRuntime(row.id, change);
    announceRuntime(emit, row, entry, clock.now());
  };
  const port: ConnectionRuntimeStore = {
    get: (id) => rows.get(id),
    updateRuntime(id, patch, cause) {
      const before = rows.get(id);
      rows.updateRuntime(id, patch);
      const after = rows.get(id);
      const key = keys.keyOf(id);
      const entry = after && key ? runtimeEntry(before, after, patch, cause, clock.now()) : null;
      if (entry && key) write(key, entry);
    },
  };
  function listen(subscribeBus: Parameters<EngineSharing["bind"]>[1]): void {
    shared.subscribe<ConnectionRuntime>("runtime", (key, entry, fromSelf) => {
      held.set(key, entry);
      if (fromSelf && entry.at < (lastWrite.get(key) ?? 0)) return;
      apply(key, entry);
    });
    subscribeBus((e) => {
      if (e.type !== "config" || e.entity !== "connection") return;
      const key = keys.keyOf(e.id);
      const entry = key ? held.get(key) : undefined;
      if (!key || !entry || entry.value === null) return;
      // A connection added here that the group already knows takes the group's state.
      if (e.action === "created") return apply(key, entry);
      const row = rows.get(e.id);
      if (e.action === "updated" && row && isClean(row) && row.lastError === null) write(key, { value: null, at: clock.now(), until: null, force: true });
    });
  }
  return { port, listen };
}

/** Lockout keys name the connection and the lock's scope; both may contain anything, hence JSON. */
const lockoutKey = (connection: string, scope: string) => JSON.stringify([connection, scope]);

/** Provider-cooldown keys: the provider's window gate is its id, the rule gate `<id>#rule`, a connection's backoff its group key (ids have neither '/' nor '#'). */
function providerCooldownKey(provider: string, part: ProviderCooldownPart, keys: ConnectionKeys): string | null {
  if (part.connectionId !== undefined) return keys.keyOf(part.connectionId);
  return part.gate === "rule" ? `${provider}#rule` : provider;
}

function shareEngineChange(shared: SharedState, keys: ConnectionKeys, change: EngineSharedChange): void {
  if (change.kind === "lockout") {
    const connection = keys.keyOf(change.connectionId);
    if (connection) shared.write("lockout", lockoutKey(connection, change.scope), change.entry, "until");
  } else if (change.kind === "providerCooldown") {
    const key = providerCooldownKey(change.provider, change.part, keys);
    if (key) shared.write("providerCooldown", key, change.entry, "until");
  }
}

/** Lockouts and provider cooldowns: applying is idempotent (the engine compares before announcing), so own entries are applied too. */
function listenEngineKinds(shared: SharedState, keys: ConnectionKeys, engine: Pick<ResilienceAdmin, "applyShared">): void {
  shared.subscribe<Extract<EngineSharedChange, { kind: "lockout" }>["entry"]["value"]>("lockout", (key, entry) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(key);
    } catch {
      return;
    }
    if (!Array.isArray(parsed)) return;
    const [connection, scope]: unknown[] = parsed;
    if (typeof connection !== "string" || typeof scope !== "string") return;
    const connectionId = keys.idOf(connection);
    if (connectionId === null) return;
    engine.applyShared({ kind: "lockout", provider: connection.slice(0, connection.indexOf("/")), connectionId, scope, entry });
  });
  shared.subscribe<{ until: number; failures?: number }>("providerCooldown", (key, entry) => {
    const slash = key.indexOf("/");
    if (slash > 0) {
      const connectionId = keys.idOf(key);
      if (connectionId !== null) engine.applyShared({ kind: "providerCooldown", provider: key.slice(0, slash), part: { connectionId }, entry });
      return;
    }
    const rule = key.endsWith("#rule");
    engine.applyShared({ kind: "providerCooldown", provider: rule ? key.slice(0, -"#rule".length) : key, part: { gate: rule ? "rule" : "window" }, entry });
  });
}
