// quotaPreflightCutoff (R10.2; issue 26 item 7): before dispatch, a connection whose learned
// remaining quota is at or below `cutoffPercent` of its limit is passed over while a sibling
// connection of the same provider has more, so an account is not spent to its last requests while
// another could serve. What is learned is every quota window a response's headers stated (R18.3:
// requests and tokens counts, Anthropic's unified utilization and status, Codex's used percent —
// R21.4(d): subscription windows too, so an account whose window is at or above (100 − cutoff) %
// used is passed over while a sibling has more); a connection's share is its lowest window still in force. Pure bookkeeping on instants the caller
// passes: no timers, no clock reads.

/** One window as a response's headers stated it (the gateway's quota readings have this shape). */
export interface QuotaWindowFacts {
  window: string;
  usedPercent: number | null;
  remaining: number | null;
  limit: number | null;
  /** Epoch ms at which the window starts over; null when the headers did not say. */
  resetAt: number | null;
  /** Anthropic's unified status for the window ("rejected" = used up, whatever its utilisation says). */
  status?: string | null;
}

/** What is left of a connection's tightest window, and when that window starts over. */
export interface QuotaShare {
  remainingPercent: number;
  /** Epoch ms; null when the window did not say (it is then trusted only for UNDATED_WINDOW_TRUST_MS). */
  resetAt: number | null;
}

/** A window whose reset was not stated says nothing after this long: its period is unknown. */
export const UNDATED_WINDOW_TRUST_MS = 60_000;

/** The share of the limit a window has left, 0–100, or null when it states neither a share nor a count and a limit. */
export function remainingPercentOf(window: QuotaWindowFacts): number | null {
  if (window.status === "rejected") return 0; // R21.4(d)
  if (window.usedPercent !== null) return Math.min(100, Math.max(0, 100 - window.usedPercent));
  if (window.remaining === null || window.limit === null || window.limit <= 0) return null;
  return Math.min(100, Math.max(0, (window.remaining / window.limit) * 100));
}

/** `own` is at or below the cutoff and a sibling has more; a sibling with nothing learned is not known to be low, so it has more. */
export function passedOverForQuota(own: QuotaShare | null, cutoffPercent: number, siblings: Iterable<QuotaShare | null>): boolean {
  if (own === null || own.remainingPercent > cutoffPercent) return false;
  for (const sibling of siblings) if (sibling === null || sibling.remainingPercent > own.remainingPercent) return true;
  return false;
}

export interface HeldWindow {
  remainingPercent: number;
  resetAt: number | null;
  /** Past this instant the window says nothing (its reset, or the undated trust). */
  until: number;
}

/** A connection's windows by name, as one instance holds them (R19.1: the group shares them). */
export type HeldWindows = Record<string, HeldWindow>;

/** Hears the windows of a connection after this instance learned something of them. */
export type QuotaListener = (connectionId: string, windows: HeldWindows, now: number) => void;

/** The latest reading of each window of each connection, in memory (a restart learns them again). */
export class RemainingQuota {
  private readonly byConnection = new Map<string, Map<string, HeldWindow>>();
  private listener: QuotaListener | null = null;

  /** After a response: what its headers said about the connection's windows. */
  learn(connectionId: string, windows: readonly QuotaWindowFacts[], now: number): void {
    let held = this.byConnection.get(connectionId);
    for (const window of windows) {
      const remainingPercent = remainingPercentOf(window);
      if (remainingPercent === null) continue;
      if (!held) this.byConnection.set(connectionId, (held = new Map()));
      held.set(window.window, { remainingPercent, resetAt: window.resetAt, until: window.resetAt ?? now + UNDATED_WINDOW_TRUST_MS });
    }
    if (held && this.listener) this.listener(connectionId, Object.fromEntries(held), now);
  }

  /** R19.1: one listener of local learning. */
  onLocalChange(listener: QuotaListener): void {
    this.listener = listener;
  }

  /** The windows another instance read last (lww): they replace what is held here; not told to the listener. */
  applyShared(connectionId: string, windows: HeldWindows | null): void {
    if (windows) this.byConnection.set(connectionId, new Map(Object.entries(windows)));
    else this.byConnection.delete(connectionId);
  }

  /** The tightest window still in force at `now`, or null when nothing is known of the connection. */
  shareOf(connectionId: string, now: number): QuotaShare | null {
    const held = this.byConnection.get(connectionId);
    if (!held) return null;
    let lowest: HeldWindow | null = null;
    for (const [name, window] of held) {
      if (window.until <= now) held.delete(name);
      else if (!lowest || window.remainingPercent < lowest.remainingPercent) lowest = window;
    }
    return lowest && { remainingPercent: lowest.remainingPercent, resetAt: lowest.resetAt };
  }

  /** A deleted connection's windows go with it. */
  forget(connectionId: string): void {
    this.byConnection.delete(connectionId);
  }
}
