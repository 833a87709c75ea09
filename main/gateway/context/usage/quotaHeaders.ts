// R18.3: what an upstream's rate-limit and subscription headers say about the account's windows,
// one reading per window. One parser per header family:
// - Anthropic unified (subscription): `anthropic-ratelimit-unified-<w>-{utilization,reset,status}`
//   (w = 5h, 7d, 7d_opus, 7d_sonnet, overage…; utilization a 0..1 fraction, reset epoch seconds)
//   and the overall `-unified-{status,reset,representative-claim}`, which belong to the claimed window;
// - Anthropic: `anthropic-ratelimit-<w>-{limit,remaining,reset}` (reset RFC 3339);
// - OpenAI: `x-ratelimit-{limit,remaining,reset}-<w>` (reset a duration: "6m0s", "1s", "20ms");
// - Codex: `x-codex-[<limit>-]{primary,secondary}-{used-percent,window-minutes,reset-at,reset-after-seconds}`,
//   its windows named by their minutes (300 → "5h", 10080 → "7d").
// Pure: headers and an instant in, readings out. learnedQuota (R11.1) reads its count window here too.
import type { UsageQuotaItem } from "../../../../shared/apiTypes.js";
import { headerValue, parseWindowReset, type Headers } from "../../../engine/retryHints.js";
import { parseResetAt } from "../../../engine/usageWall.js";
// The window names are the engine's, which reads the same families for its window verdicts (R21.4).
import { CLAIM_WINDOWS, windowNameOfMinutes } from "../../../engine/subscriptionWindows.js";

export type QuotaSource = "anthropic-unified" | "anthropic" | "openai" | "codex";

/** One window as a response stated it; what it did not say is null. */
export type QuotaReading = Omit<UsageQuotaItem, "connectionId" | "provider" | "seenAt" | "source" | "status"> & {
  source: QuotaSource;
  status: string | null;
};

/** Where the pipeline reports each attempt's response headers (successes and refusals alike). */
export interface QuotaObserver {
  /** `who`: the request's R7.1 session key and R20.3 traffic class, charged with the rise of each window (R21.6). */
  observe(connectionId: string, provider: string, headers: Headers, now: number, who?: { session: string | null; trafficClass: string }): void;
}

const UNIFIED = "anthropic-ratelimit-unified-";
const ANTHROPIC = "anthropic-ratelimit-";
const OPENAI = "x-ratelimit-";
const CODEX = "x-codex-";

const UNIFIED_FIELD = /^(.+)-(utilization|reset|status)$/;
const ANTHROPIC_FIELD = /^(.+)-(limit|remaining|reset)$/;
const OPENAI_FIELD = /^(limit|remaining|reset)-(.+)$/;
const CODEX_FIELD = /^(?:(.+)-)?(primary|secondary)-(used-percent|window-minutes|reset-at|reset-after-seconds)$/;
/** Unified names that match a window's shape but are not a window: the R12.6 slow lane's own. */
const NOT_UNIFIED_WINDOWS = new Set(["slow"]);

