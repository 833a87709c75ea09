// R19.1 (issue 25): the session and admission kinds of the shared state: session pins, exclusive
// leases, learned tool limits, learned quotas and learned queue pauses. Each binding hands what
// its book changed here to the group (`write`, never awaited) and keeps what the group says in the
// book without handing it back, so the request path goes on reading the books' memory. Only taking
// a lease waits for Redis (one claim, on that explicit API call). Connections are named
// group-stably, `<provider>/<connection name>`: another Switchyard's ids may differ. Model caps are
// shared by admission/sharedLimits.ts (Bottleneck's Redis clustering), not here.
import type { Connection } from "../../shared/types.js";
import type { Lease, LeaseBook, LeaseResult } from "../engine/leases.js";
import type { Clock } from "../engine/ports.js";
import type { HeldWindows, RemainingQuota } from "../engine/quotaCutoff.js";
import type { SessionPins } from "../engine/sessionAffinity.js";
import { ToolLimits } from "../engine/toolLimits.js";
import type { MergeRule, SharedEntry, SharedKind, SharedState } from "../engine/sharedState.js";

/** A connection's group-stable key and back. */
export interface ConnectionKeys {
  keyOf(connectionId: string): string | null;
  idOf(key: string): string | null;
}

export function connectionKeys(connections: { get(id: string): Connection | null; list(filter?: { provider?: string }): Connection[] }): ConnectionKeys {
  return {
    keyOf(connectionId) {
      const connection = connections.get(connectionId);
      return connection ? `${connection.provider}/${connection.name}` : null;
    },
    idOf(key) {
      const slash = key.indexOf("/");
      if (slash <= 0) return null;
      const name = key.slice(slash + 1);
      return connections.list({ provider: key.slice(0, slash) }).find((c) => c.name === name)?.id ?? null;
    },
  };
}

/** Two names in one key (provider and model, connection and model), unambiguous whatever they contain. */
const pairKey = (a: string, b: string | null) => JSON.stringify([a, b]);

function parsePair(key: string): [string, string | null] | null {
  try {
    const pair: unknown = JSON.parse(key);
    if (Array.isArray(pair) && typeof pair[0] === "string" && (typeof pair[1] === "string" || pair[1] === null)) return [pair[0], pair[1]];
  } catch {
    // Not one of ours (another version's key): skipped.
  }
  return null;
}

/** How long this instance remembers its own writes' instants: far longer than a change takes to go round. */
const RECENT_WRITES_MS = 10_000;

/** The instant of this instance's latest write per key, for a while (two generations of maps, so it stays small). */
class RecentWrites {
  private current = new Map<string, number>();
  private previous = new Map<string, number>();
  private rotatedAt = 0;

  wrote(key: string, at: number): void {
    if (at - this.rotatedAt >= RECENT_WRITES_MS) {
      this.previous = this.current;
      this.current = new Map();
      this.rotatedAt = at;
    }
    this.current.set(key, at);
  }

  /** Under lww an entry older than a write of ours can never be the one Redis keeps: it crossed ours. */
  outdated(key: string, at: number): boolean {
    const ours = this.current.get(key) ?? this.previous.get(key);
    return ours !== undefined && at < ours;
  }
}

interface Channel<T> {
  write(key: string, value: T | null, until: number | null, force?: boolean): void;
  listen(apply: (key: string, entry: SharedEntry<T>) => void): void;
}

/**
 * One kind's traffic. Under lww this instance's own entries are already in its book and are not
 * applied again (an echo could undo a later change made here meanwhile). Under `until` applying
 * is idempotent (the later end wins), so own entries are applied too: the merged one may be
 * another's, or a remote lift may have crossed a pause made here.
 */
function channel<T>(shared: SharedState, kind: SharedKind, rule: MergeRule, clock: Clock): Channel<T> {
  const recent = rule === "lww" ? new RecentWrites() : null;
  return {
    write(key, value, until, force = false) {
      const at = clock.now();
      recent?.wrote(key, at);
      shared.write<T>(kind, key, force ? { value, at, until, force } : { value, at, until }, rule);
    },
    listen(apply) {
      shared.subscribe<T>(kind, (key, entry, fromSelf) => {
        if (recent && (fromSelf || recent.outdated(key, entry.at))) return;
        apply(key, entry);
      });
    },
  };
}

/**
 * What the group last heard of each key of a kind that changes with nearly every request (a pin's
 * expiry, a quota reading): a change is written only when it says enough more than that.
 */
class LastShared<V> {
  private readonly last = new Map<string, { value: V; until: number }>();
  private offers = 0;

  constructor(private readonly enough: (before: { value: V; until: number }, next: { value: V; until: number }) => boolean) {}

  /** Whether the group should hear this; if so it counts as heard. */
  offer(key: string, value: V, until: number, now: number): boolean {
    // Now and then, keys whose state is over are dropped, so the map holds live state only.
    if (++this.offers % 1024 === 0) for (const [k, v] of this.last) if (v.until <= now) this.last.delete(k);
    const before = this.last.get(key);
    if (before && !this.enough(before, { value, until })) return false;
    this.last.set(key, { value, until });
    return true;
  }

