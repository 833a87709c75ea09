// R21.6: how fast a subscription window burns. A window's length comes from its name ("5h", "7d",
// "7d_opus", Codex's by its minutes: "90m", "<limit>-5h"); its start is its reset minus that length;
// its pace is the straight line from the start through the last reading, carried on to the reset:
// - deficit: the line reaches 100 % before the reset (`runsOutAt` is where it does);
// - reserve: the line ends under PACE_RESERVE_BELOW_PERCENT at the reset (plenty left);
// - on_pace: anything between (it lasts, without much to spare).
// No pace before PACE_MIN_ELAPSED_SHARE of the window has passed (too little to project from), nor
// once the reset has passed (the reading describes a window that is gone). Pure: no DOM, no Node,
// so the server, the tray and the dashboard all say the same thing.

export type QuotaPaceState = "on_pace" | "deficit" | "reserve";

export interface QuotaPace {
  state: QuotaPaceState;
  /** Epoch ms at which the window runs out at this pace; only with `deficit`. */
  runsOutAt?: number;
}

/** Share of a window that must have passed before its pace is shown (R21.6: 3 %). */
export const PACE_MIN_ELAPSED_SHARE = 0.03;
/** A window projected to end under this share used at its reset is in reserve. */
export const PACE_RESERVE_BELOW_PERCENT = 80;

const UNIT_MS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000 };
/** "5h", "7d", "7d_opus", "90m", and Codex's per-limit "<limit>-5h": a count and a unit at the end. */
const WINDOW_LENGTH = /(?:^|-)(\d{1,5})([mhd])(?:_[a-z0-9_]+)?$/i;

/** The length of a window named by its duration, in ms; null for count windows ("requests", "tokens") and unnamed ones. */
export function windowLengthMs(window: string): number | null {
  const m = WINDOW_LENGTH.exec(window);
  if (!m) return null;
  const n = Number(m[1]);
  return n > 0 ? n * UNIT_MS[m[2].toLowerCase()] : null;
}

export interface PacedReading {
  usedPercent: number | null;
  resetAt: number | null;
  windowMs: number | null;
  /** When the reading was taken (epoch ms): the line runs from the window's start through it. */
  seenAt: number;
}

/** The share (percent) the window will have used at its reset at the reading's rate; null without a projection. */
export function projectedPercent(r: PacedReading): number | null {
  if (r.usedPercent === null || r.resetAt === null || r.windowMs === null || r.windowMs <= 0) return null;
  const elapsed = r.seenAt - (r.resetAt - r.windowMs);
  if (elapsed < r.windowMs * PACE_MIN_ELAPSED_SHARE || elapsed > r.windowMs) return null;
  return (r.usedPercent * r.windowMs) / elapsed;
}

/** The window's pace as of `now`; null before 3 % of it has passed, after its reset, or without the numbers. */
export function quotaPace(r: PacedReading, now: number): QuotaPace | null {
  if (r.resetAt !== null && now >= r.resetAt) return null;
  const projected = projectedPercent(r);
  if (projected === null) return null;
  if (projected > 100) {
    const start = r.resetAt! - r.windowMs!;
    // used / elapsed is the rate; 100 % is reached at start + elapsed * 100 / used.
    return { state: "deficit", runsOutAt: Math.round(start + ((r.seenAt - start) * 100) / r.usedPercent!) };
  }
  return { state: projected < PACE_RESERVE_BELOW_PERCENT ? "reserve" : "on_pace" };
}

/** "15:40" today, "Fri 09:05" another day (the local time zone of whoever shows it). */
export function formatClockTime(at: number, now: number): string {
  const d = new Date(at);
  const time = `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
  return d.toDateString() === new Date(now).toDateString() ? time : `${d.toLocaleDateString("en-US", { weekday: "short" })} ${time}`;
}

/** What the pace means, in words: "runs out at 15:40 at this pace" / "lasts until the reset"; null without a pace. */
export function paceText(pace: QuotaPace | null | undefined, now: number, usedPercent: number | null = null): string | null {
  if (!pace) return null;
  if (pace.state === "deficit") {
    if ((usedPercent !== null && usedPercent >= 100) || pace.runsOutAt === undefined || pace.runsOutAt <= now) return "used up until the reset";
    return `runs out at ${formatClockTime(pace.runsOutAt, now)} at this pace`;
  }
  return pace.state === "reserve" ? "lasts until the reset, with room to spare" : "lasts until the reset";
}

/** A bar of `cells` characters for a text-only place (the tray menu): "██████░░░░" at 60 %. */
export function textBar(percent: number, cells = 10): string {
  const full = Math.max(0, Math.min(cells, Math.round((percent / 100) * cells)));
  return "█".repeat(full) + "░".repeat(cells - full);
}