/** `name` starts with the lower-case `prefix` (letters and dashes), whatever its case; allocates nothing. */
function startsWithFolded(name: string, prefix: string): boolean {
  if (name.length <= prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if ((name.charCodeAt(i) | 0x20) !== prefix.charCodeAt(i)) return false;
  return true;
}

/**
 * Whether any header of a quota family is present: one pass over the names, comparing the first
 * letter before anything else, so an answer without such headers costs no allocation.
 */
export function hasQuotaHeaders(headers: Headers): boolean {
  for (const name in headers) {
    const first = name.charCodeAt(0) | 0x20;
    if (first === 0x61 && startsWithFolded(name, ANTHROPIC)) return true;
    if (first === 0x78 && (startsWithFolded(name, OPENAI) || startsWithFolded(name, CODEX))) return true;
  }
  return false;
}

/** The quota families' headers, by lower-case name, first non-blank value. */
function quotaHeaderValues(headers: Headers): Map<string, string> {
  const found = new Map<string, string>();
  for (const key in headers) {
    const name = key.toLowerCase();
    if (!name.startsWith(ANTHROPIC) && !name.startsWith(OPENAI) && !name.startsWith(CODEX)) continue;
    const raw = headers[key];
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    if (value && !found.has(name)) found.set(name, value);
  }
  return found;
}

const round4 = (n: number): number => Math.round(n * 10_000) / 10_000;

function nonNegative(text: string): number | null {
  if (text.trim() === "") return null;
  const n = Number(text);
  return Number.isFinite(n) && n >= 0 ? n : null;
}

/** A limit or remaining count; a negative one (Azure sends -1) says nothing. */
export function countValue(text: string | undefined): number | null {
  return text === undefined ? null : nonNegative(text);
}

/** What share of the limit is used, from limit and remaining when both are known. */
function usedShare(limit: number | null, remaining: number | null): number | null {
  if (limit === null || remaining === null || limit <= 0) return null;
  return round4(Math.min(100, Math.max(0, ((limit - remaining) / limit) * 100)));
}

function readingIn(windows: Map<string, QuotaReading>, window: string, source: QuotaSource): QuotaReading {
  let reading = windows.get(window);
  if (!reading) {
    reading = { window, usedPercent: null, remaining: null, limit: null, resetAt: null, source, status: null };
    windows.set(window, reading);
  }
  return reading;
}

function unifiedReadings(found: Map<string, string>): QuotaReading[] {
  const windows = new Map<string, QuotaReading>();
  let status: string | null = null;
  let resetAt: number | null = null;
  let claim: string | null = null;
  for (const [name, value] of found) {
    if (!name.startsWith(UNIFIED)) continue;
    const rest = name.slice(UNIFIED.length);
    if (rest === "status") status = value;
    else if (rest === "reset") resetAt = parseResetAt(value);
    else if (rest === "representative-claim") claim = value;
    else {
      const m = UNIFIED_FIELD.exec(rest);
      if (!m || NOT_UNIFIED_WINDOWS.has(m[1])) continue;
      const reading = readingIn(windows, m[1], "anthropic-unified");
      if (m[2] === "utilization") {
        const fraction = nonNegative(value);
        reading.usedPercent = fraction === null ? null : round4(fraction * 100);
      } else if (m[2] === "reset") reading.resetAt = parseResetAt(value);
      else reading.status = value;
    }
  }
  // The overall verdict is the claimed window's; without a claim and any window it stands alone.
  const claimed = claim !== null ? (CLAIM_WINDOWS[claim] ?? claim) : windows.size === 0 && (status !== null || resetAt !== null) ? "unified" : null;
  if (claimed !== null) {
    const reading = readingIn(windows, claimed, "anthropic-unified");
    reading.status ??= status;
    reading.resetAt ??= resetAt;
  }
  return [...windows.values()];
}

/** Anthropic's `<w>-{limit,remaining,reset}` and OpenAI's `{limit,remaining,reset}-<w>`: count windows. */
function countReadings(found: Map<string, string>, family: "anthropic" | "openai", now: number): QuotaReading[] {
  const windows = new Map<string, QuotaReading>();
  const prefix = family === "openai" ? OPENAI : ANTHROPIC;
  for (const [name, value] of found) {
    if (!name.startsWith(prefix) || name.startsWith(UNIFIED)) continue;
    const m = (family === "openai" ? OPENAI_FIELD : ANTHROPIC_FIELD).exec(name.slice(prefix.length));
    if (!m) continue;
    const [window, field] = family === "openai" ? [m[2], m[1]] : [m[1], m[2]];
    const reading = readingIn(windows, window, family);
    if (field === "reset") reading.resetAt = parseWindowReset(value, now);
    else if (field === "limit") reading.limit = countValue(value);
    else reading.remaining = countValue(value);
  }
  for (const reading of windows.values()) reading.usedPercent = usedShare(reading.limit, reading.remaining);
  return [...windows.values()];
}

export { windowNameOfMinutes };

interface CodexSlot {
  limit: string | undefined;
  slot: string;
  used: number | null;
  minutes: number | null;
  resetAt: number | null;
  resetAfterS: number | null;
}

function codexReadings(found: Map<string, string>, now: number): QuotaReading[] {
  const slots = new Map<string, CodexSlot>();
  for (const [name, value] of found) {
    if (!name.startsWith(CODEX)) continue;
    const m = CODEX_FIELD.exec(name.slice(CODEX.length));
    if (!m) continue;
    const key = `${m[1] ?? ""} ${m[2]}`;
    let s = slots.get(key);
    if (!s) slots.set(key, (s = { limit: m[1], slot: m[2], used: null, minutes: null, resetAt: null, resetAfterS: null }));
    if (m[3] === "used-percent") s.used = nonNegative(value);
    else if (m[3] === "window-minutes") s.minutes = nonNegative(value);
    else if (m[3] === "reset-at") s.resetAt = parseResetAt(value);
    else s.resetAfterS = nonNegative(value);
  }
  const readings: QuotaReading[] = [];
  for (const s of slots.values()) {
    // As Codex itself: a window is its used percent; without one the other fields say nothing.
    if (s.used === null) continue;
    const name = s.minutes !== null && s.minutes > 0 ? windowNameOfMinutes(s.minutes) : s.slot;
    readings.push({
      window: s.limit === undefined ? name : `${s.limit}-${name}`,
      usedPercent: round4(s.used),
      remaining: null,
      limit: null,
      resetAt: s.resetAt ?? (s.resetAfterS === null ? null : now + s.resetAfterS * 1_000),
      source: "codex",
      status: null,
    });
  }
  return readings;
}

/** Every quota window the headers state, in family order (unified, Anthropic, OpenAI, Codex); ask hasQuotaHeaders first on a hot path. */
export function readQuotaHeaders(headers: Headers, now: number): QuotaReading[] {
  const found = quotaHeaderValues(headers);
  return [...unifiedReadings(found), ...countReadings(found, "anthropic", now), ...countReadings(found, "openai", now), ...codexReadings(found, now)];
}

/** The three header names of one count window, built once by whoever reads it on every answer. */
export interface CountHeaderNames {
  limit: string;
  remaining: string;
  reset: string;
}

export function countHeaderNames(family: "anthropic" | "openai", window: string): CountHeaderNames {
  const name = (field: string) => (family === "openai" ? `${OPENAI}${field}-${window}` : `${ANTHROPIC}${window}-${field}`);
  return { limit: name("limit"), remaining: name("remaining"), reset: name("reset") };
}

/** One count window read by name, without a scan (learnedQuota reads the requests window per attempt). */
export function readCountWindow(headers: Headers, names: CountHeaderNames, now: number): { limit: number | null; remaining: number | null; resetAt: number | null } {
  return {
    limit: countValue(headerValue(headers, names.limit)),
    remaining: countValue(headerValue(headers, names.remaining)),
    resetAt: parseWindowReset(headerValue(headers, names.reset), now),
  };
}