  heard(key: string, value: V | null, until: number | null): void {
    if (value === null || until === null) this.last.delete(key);
    else this.last.set(key, { value, until });
  }
}

interface SharedPin {
  provider: string;
  connection: string;
  model: string | null;
  lastUsedAt: number;
}

/** A pin is told again when it moves, or when its expiry moved by this share of its TTL (a soft preference may end a little early elsewhere). */
const PIN_REFRESH_SHARE = 0.1;

/** R7.1 pins (lww, until = the pin's expiry): a session pinned through one Switchyard is followed by every other. */
export function sharePins(shared: SharedState, pins: SessionPins, keys: ConnectionKeys, clock: Clock): void {
  const pin = channel<SharedPin>(shared, "pin", "lww", clock);
  const last = new LastShared<SharedPin>(
    (before, next) =>
      before.value.connection !== next.value.connection ||
      before.value.model !== next.value.model ||
      next.until - before.until >= (next.until - next.value.lastUsedAt) * PIN_REFRESH_SHARE,
  );
  pins.onLocalChange((sessionKey, local) => {
    if (!local) {
      last.heard(sessionKey, null, null);
      return pin.write(sessionKey, null, null);
    }
    const connection = keys.keyOf(local.connectionId);
    if (!connection) return;
    const value: SharedPin = { provider: local.provider, connection, model: local.model ?? null, lastUsedAt: local.lastUsedAt };
    if (last.offer(sessionKey, value, local.expiresAt, clock.now())) pin.write(sessionKey, value, local.expiresAt);
  });
  pin.listen((sessionKey, { value, until }) => {
    const connectionId = value ? keys.idOf(value.connection) : null;
    // Pinned elsewhere to a connection this instance does not have: its own pin is out of date all the same.
    if (!value || until === null || !connectionId) {
      last.heard(sessionKey, null, null);
      return pins.applyShared(sessionKey, null);
    }
    last.heard(sessionKey, value, until);
    pins.applyShared(sessionKey, { sessionKey, provider: value.provider, connectionId, model: value.model ?? undefined, expiresAt: until, lastUsedAt: value.lastUsedAt });
  });
}

interface SharedLease {
  keyId: string;
  connection: string;
  generation: number;
  acquiredAt: number;
}

/** Takes a lease exclusively in the whole group (R19.2). */
export type GroupLeaseAcquire = (ownerHash: string, keyId: string, candidates: readonly string[]) => Promise<LeaseResult>;

/**
 * R7.2 leases: the record (lww by owner, until = its expiry) so that every Switchyard knows the
 * fence and keeps the connection off other owners' requests, and a claim per connection that
 * makes taking one exclusive in the group. Renewals extend the claim; releases free it; an
 * expiry is seen by every instance on its own clock, and the claim lapses with the same TTL.
 */
export function shareLeases(shared: SharedState, leases: LeaseBook, keys: ConnectionKeys, clock: Clock): GroupLeaseAcquire {
  const record = channel<SharedLease>(shared, "lease", "lww", clock);
  const claimed = new Map<string, string>();
  leases.onLocalChange((ownerHash, lease, end) => {
    const previous = claimed.get(ownerHash);
    if (!lease) {
      claimed.delete(ownerHash);
      if (end === "EXPIRED") return;
      record.write(ownerHash, null, null);
      if (previous) void shared.release("lease", previous, ownerHash);
      return;
    }
    const connection = keys.keyOf(lease.connectionId);
    if (!connection) return;
    record.write(ownerHash, { keyId: lease.keyId, connection, generation: lease.generation, acquiredAt: lease.acquiredAt }, lease.expiresAt);
    claimed.set(ownerHash, connection);
    // A move (its connection stopped serving, on the request path) cannot wait for Redis: its claim
    // follows, and its record keeps the new connection off other owners' requests meanwhile.
    void shared.claim("lease", connection, ownerHash, lease.expiresAt - clock.now());
    if (previous && previous !== connection) void shared.release("lease", previous, ownerHash);
  });
  record.listen((ownerHash, { value, until }) => {
    const connectionId = value ? keys.idOf(value.connection) : null;
    if (!value || until === null || !connectionId) return leases.applyShared(ownerHash, null);
    const lease: Lease = { ownerHash, keyId: value.keyId, connectionId, generation: value.generation, acquiredAt: value.acquiredAt, expiresAt: until };
    leases.applyShared(ownerHash, lease);
  });
  return (ownerHash, keyId, candidates) => acquireInGroup(shared, leases, keys, { ownerHash, keyId, candidates });
}

/**
 * The book's acquire, with each connection it would take claimed in Redis first: one taken
 * elsewhere in the group (whose record may not have arrived yet) is passed over as if held here.
 * Redis unreachable: decided locally (R19.3).
 */
