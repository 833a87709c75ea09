// The Claude subscription usage wall, simulated per API key (R12.6), so the demo and the tests can
// show the slow lane: a key behind the wall answers 429 with the unified-limit headers; a request
// that carries `anthropic-usage-limit: slow` is served (after any programmed slot_busy/529 answers);
// the usage probe and the reset claim of `autoLimitReset` lift the wall when a reset is on offer.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";
import { InvalidFaultError } from "./faults.js";
import { isRecord } from "./records.js";

export interface UsageWallSpec {
  /** When the 5-hour window resets, epoch seconds (default: an hour from now). */
  resetAt?: number;
  /** Offer the slow lane (`anthropic-ratelimit-unified-slow-offer: treatment`); default true. */
  offer?: boolean;
  /** Slow requests answered "slot busy" before one is served. */
  slotBusy?: number;
  /** How a busy slot answers: 429 with slow-status slot_busy (default) or 529. */
  slotBusyStatus?: 429 | 529;
  /** Seconds, sent as `anthropic-ratelimit-unified-slow-retry-after`. */
  retryAfterSec?: number;
  /** Seconds, sent as `anthropic-ratelimit-unified-slow-max-wait`. */
  maxWaitSec?: number;
  /** A session-limit reset is on offer for this key (autoLimitReset). */
  resettable?: boolean;
}

export type WallDecision = { kind: "pass"; headers: OutgoingHttpHeaders } | { kind: "reject"; status: number; headers: OutgoingHttpHeaders; message: string };

const int = (v: unknown, name: string): number | undefined => {
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0) throw new InvalidFaultError(`usage wall ${name} must be a non-negative number`);
  return v;
};

/** Validates an untrusted wall spec from the control endpoint. */
export function parseUsageWall(value: unknown): UsageWallSpec {
  if (!isRecord(value)) throw new InvalidFaultError("usage wall must be a JSON object");
  const spec: UsageWallSpec = {
    resetAt: int(value.resetAt, "resetAt"),
    slotBusy: int(value.slotBusy, "slotBusy"),
    retryAfterSec: int(value.retryAfterSec, "retryAfterSec"),
    maxWaitSec: int(value.maxWaitSec, "maxWaitSec"),
  };
  if (value.offer !== undefined) spec.offer = value.offer === true;
  if (value.resettable !== undefined) spec.resettable = value.resettable === true;
  if (value.slotBusyStatus !== undefined) {
    if (value.slotBusyStatus !== 429 && value.slotBusyStatus !== 529) throw new InvalidFaultError("usage wall slotBusyStatus must be 429 or 529");
    spec.slotBusyStatus = value.slotBusyStatus;
  }
  return spec;
}

const WEEK_MS = 7 * 86_400_000;

export class UsageWalls {
  private readonly walls = new Map<string, UsageWallSpec>();
  private readonly resetUsed = new Map<string, number>();

  set(key: string, spec: UsageWallSpec): void {
    this.walls.set(key, { ...spec, resetAt: spec.resetAt ?? Math.floor(Date.now() / 1000) + 3_600 });
  }

  clear(key?: string): void {
    if (key === undefined) this.walls.clear();
    else this.walls.delete(key);
  }

  /** What a chat request with this key meets, or null when its key is not behind a wall. */
  check(key: string | null, headers: IncomingHttpHeaders): WallDecision | null {
    const wall = key === null ? undefined : this.walls.get(key);
    if (!wall) return null;
    const unified = { "anthropic-ratelimit-unified-reset": String(wall.resetAt) };
    if (headers["anthropic-usage-limit"] !== "slow") {
      const offer = wall.offer === false ? {} : { "anthropic-ratelimit-unified-slow-offer": "treatment" };
      return {
        kind: "reject",
        status: 429,
        headers: { ...unified, "anthropic-ratelimit-unified-status": "rejected", ...offer },
        message: "Usage limit reached for this 5-hour window (simulated wall)",
      };
    }
    if ((wall.slotBusy ?? 0) > 0) {
      wall.slotBusy = (wall.slotBusy ?? 0) - 1;
      const busy: OutgoingHttpHeaders = { ...unified, "anthropic-ratelimit-unified-slow-status": "slot_busy" };
      if (wall.retryAfterSec !== undefined) busy["anthropic-ratelimit-unified-slow-retry-after"] = String(wall.retryAfterSec);
      if (wall.maxWaitSec !== undefined) busy["anthropic-ratelimit-unified-slow-max-wait"] = String(wall.maxWaitSec);
      return { kind: "reject", status: wall.slotBusyStatus ?? 429, headers: busy, message: "The slow lane is busy (simulated)" };
    }
    return { kind: "pass", headers: { ...unified, "anthropic-ratelimit-unified-slow-status": "active" } };
  }

  /** GET /api/oauth/usage: is a session-limit reset on offer for this key? */
  usage(key: string | null): unknown {
    const wall = key === null ? undefined : this.walls.get(key);
    const used = key === null ? undefined : this.resetUsed.get(key);
    const available = wall?.resettable === true && used === undefined;
    return { juniper_tide: { arm: "reset", available, ...(used === undefined ? {} : { next_available_at: new Date(used + WEEK_MS).toISOString() }) } };
  }

  /** POST /api/organizations/:org/reset_rate_limits: lifts the wall once a week. */
  claim(key: string | null): unknown {
    if (key === null) return { result: "not_offered" };
    const used = this.resetUsed.get(key);
    if (used !== undefined) return { result: "already_used", next_available_at: new Date(used + WEEK_MS).toISOString() };
    const wall = this.walls.get(key);
    if (!wall) return { result: "not_limited" };
    if (!wall.resettable) return { result: "not_offered" };
    this.walls.delete(key);
    this.resetUsed.set(key, Date.now());
    return { result: "reset" };
  }
}
