// Subscription windows that route (R21.4): which of an account's usage windows is used up, and until
// when the account must rest. The vendors' window families (Anthropic's unified headers, Codex's
// `x-codex-*` and `usage_limit_reached`) are read by the format halves (gateway/formats/answerReader.ts)
// into WindowSignals; this is what follows from them, the same for every vendor.
// Pure: readings, headers and an instant in, facts out.
import { PARSED_RESET_CAP_MS, USAGE_LIMIT_COOLDOWN_MS } from "../../shared/resilienceSettings.js";
import { headerValue, parseRetryAfter, type Headers } from "./retryHints.js";

/** One used-up window: its name, when it starts over (epoch ms, null when unstated) and its length (ms). */
export interface ExhaustedWindow {
  name: string;
  resetAt: number | null;
  windowMs: number | null;
  /** A model family's own window (`7d_opus`): only that family rests, not the account. */
  modelScoped: boolean;
}

export interface WindowSignals {
  /** The answer carries subscription window headers at all (R21.4(c): then no window used up = a burst limit). */
  windowHeaders: boolean;
  exhausted: ExhaustedWindow[];
}

/** A window's name: a length, optionally a model family (`7d_opus`, the family's own window). */
export const WINDOW_NAME = /^(\d+)([mhd])(?:_([a-z0-9]+))?$/;
/** The length part of a window's name, also after a Codex limit's prefix (`gpt-5-codex-5h`). */
const WINDOW_LENGTH = /(?:^|-)(\d+)([mhd])(?:_[a-z0-9]+)?$/;
const UNIT_MS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** 300 → "5h", 10080 → "7d", 90 → "90m". */
export function windowNameOfMinutes(minutes: number): string {
  if (minutes % 1_440 === 0) return `${minutes / 1_440}d`;
  if (minutes % 60 === 0) return `${minutes / 60}h`;
  return `${minutes}m`;
}

/** "5h" → 5 h, "7d_opus" → 7 d; null for a name that states no length. */
export function windowLengthMs(name: string): number | null {
  const m = WINDOW_LENGTH.exec(name);
  return m ? Number(m[1]) * UNIT_MS[m[2]] : null;
}

/**
 * R21.4: the model family a per-model window names (`7d_opus` → opus), as a lock's model prefix:
 * the model's name up to the family word ("claude-opus-4-5" → "claude-opus"); null when the window
 * is the account's or the model does not name the family.
 */
export function windowFamilyOf(windowName: string, model: string): { name: string; prefixes: string[] } | null {
  const family = WINDOW_NAME.exec(windowName)?.[3];
  if (family === undefined) return null;
  const at = model.toLowerCase().indexOf(family);
  return at < 0 ? null : { name: family, prefixes: [model.slice(0, at + family.length)] };
}

export interface WindowRest {
  window: ExhaustedWindow;
  scope: "connection" | "model";
  /** How long the account (or the model family) rests from `now`. */
  cooldownMs: number;
}

const latestFirst = (a: ExhaustedWindow, b: ExhaustedWindow): number => (b.resetAt ?? -1) - (a.resetAt ?? -1);

/** The Retry-After (or retry-after-ms) the answer carried: a floor of the window's rest (R21.4(b)). */
export function retryAfterFloorMs(headers: Headers, now: number): number | null {
  const ms = headerValue(headers, "retry-after-ms");
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms)) return Number(ms);
  const seconds = headerValue(headers, "retry-after");
  return seconds === undefined ? null : parseRetryAfter(seconds, now);
}

/**
 * R21.4(b): the rest until the exhausted window's stated reset — the latest when several are used
 * up, a Retry-After its floor — capped only by the window's own length (30 days when unknown).
 * An account-wide window decides over a model family's own; without any stated reset the account
 * rests `fallbackMs` (the D4 text class or an hour). Null when no window is used up.
 */
export function windowRest(signals: WindowSignals, headers: Headers, now: number, fallbackMs: number | null): WindowRest | null {
  const account = signals.exhausted.filter((w) => !w.modelScoped).sort(latestFirst);
  const models = signals.exhausted.filter((w) => w.modelScoped).sort(latestFirst);
  const window = account[0] ?? models[0];
  if (!window) return null;
  const floor = retryAfterFloorMs(headers, now);
  const stated = window.resetAt !== null && window.resetAt > now ? window.resetAt - now : null;
  const wanted = Math.max(stated ?? floor ?? fallbackMs ?? USAGE_LIMIT_COOLDOWN_MS, floor ?? 0);
  const cap = window.windowMs ?? PARSED_RESET_CAP_MS;
  return { window, scope: account[0] ? "connection" : "model", cooldownMs: Math.max(1, Math.min(Math.round(wanted), cap)) };
}
