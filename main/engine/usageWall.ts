// Claude subscription usage wall (R12.6): the lower-priority lane (`lowPriorityMode`) and the
// session-limit reset (`autoLimitReset`), both opt-in per connection. Pure: it takes what the wall's
// answer says (WallAnswer, read by the Anthropic half: gateway/formats/anthropic/usageWall.ts) and
// keeps, per connection and in memory, until when the lane runs, the cool-off after a max-wait end
// and the memoised reset availability. Instants come from the caller's clock.

export const USAGE_WALL = {
  /** The lane outlives the announced reset by this grace. */
  resetGraceMs: 60_000,
  slowRetryDefaultMs: 20_000,
  slowRetryMinMs: 5_000,
  slowRetryMaxMs: 600_000,
  slowRetryJitter: 0.3,
  maxWaitDefaultMs: 20 * 60_000,
  maxWaitMinMs: 60_000,
  maxWaitMaxMs: 6 * 3_600_000,
  /** A wait never runs into the request's own timeout: it stops this much before it. */
  requestMarginMs: 5_000,
  /** A lane ended by its max wait is not re-entered for this long. */
  coolOffMs: 10 * 60_000,
  /** A failed reset probe or claim is not retried for this long. */
  resetBackoffMs: 15 * 60_000,
  /** `already_used` / `not_offered` without a date: the reset comes back in a week. */
  resetNextDefaultMs: 7 * 86_400_000,
  /** Without an announced reset the 5-hour window is the longest the wall can last. */
  windowMs: 5 * 3_600_000,
} as const;

export type WallAnswer =
  /** The 5-hour wall; `offer` says the account may take the slow lane. */
  | { kind: "wall"; offer: boolean; resetAt: number | null }
  /** The lane's slot is taken: wait and ask again. */
  | { kind: "slot_busy"; retryAfterMs: number; maxWaitMs: number }
  /** The lane is over (weekly limit, budget, off, ineligible, paid overage): normal handling. */
  | { kind: "lane_end"; reason: string }
  | { kind: "other" };

/** ±30 % around the server's wait; `random` in [0, 1). */
export function jitteredWaitMs(retryAfterMs: number, random: number): number {
  return Math.round(retryAfterMs * (1 - USAGE_WALL.slowRetryJitter + 2 * USAGE_WALL.slowRetryJitter * random));
}

/** How long the lane may still wait in total: its max wait, and the request's timeout minus a margin. */
export function waitBudgetMs(maxWaitMs: number, requestTimeoutMs: number, waitedMs: number): number {
  const requestCap = requestTimeoutMs > 0 ? requestTimeoutMs - USAGE_WALL.requestMarginMs : Number.POSITIVE_INFINITY;
  return Math.min(maxWaitMs, requestCap) - waitedMs;
}

export type ResetResult = "reset" | "not_limited" | "already_used" | "not_offered" | "failed";

interface WallState {
  laneUntil: number | null;
  coolOffUntil: number | null;
  resetNotBefore: number | null;
}

export interface SlowLaneRow {
  connectionId: string;
  laneUntil: number;
}

/** Per-connection usage-wall state, in memory (R12.6: a restart needs one more wall 429). */
export class UsageWallBook {
  private readonly states = new Map<string, WallState>();

  private state(connectionId: string): WallState {
    let s = this.states.get(connectionId);
    if (!s) {
      s = { laneUntil: null, coolOffUntil: null, resetNotBefore: null };
      this.states.set(connectionId, s);
    }
    return s;
  }

  /** Until when the connection's requests carry the slow header, or null. */
  laneUntil(connectionId: string, now: number): number | null {
    const until = this.states.get(connectionId)?.laneUntil ?? null;
    return until !== null && until > now ? until : null;
  }

  /** Takes the offer: the lane runs until the announced reset + 60 s. false while cooling off. */
  enterLane(connectionId: string, resetAt: number | null, now: number): boolean {
    const s = this.state(connectionId);
    if (s.coolOffUntil !== null && s.coolOffUntil > now) return false;
    s.laneUntil = Math.max(resetAt ?? now + USAGE_WALL.windowMs, now) + USAGE_WALL.resetGraceMs;
    return true;
  }

  /** Ends the lane; a max-wait end blocks re-entry for 10 minutes. */
  endLane(connectionId: string, reason: string, now: number): void {
    const s = this.state(connectionId);
    s.laneUntil = null;
    if (reason === "max_wait") s.coolOffUntil = now + USAGE_WALL.coolOffMs;
  }

  /** Whether a reset probe may be tried now (memoised availability, 15-minute back-off). */
  resetMayTry(connectionId: string, now: number): boolean {
    const notBefore = this.states.get(connectionId)?.resetNotBefore ?? null;
    return notBefore === null || notBefore <= now;
  }

  /** Remembers a reset attempt: `next_available_at` when the upstream named one. */
  noteReset(connectionId: string, result: ResetResult, nextAvailableAt: number | null, now: number): void {
    const s = this.state(connectionId);
    if (result === "failed") s.resetNotBefore = now + USAGE_WALL.resetBackoffMs;
    else if (result === "already_used" || result === "not_offered") s.resetNotBefore = nextAvailableAt ?? now + USAGE_WALL.resetNextDefaultMs;
    else {
      s.resetNotBefore = null;
      s.laneUntil = null;
    }
  }

  /** Connections in the lane now, for the Cooldown Manager. */
  lanes(now: number): SlowLaneRow[] {
    const rows: SlowLaneRow[] = [];
    for (const [connectionId, s] of this.states) if (s.laneUntil !== null && s.laneUntil > now) rows.push({ connectionId, laneUntil: s.laneUntil });
    return rows;
  }

  forget(connectionId: string): void {
    this.states.delete(connectionId);
  }
}
