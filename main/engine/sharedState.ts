// R19: the resilience state several Switchyards share through Redis. Every kind of state is a map
// of entries keyed by a group-stable key (never a per-instance id: connections are named
// "<provider>/<connection name>", so instances loaded from the same config file agree). The request
// path never talks to Redis: each instance keeps its own state in memory, hands every change to
// `write`, and applies what `subscribe` delivers (the entry as Redis merged it, its own included).
import type { SharedStateHealth } from "../../shared/apiTypes.js";

/** The kinds of shared state (R19.1). */
export type SharedKind =
  | "runtime" // connection cooldown, backoff level, terminal state (ConnectionRuntime fields)
  | "breaker" // provider circuit breaker snapshot
  | "providerCooldown" // the opt-in provider cooldown
  | "lockout" // model lockouts
  | "toolLimit" // learned tool limits
  | "quota" // learned remaining quota (R18.3 / quotaPreflightCutoff)
  | "queuePause" // learned queue pauses (pacing from a 429)
  | "pin" // session pins (R7.1)
  | "lease" // exclusive session leases (R7.2)
  | "provenance"; // which account issued each reasoning artifact (R22.3)

/**
 * How Redis merges an incoming write with the entry it holds (R19.2, R19.3):
 * - "lww": the later `at` wins.
 * - "until": a `force` write (an operator's reset) always wins; else a terminal entry is never
 *   overwritten by a non-terminal one; else, when the write carries `base` and the stored entry's
 *   level is already above that base while its `until` is still ahead, the write is the same
 *   incident seen twice and changes nothing but may extend `until` (anti-thundering-herd);
 *   else the later `until` wins, and a clear (value null) wins over an entry whose `until` has passed
 *   or whose `at` is older.
 */
export type MergeRule = "lww" | "until";

export interface SharedEntry<T = unknown> {
  /** The state; null = cleared. */
  value: T | null;
  /** Epoch ms of the write, on the engine's Clock (a group runs the real clock; --test-clock is for one instance). */
  at: number;
  /** When the state ends by itself (a cooldown's or a lockout's end), on the same clock; null = no end. */
  until: number | null;
  /** A terminal state (banned, expired, credits exhausted): only a `force` write replaces it. */
  terminal?: boolean;
  /** An operator's or a user's reset: overrides terminal and everything else. */
  force?: boolean;
  /** Anti-herd: the level this write raised from; `level` is the one it raised to. */
  base?: number;
  level?: number;
  /** The instance that wrote it. */
  origin: string;
}

export type SharedListener<T = unknown> = (key: string, entry: SharedEntry<T>, fromSelf: boolean) => void;

/** The `sharedState` object of GET /api/monitoring/health (API.md). */
export type SharedStateStatus = SharedStateHealth;

export interface GroupSlot {
  index: number;
  count: number;
}

export interface SharedState {
  readonly mode: "local" | "redis";
  /** This instance's id in the group. */
  readonly instanceId: string;
  status(): SharedStateStatus;
  /**
   * This instance's place among the live instances of the group (all agree on the order), or null
   * when that is not known now (local mode, Redis unreachable, not joined yet). A concurrency cap is
   * split by it: each instance holds its slice locally, so no permit costs a Redis round trip (R19.1).
   */
  groupSlot(): GroupSlot | null;
  /**
   * Hands a local change to the group: merged in Redis by `rule`, then published; every instance
   * (this one too, fromSelf = true) hears the merged entry. Never throws, never waits: while Redis
   * is unreachable the latest write per key is kept and merged by the same rule when it returns.
   * In local mode it does nothing.
   */
  write<T>(kind: SharedKind, key: string, entry: Omit<SharedEntry<T>, "origin">, rule: MergeRule): void;
  /** Hears merged entries of one kind (from every instance), and the full state of that kind after (re)joining. */
  subscribe<T>(kind: SharedKind, listener: SharedListener<T>): () => void;
  /**
   * A group-wide exclusive claim (SET NX PX) for the rare paths that need one answer in the whole
   * group: the HALF_OPEN probe, an exclusive lease. "held" = this owner holds it (taken now or
   * already its own); "taken" = someone else holds it; "unreachable" = Redis is down (decide locally).
   * In local mode it resolves "held".
   */
  claim(kind: SharedKind, key: string, owner: string, ttlMs: number): Promise<"held" | "taken" | "unreachable">;
  release(kind: SharedKind, key: string, owner: string): Promise<void>;
  close(): Promise<void>;
}
