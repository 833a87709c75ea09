// R9.6: concurrency shared across Switchyards through Redis, with Bottleneck's own clustering (its
// ioredis datastore): one clustered limiter per connection, keyed by the connection id, so every
// process sharing the Redis shares that connection's cap; and (R19.1) one per model cap of a
// connection, keyed by the group-stable connection key and the model. Redis being down must never fail a
// request: commands fail fast (no offline queue), `available()` turns false and the admit stage
// falls back to its local gates; a request caught waiting when Redis drops goes on without a slot.
import { createRequire } from "node:module";
import type BottleneckModule from "bottleneck";
import type { Redis as RedisClient } from "ioredis";
import type { SharedLimitsState } from "../../../../shared/apiTypes.js";

// Loaded on first use: a Switchyard without Redis (the usual case) never pays their memory.
const requireCjs = createRequire(import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- require() is untyped; the type import above names what bottleneck exports
const loadBottleneck = () => requireCjs("bottleneck") as typeof BottleneckModule;
// eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- require() is untyped; the type import above names what ioredis exports
const loadRedis = () => (requireCjs("ioredis") as { Redis: typeof RedisClient }).Redis;

export type SharedAcquire = { ok: true; release: () => void } | { ok: false; gone: boolean };

export interface SharedLimits {
  available(): boolean;
  /** Requests of this process waiting in the shared limiter of a connection. */
  queued(connectionId: string): number;
  /**
   * Waits for one of `cap` shared permits of the connection's limiter, or of `limiterId`'s (a
   * model's, modelLimiterId) while counting as the connection's waiter; `budgetMs` 0 = no budget.
   */
  acquire(connectionId: string, cap: number, budgetMs: number, signal: AbortSignal, limiterId: string): Promise<SharedAcquire>;
  state(): SharedLimitsState;
  close(): Promise<void>;
}

/** Keys in Redis expire after this long without use, so a deleted connection leaves nothing behind. */
const LIMITER_KEY_TTL_MS = 6 * 3_600_000;
const NO_SLOT = () => undefined;

/** A connection cap's limiter, by the group-stable connection key (`<provider>/<connection name>`). */
export const connectionLimiterId = (connectionKey: string) => `switchyard-connection-${connectionKey}`;
/** R19.1: a model cap's limiter; `connectionKey` is group-stable (`<provider>/<connection name>`). */
export const modelLimiterId = (connectionKey: string, model: string) => `switchyard-model-${connectionKey}-${model}`;

export function createSharedLimits(url: string, onState?: (state: SharedLimitsState) => void): SharedLimits {
  const Bottleneck = loadBottleneck();
  const Redis = loadRedis();
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    retryStrategy: (times: number) => Math.min(times * 250, 2_000),
  });
  let everReady = false;
  const report = () => onState?.(state());
  client.on("error", () => undefined);
  client.on("ready", () => {
    everReady = true;
    report();
  });
  client.on("close", () => {
    degradeWaiters();
    report();
  });
  const connection = new Bottleneck.IORedisConnection({ client, Redis });
  connection.on("error", () => undefined);
  const limiters = new Map<string, { limiter: BottleneckModule; cap: number }>();
  const waiting = new Map<string, number>();
  const pending = new Set<(result: SharedAcquire) => void>();

  function state(): SharedLimitsState {
    if (client.status === "ready") return { mode: "redis", status: "ready" };
    return { mode: "redis", status: everReady || client.status !== "connecting" ? "unreachable" : "connecting" };
  }

  /** Redis went away while requests waited on it: they go on under local limits (R9.6). */
  function degradeWaiters(): void {
    for (const resolve of [...pending]) resolve({ ok: true, release: NO_SLOT });
  }

  function limiterFor(id: string, cap: number): BottleneckModule {
    const known = limiters.get(id);
    if (known && known.cap === cap) return known.limiter;
    if (known) {
      known.limiter.updateSettings({ maxConcurrent: cap });
      known.cap = cap;
      return known.limiter;
    }
    const limiter = new Bottleneck({ id, datastore: "ioredis", connection, maxConcurrent: cap, clearDatastore: false, timeout: LIMITER_KEY_TTL_MS });
    limiter.on("error", () => undefined);
    limiters.set(id, { limiter, cap });
    return limiter;
  }

  function acquire(connectionId: string, cap: number, budgetMs: number, signal: AbortSignal, limiterId: string): Promise<SharedAcquire> {
    const limiter = limiterFor(limiterId, cap);
    waiting.set(connectionId, (waiting.get(connectionId) ?? 0) + 1);
    return new Promise<SharedAcquire>((resolve) => {
      let settled = false;
      let timer: NodeJS.Timeout | null = null;
      const settle = (result: SharedAcquire) => {
        if (settled) return false;
        settled = true;
        pending.delete(settle);
        if (timer) clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        waiting.set(connectionId, (waiting.get(connectionId) ?? 1) - 1);
        resolve(result);
        return true;
      };
      const onAbort = () => settle({ ok: false, gone: true });
      pending.add(settle);
      if (budgetMs > 0) timer = setTimeout(() => settle({ ok: false, gone: false }), budgetMs);
      signal.addEventListener("abort", onAbort, { once: true });
      // The job holds its shared permit until the request releases it; a job that starts after its
      // request gave up frees the permit at once.
      limiter
        .schedule(
          () =>
            new Promise<void>((done) => {
              if (!settle({ ok: true, release: () => done() })) done();
            }),
        )
        .catch(() => settle({ ok: true, release: NO_SLOT }));
      if (signal.aborted) onAbort();
    });
  }

  return {
    available: () => client.status === "ready",
    queued: (connectionId) => waiting.get(connectionId) ?? 0,
    acquire,
    state,
    async close() {
      degradeWaiters();
      // Closes the client and Bottleneck's subscriber twin, so no reconnect loop outlives us. First:
      // a limiter disconnected on a live connection unsubscribes without handling the answer, and
      // with the subscriber not writable (Redis down or coming back) that is an unhandled rejection.
      await connection.disconnect(false);
      await Promise.allSettled([...limiters.values()].map(({ limiter }) => limiter.disconnect(false)));
    },
  };
}

export interface SharedLimitsSwitch {
  current(): SharedLimits | null;
  /** Re-reads the URL (after a settings change): a new URL connects anew, none goes local. */
  refresh(): void;
  state(): SharedLimitsState;
  close(): Promise<void>;
}

/** The shared limits of whatever Redis the settings (else SWITCHYARD_REDIS_URL) name, live (R10.3). */
export function followRedisUrl(urlOf: () => string | null): SharedLimitsSwitch {
  let url = urlOf();
  let current = url ? createSharedLimits(url) : null;
  return {
    current: () => current,
    refresh() {
      const next = urlOf();
      if (next === url) return;
      const previous = current;
      url = next;
      current = next ? createSharedLimits(next) : null;
      void previous?.close();
    },
    state: () => current?.state() ?? { mode: "local", status: "local" },
    async close() {
      await current?.close();
    },
  };
}
