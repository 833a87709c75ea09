// The shared state a Switchyard uses: none (local mode: this instance's memory is the whole
// state), or the Redis hub of whatever URL the settings name, followed live (R10.3, R19.1).
import { createRedisSharedState, newInstanceId, type SharedStateOptions } from "./redisState.js";
import type { SharedKind, SharedListener, SharedState } from "../engine/sharedState.js";

/** No Redis configured: this instance's memory is the whole state (R19.3 `mode: "local"`). */
export function createLocalSharedState(instanceId = newInstanceId()): SharedState {
  return {
    mode: "local",
    instanceId,
    status: () => ({ mode: "local", status: "ok" }),
    groupSlot: () => null,
    write: () => undefined,
    subscribe: () => () => undefined,
    claim: async () => "held",
    release: async () => undefined,
    close: async () => undefined,
  };
}

/**
 * Two connections: commands fail fast (no offline queue, short timeouts, quick capped reconnects),
 * so a dead Redis is noticed within about a second; the subscriber is its duplicate in pub/sub mode.
 */
export interface SharedStateSwitch extends SharedState {
  /** Re-reads the URL (after a settings change): a new URL joins that Redis, none goes local. */
  refresh(): void;
}

/**
 * The shared state of whatever Redis the settings (else SWITCHYARD_REDIS_URL) name, live like the
 * shared limits (R10.3): listeners stay registered across a switch. Writes made before a switch
 * stay local to this instance; the new Redis's state reaches the listeners when it is joined.
 */
export function followSharedState(urlOf: () => string | null, options: SharedStateOptions = {}): SharedStateSwitch {
  const instanceId = options.instanceId ?? newInstanceId();
  const make = (url: string | null) => (url ? createRedisSharedState(url, { ...options, instanceId }) : createLocalSharedState(instanceId));
  let url = urlOf();
  let current = make(url);
  const registrations = new Map<SharedListener, { kind: SharedKind; off: () => void }>();
  return {
    get mode() {
      return current.mode;
    },
    instanceId,
    status: () => current.status(),
    groupSlot: () => current.groupSlot(),
    write: (kind, key, entry, rule) => current.write(kind, key, entry, rule),
    subscribe<T>(kind: SharedKind, listener: SharedListener<T>) {
      // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- as in RedisSharedState.subscribe
      const registered = listener as SharedListener;
      registrations.set(registered, { kind, off: current.subscribe(kind, registered) });
      return () => {
        registrations.get(registered)?.off();
        registrations.delete(registered);
      };
    },
    claim: (kind, key, owner, ttlMs) => current.claim(kind, key, owner, ttlMs),
    release: (kind, key, owner) => current.release(kind, key, owner),
    refresh() {
      const next = urlOf();
      if (next === url) return;
      const previous = current;
      url = next;
      current = make(next);
      for (const [listener, registration] of registrations) registration.off = current.subscribe(registration.kind, listener);
      void previous.close();
    },
    close: () => current.close(),
  };
}
