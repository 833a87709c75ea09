// R19: the hub that shares resilience state between Switchyards through Redis. Each kind is a hash
// `switchyard:state:<kind>` (field = group-stable key, value = the entry as JSON); every write goes
// through one Lua merge (scripts.ts) that stores and publishes the winner on `switchyard:state`, so
// the request path only ever reads the local memory the listeners keep current. A Redis that is
// down never fails anything: writes wait in memory (the latest per key) and are merged on return,
// after which the whole state is read back, so an instance that was apart, or just started, catches up.
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import type { Redis as RedisClient } from "ioredis";
import { CLAIM_LUA, HEARTBEAT_LUA, MERGE_LUA, PRUNE_LUA, RELEASE_LUA } from "./scripts.js";
import type { GroupSlot, MergeRule, SharedEntry, SharedKind, SharedListener, SharedState, SharedStateStatus } from "../engine/sharedState.js";

// Loaded on first use: a Switchyard without Redis (the usual case) never pays its memory.
const requireCjs = createRequire(import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- require() is untyped; the type import above names what ioredis exports
const loadRedis = () => (requireCjs("ioredis") as { Redis: typeof RedisClient }).Redis;

export const SHARED_KINDS: readonly SharedKind[] = ["runtime", "breaker", "providerCooldown", "lockout", "toolLimit", "quota", "queuePause", "pin", "lease", "provenance"];

export const STATE_CHANNEL = "switchyard:state";
export const stateHashKey = (kind: SharedKind) => `switchyard:state:${kind}`;
const claimKey = (kind: SharedKind, key: string) => `switchyard:claim:${kind}:${key}`;
const INSTANCES_KEY = "switchyard:instances";
/** An instance counts as live while it beat within this long (it beats every HEARTBEAT_MS). */
const INSTANCE_TTL_MS = 3_000;
const HEARTBEAT_MS = 1_000;
/** Every this many beats, entries long over are pruned (PRUNE_LUA). */
const PRUNE_EVERY_BEATS = 60;
const PRUNE_GRACE_MS = 3_600_000;

interface ScriptedRedis extends RedisClient {
  switchyardMerge(hash: string, field: string, entry: string, rule: MergeRule, now: string, channel: string, kind: SharedKind): Promise<[number, string]>;
  switchyardPrune(hash: string, now: string, graceMs: string): Promise<number>;
  switchyardBeat(key: string, instanceId: string, ttlMs: string): Promise<string[]>;
  switchyardClaim(key: string, owner: string, ttlMs: string): Promise<number>;
  switchyardRelease(key: string, owner: string): Promise<number>;
}

export interface SharedStateOptions {
  /** This instance's id in the group (default: pid and a random suffix). */
  instanceId?: string;
  /** The clock entries are written on (the engine's); decides whether a stored `until` is still ahead. */
  now?: () => number;
}

export const newInstanceId = (): string => `${process.pid}-${randomUUID().slice(0, 8)}`;

function connect(url: string): { command: ScriptedRedis; subscriber: RedisClient } {
  const Redis = loadRedis();
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- the defineCommand calls right below add ScriptedRedis's methods
  const command = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 500,
    commandTimeout: 1_000,
    retryStrategy: (times: number) => Math.min(50 * 2 ** Math.min(times, 5), 1_000),
  }) as ScriptedRedis;
  command.defineCommand("switchyardMerge", { numberOfKeys: 1, lua: MERGE_LUA });
  command.defineCommand("switchyardPrune", { numberOfKeys: 1, lua: PRUNE_LUA });
  command.defineCommand("switchyardBeat", { numberOfKeys: 1, lua: HEARTBEAT_LUA });
  command.defineCommand("switchyardClaim", { numberOfKeys: 1, lua: CLAIM_LUA });
  command.defineCommand("switchyardRelease", { numberOfKeys: 1, lua: RELEASE_LUA });
  const subscriber = command.duplicate({ enableOfflineQueue: true, autoResubscribe: false, commandTimeout: 2_000 });
  command.on("error", () => undefined);
  subscriber.on("error", () => undefined);
  return { command, subscriber };
}

interface PendingWrite {
  kind: SharedKind;
  key: string;
  entry: SharedEntry;
  rule: MergeRule;
}