async function acquireInGroup(
  shared: SharedState,
  leases: LeaseBook,
  keys: ConnectionKeys,
  { ownerHash, keyId, candidates }: { ownerHash: string; keyId: string; candidates: readonly string[] },
): Promise<LeaseResult> {
  // A retried acquire (the owner's own live lease) or another key's owner (stale): the book answers alone.
  if (leases.list().some((l) => l.ownerHash === ownerHash)) return leases.acquire(ownerHash, keyId, candidates);
  for (const connectionId of candidates) {
    if (leases.holderOf(connectionId)) continue;
    const key = keys.keyOf(connectionId);
    const claim = key ? await shared.claim("lease", key, ownerHash, leases.ttlMs) : "unreachable";
    if (claim === "taken") continue;
    const result = leases.acquire(ownerHash, keyId, [connectionId]);
    const took = result.kind === "active" && result.lease.connectionId === connectionId;
    // While the claim was on its way the connection (or this owner) was taken here: the claim goes back.
    if (!took && claim === "held") void shared.release("lease", key!, ownerHash);
    if (result.kind !== "capacity") return result;
  }
  // Every candidate is held, here or elsewhere: the book's refusal, with the earliest expiry it knows.
  return leases.acquire(
    ownerHash,
    keyId,
    candidates.filter((id) => leases.holderOf(id) !== null),
  );
}

/** R11.7 learned tool limits (rule until: the later expiry wins; the book keeps the lower limit). */
export function shareToolLimits(shared: SharedState, limits: ToolLimits, clock: Clock): void {
  const limit = channel<{ maxTools: number }>(shared, "toolLimit", "until", clock);
  limits.onLocalChange((e) => limit.write(pairKey(e.provider, e.model), { maxTools: e.maxTools }, e.expiresAt));
  limit.listen((key, { value, until }) => {
    const pair = parsePair(key);
    if (!pair || pair[1] === null || !value || until === null) return;
    limits.applyShared({ provider: pair[0], model: pair[1], maxTools: value.maxTools, expiresAt: until });
  });
}

/** This instance's learned tool limits, shared with its group. */
export function sharedToolLimits(shared: SharedState, clock: Clock): ToolLimits {
  const limits = new ToolLimits(clock);
  shareToolLimits(shared, limits, clock);
  return limits;
}

/** A quota reading is told again when a window came or went, moved by a point, or its end moved by this long. */
const QUOTA_UNTIL_STEP_MS = 5_000;

function quotaMoved(before: { value: HeldWindows }, next: { value: HeldWindows }): boolean {
  const names = Object.keys(next.value);
  if (names.length !== Object.keys(before.value).length) return true;
  return names.some((name) => {
    const a = before.value[name];
    const b = next.value[name];
    return !a || Math.abs(a.remainingPercent - b.remainingPercent) >= 1 || Math.abs(a.until - b.until) >= QUOTA_UNTIL_STEP_MS;
  });
}

/** R10.2 / R18.3 learned remaining quota per connection (lww, until = its last window's end). */
export function shareQuota(shared: SharedState, quota: RemainingQuota, keys: ConnectionKeys, clock: Clock): void {
  const reading = channel<HeldWindows>(shared, "quota", "lww", clock);
  const last = new LastShared<HeldWindows>(quotaMoved);
  quota.onLocalChange((connectionId, windows, now) => {
    const key = keys.keyOf(connectionId);
    if (!key) return;
    const until = Math.max(...Object.values(windows).map((w) => w.until));
    if (last.offer(key, windows, until, now)) reading.write(key, windows, until);
  });
  reading.listen((key, { value, until }) => {
    const connectionId = keys.idOf(key);
    if (!connectionId) return;
    last.heard(key, value, until);
    quota.applyShared(connectionId, value);
  });
}

/** The admission control's learned queue pauses as the group sees them (R9.4, R19). */
export interface SharedQueuePauses {
  onLocalPause(listener: (connectionId: string, model: string | null, until: number | null) => void): void;
  applySharedPause(connectionId: string, model: string | null, until: number | null): void;
}

/**
 * R9.4 learned queue pauses (rule until: the later end wins). A lift (the connection's cooldown was
 * cleared) is a reset, a force write: it wins over the pause however long it was.
 */
export function shareQueuePauses(shared: SharedState, control: SharedQueuePauses, keys: ConnectionKeys, clock: Clock): void {
  const pause = channel<true>(shared, "queuePause", "until", clock);
  control.onLocalPause((connectionId, model, until) => {
    const connection = keys.keyOf(connectionId);
    if (!connection) return;
    if (until === null) pause.write(pairKey(connection, model), null, null, true);
    else pause.write(pairKey(connection, model), true, until);
  });
  pause.listen((key, { value, until }) => {
    const pair = parsePair(key);
    const connectionId = pair ? keys.idOf(pair[0]) : null;
    if (pair && connectionId) control.applySharedPause(connectionId, pair[1], value === null ? null : until);
  });
}
