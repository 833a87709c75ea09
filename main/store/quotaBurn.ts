// R21.6 burn and R21.7 thresholds of one subscription window, as pure state the quota repo keeps
// beside each window's last reading:
// - a window period is named by its reset; a reading whose reset moved by more than
//   PERIOD_RESET_TOLERANCE_MS starts a new period (Codex's `reset-after-seconds` jitters by a second
//   or so from one answer to the next, a real reset moves by hours);
// - the first reading of a period is its baseline and is charged to nobody;
// - every later response is charged its rise over the period's high-water mark (not over the
//   previous reading: answers that overtake each other must not count the same rise twice, and a
//   reading that went down charges nothing), to its session (R7.1 key) and traffic class;
// - a period notifies once per threshold it reaches (80, 95, 100 %), only the highest one when a
//   single reading jumps over several; a restart resumes from the stored reading, so a threshold
//   already passed in this period is not announced again.
import type { QuotaSessionShare } from "../../shared/apiTypes.js";

export const QUOTA_THRESHOLDS = [80, 95, 100] as const;
export type QuotaThreshold = (typeof QUOTA_THRESHOLDS)[number];
/** Two readings whose resets differ by at most this belong to the same window period. */
export const PERIOD_RESET_TOLERANCE_MS = 60_000;
/** GET /api/usage/quotas lists this many sessions per window (R21.6). */
export const TOP_SESSIONS = 10;

/** Who a response's rise is charged to. */
export interface Burner {
  /** The R7.1 session key; null when the request named none. */
  session: string | null;
  /** R20.3: main, subagent, background, compaction, count. */
  trafficClass: string;
}

export interface BurnCharge extends Burner {
  /** Percentage points of the window this burner's responses raised it by in this period. */
  usedPercent: number;
  requests: number;
}

export interface WindowBurn {
  /** The reset that names the period (epoch ms); null when the upstream stated none. */
  periodResetAt: number | null;
  /** The highest share seen in this period; null until a reading stated one. */
  highWater: number | null;
  /** The highest threshold announced in this period (0: none). */
  notified: 0 | QuotaThreshold;
  /** By chargeKey(session, trafficClass). */
  charges: Map<string, BurnCharge>;
}

export const chargeKey = (b: Burner): string => JSON.stringify([b.session, b.trafficClass]);

/** The highest threshold a share has reached (0: under 80 %). */
export function thresholdOf(percent: number | null): 0 | QuotaThreshold {
  let level: 0 | QuotaThreshold = 0;
  if (percent === null) return level;
  for (const t of QUOTA_THRESHOLDS) if (percent >= t - 1e-9) level = t;
  return level;
}

export function isNewPeriod(periodResetAt: number | null, resetAt: number | null): boolean {
  if (periodResetAt === null || resetAt === null) return periodResetAt !== resetAt;
  return Math.abs(resetAt - periodResetAt) > PERIOD_RESET_TOLERANCE_MS;
}

/** A period whose baseline is `usedPercent`; `notified` as for a restart (thresholds the baseline already passed are taken as told). */
export function newBurn(resetAt: number | null, usedPercent: number | null, notified: 0 | QuotaThreshold = 0): WindowBurn {
  return { periodResetAt: resetAt, highWater: usedPercent, notified, charges: new Map() };
}

export interface BurnStep {
  burn: WindowBurn;
  /** The period began with this reading (its baseline); the previous period's charges are gone. */
  newPeriod: boolean;
  /** The charge this reading changed, or null (a baseline, or a reading without a share). */
  charged: BurnCharge | null;
  /** A threshold this reading reached first in its period, to announce. */
  threshold: QuotaThreshold | null;
}

/**
 * One reading of a window: a new period's baseline, or a rise charged to `who`. Mutates and returns
 * `burn` (a fresh one for a new period or a first reading).
 */
export function burnReading(burn: WindowBurn | null, reading: { usedPercent: number | null; resetAt: number | null }, who: Burner): BurnStep {
  const newPeriod = burn === null || isNewPeriod(burn.periodResetAt, reading.resetAt);
  let charged: BurnCharge | null = null;
  if (newPeriod) burn = newBurn(reading.resetAt, reading.usedPercent);
  else if (reading.usedPercent !== null) {
    if (burn!.highWater === null) burn!.highWater = reading.usedPercent;
    else {
      const rise = Math.max(0, reading.usedPercent - burn!.highWater);
      burn!.highWater = Math.max(burn!.highWater, reading.usedPercent);
      const key = chargeKey(who);
      charged = burn!.charges.get(key) ?? { session: who.session, trafficClass: who.trafficClass, usedPercent: 0, requests: 0 };
      charged.usedPercent = round6(charged.usedPercent + rise);
      charged.requests += 1;
      burn!.charges.set(key, charged);
    }
  }
  const b = burn!;
  const level = thresholdOf(b.highWater);
  const threshold = level !== 0 && level > b.notified ? level : null;
  if (threshold !== null) b.notified = threshold;
  return { burn: b, newPeriod, charged, threshold };
}

const round6 = (n: number): number => Math.round(n * 1e6) / 1e6;
const round4 = (n: number): number => Math.round(n * 1e4) / 1e4;

/** The period's sessions, each with its share summed over its traffic classes: the top `limit` by share, then by requests. */
export function topSessions(burn: WindowBurn | null | undefined, limit = TOP_SESSIONS): QuotaSessionShare[] {
  if (!burn) return [];
  const bySession = new Map<string | null, QuotaSessionShare>();
  for (const c of burn.charges.values()) {
    let s = bySession.get(c.session);
    if (!s) bySession.set(c.session, (s = { session: c.session, usedPercent: 0, requests: 0, byClass: {} }));
    s.usedPercent += c.usedPercent;
    s.requests += c.requests;
    s.byClass[c.trafficClass] = round4((s.byClass[c.trafficClass] ?? 0) + c.usedPercent);
  }
  const list = [...bySession.values()].map((s) => ({ ...s, usedPercent: round4(s.usedPercent) }));
  list.sort((a, b) => b.usedPercent - a.usedPercent || b.requests - a.requests || String(a.session ?? "").localeCompare(String(b.session ?? "")));
  return list.slice(0, limit);
}