class RedisSharedState implements SharedState {
  readonly mode = "redis" as const;
  readonly instanceId: string;
  private readonly now: () => number;
  private readonly command: ScriptedRedis;
  private readonly subscriber: RedisClient;
  private readonly listeners = new Map<SharedKind, Set<SharedListener>>();
  /** Writes Redis has not taken yet, the latest per kind and key (R19.3). */
  private readonly pending = new Map<string, PendingWrite>();
  private subscribed = false;
  /** Replayed and read back since the last (re)connect: live writes go straight to Redis. */
  private joined = false;
  private joining = false;
  private joinAgain = false;
  private beatFailed = false;
  private instances: number | undefined;
  private slot: GroupSlot | null = null;
  private beats = 0;
  /** Keys published while a read-back or a merge's answer is on its way: the message is as new as what the answer brings, or newer. */
  private readonly heardDuringReadBack = new Set<Set<string>>();
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(url: string, options: SharedStateOptions) {
    this.instanceId = options.instanceId ?? newInstanceId();
    this.now = options.now ?? Date.now;
    ({ command: this.command, subscriber: this.subscriber } = connect(url));
    this.command.on("ready", () => this.join());
    this.command.on("close", () => this.apart());
    this.subscriber.on("close", () => {
      // Publishes were missed while it was away: only a full read-back can make up for them.
      this.subscribed = false;
      this.apart();
    });
    this.subscriber.on("ready", () => void this.listen());
    this.subscriber.on("message", (_channel: string, message: string) => this.onMessage(message));
    this.timer = setInterval(() => void this.beat(), HEARTBEAT_MS);
    this.timer.unref();
  }

  groupSlot(): GroupSlot | null {
    return this.status().status === "ok" ? this.slot : null;
  }

  status(): SharedStateStatus {
    const ok = this.command.status === "ready" && this.subscribed && !this.beatFailed;
    return ok ? { mode: "redis", status: "ok", ...(this.instances === undefined ? {} : { instances: this.instances }) } : { mode: "redis", status: "unreachable" };
  }

  write<T>(kind: SharedKind, key: string, entry: Omit<SharedEntry<T>, "origin">, rule: MergeRule): void {
    const full: SharedEntry = { ...entry, origin: this.instanceId };
    const write: PendingWrite = { kind, key, entry: full, rule };
    if (!this.joined || this.command.status !== "ready") {
      this.pending.set(pendingId(kind, key), write);
      return;
    }
    void this.send(write).catch(() => this.keepIfNewest(write));
  }

  subscribe<T>(kind: SharedKind, listener: SharedListener<T>): () => void {
    const set = this.listeners.get(kind) ?? new Set<SharedListener>();
    this.listeners.set(kind, set);
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- a kind's entries are what its writers wrote: the kind names their type
    const registered = listener as SharedListener;
    set.add(registered);
    // A listener that comes after the read-back still learns the whole state of its kind.
    if (this.joined) void this.readBack(kind, (key, entry) => registered(key, entry, entry.origin === this.instanceId)).catch(() => undefined);
    return () => set.delete(registered);
  }

  async claim(kind: SharedKind, key: string, owner: string, ttlMs: number): Promise<"held" | "taken" | "unreachable"> {
    if (this.command.status !== "ready") return "unreachable";
    try {
      const held = await this.command.switchyardClaim(claimKey(kind, key), owner, String(Math.max(1, Math.round(ttlMs))));
      return held === 1 ? "held" : "taken";
    } catch {
      return "unreachable";
    }
  }

  async release(kind: SharedKind, key: string, owner: string): Promise<void> {
    if (this.command.status !== "ready") return;
    await this.command.switchyardRelease(claimKey(kind, key), owner).catch(() => undefined);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    // Leaving at once, rather than when the heartbeat lapses, keeps `instances` exact.
    if (this.command.status === "ready") {
      await this.command.zrem(INSTANCES_KEY, this.instanceId).catch(() => undefined);
      await this.announceMembership();
    }
    this.command.disconnect();
    this.subscriber.disconnect();
  }

  private apart(): void {
    this.joined = false;
    this.instances = undefined;
    this.slot = null;
  }

  private async listen(): Promise<void> {
    try {
      await this.subscriber.subscribe(STATE_CHANNEL);
      this.subscribed = true;
      this.join();
    } catch {
      // The subscriber dropped again; its next "ready" subscribes anew.
    }
  }

  private onMessage(message: string): void {
    let parsed: { kind: SharedKind; key: string; entry: SharedEntry } | { membership: string };
    try {
      parsed = JSON.parse(message);
    } catch {
      return;
    }
    // An instance joined or left: counted now rather than at the next beat, so `instances` is current.
    if ("membership" in parsed) return void this.beat();
    for (const heard of this.heardDuringReadBack) heard.add(pendingId(parsed.kind, parsed.key));
    this.deliver(parsed.kind, parsed.key, parsed.entry);
  }

  private deliver(kind: SharedKind, key: string, entry: SharedEntry): void {
    for (const listener of this.listeners.get(kind) ?? []) {
      try {
        listener(key, entry, entry.origin === this.instanceId);
      } catch {
        // One kind's failing listener must not stop the others hearing the change.
      }
    }
  }

  private async send(write: PendingWrite): Promise<void> {
    const heard = new Set<string>();
    this.heardDuringReadBack.add(heard);
    let changed: number;
    let stored: string;
    try {
      [changed, stored] = await this.command.switchyardMerge(
        stateHashKey(write.kind),
        write.key,
        JSON.stringify(write.entry),
        write.rule,
        String(this.now()),
        STATE_CHANNEL,
        write.kind,
      );
    } finally {
      this.heardDuringReadBack.delete(heard);
    }
    // A write that lost the merge is not published: only its writer needs to hear what stands,
    // unless a newer change of that key was heard while the answer was on its way.
    if (!changed && !heard.has(pendingId(write.kind, write.key))) this.deliver(write.kind, write.key, parseEntry(stored));
  }

  private keepIfNewest(write: PendingWrite): void {
    const id = pendingId(write.kind, write.key);
    if (!this.pending.has(id)) this.pending.set(id, write);
  }

  /** (Re)joining: this instance's writes made while apart are merged, then the whole state is read back. */
  private join(): void {
    if (this.closed || this.command.status !== "ready" || !this.subscribed) return;
    if (this.joining) {
      this.joinAgain = true;
      return;
    }
    this.joining = true;
    void this.replayAndReadBack().finally(() => {
      this.joining = false;
      if (this.joinAgain && !this.joined) {
        this.joinAgain = false;
        this.join();
      }
    });
  }

  private async replayAndReadBack(): Promise<void> {
    try {
      while (this.pending.size > 0) {
        const batch = [...this.pending.values()];
        this.pending.clear();
        const results = await Promise.allSettled(batch.map((write) => this.send(write)));
        const failed = batch.filter((_, i) => results[i]?.status === "rejected");
        for (const write of failed) this.keepIfNewest(write);
        if (failed.length > 0) return;
      }
      for (const kind of SHARED_KINDS) await this.readBack(kind, (key, entry) => this.deliver(kind, key, entry));
      this.joined = true;
      // Writes that came while the read-back ran were kept: merge them now.
      for (const write of this.drainPending()) void this.send(write).catch(() => this.keepIfNewest(write));
      await this.beat();
      await this.announceMembership();
    } catch {
      // Redis dropped mid-join: the next "ready" joins again.
    }
  }

  private drainPending(): PendingWrite[] {
    const writes = [...this.pending.values()];
    this.pending.clear();
    return writes;
  }

  private async readBack(kind: SharedKind, hand: (key: string, entry: SharedEntry) => void): Promise<void> {
    // Every change after the subscription is published, so a key heard meanwhile is already current.
    const heard = new Set<string>();
    this.heardDuringReadBack.add(heard);
    let all: Record<string, string>;
    try {
      all = await this.command.hgetall(stateHashKey(kind));
    } finally {
      this.heardDuringReadBack.delete(heard);
    }
    for (const [key, raw] of Object.entries(all)) {
      if (heard.has(pendingId(kind, key))) continue;
      try {
        hand(key, parseEntry(raw));
      } catch {
        // An unreadable entry (another version's) is skipped, not fatal to the rest.
      }
    }
  }

  private async beat(): Promise<void> {
    if (this.command.status !== "ready") return;
    // A join cut short by a failed command (the socket stayed up) is retried here.
    if (!this.joined) this.join();
    try {
      const roster = await this.command.switchyardBeat(INSTANCES_KEY, this.instanceId, String(INSTANCE_TTL_MS));
      this.instances = roster.length;
      const index = roster.indexOf(this.instanceId);
      this.slot = index < 0 ? null : { index, count: roster.length };
      this.beatFailed = false;
      if (++this.beats % PRUNE_EVERY_BEATS === 0) await this.prune();
    } catch {
      // A Redis that stopped answering while its socket stays open is as unreachable as a closed one.
      this.beatFailed = true;
      this.instances = undefined;
      this.slot = null;
    }
  }

  private async announceMembership(): Promise<void> {
    await this.command.publish(STATE_CHANNEL, JSON.stringify({ membership: this.instanceId })).catch(() => undefined);
  }

  private async prune(): Promise<void> {
    const now = String(this.now());
    for (const kind of SHARED_KINDS) await this.command.switchyardPrune(stateHashKey(kind), now, String(PRUNE_GRACE_MS));
  }
}

const pendingId = (kind: SharedKind, key: string) => `${kind}\u0000${key}`;

/** An entry as stored: the merge script only ever stores entries this module serialised. */
function parseEntry(raw: string): SharedEntry {
  const entry: SharedEntry = JSON.parse(raw);
  return entry;
}

export function createRedisSharedState(url: string, options: SharedStateOptions = {}): SharedState {
  return new RedisSharedState(url, options);
}
