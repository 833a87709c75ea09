// Upstream retry hints (R4.3, D4): how long the upstream asks us to wait, from headers or body text.
// Every parsed reset is capped at 30 days; a hint in the past or unparseable is no hint.
import { PARSED_RESET_CAP_MS } from "../../shared/resilienceSettings.js";
import type { WindowSignals } from "./subscriptionWindows.js";

export type Headers = Record<string, string | string[] | undefined>;

/** HTTP's own hints, the body's words, or the name a format half gives its vendor's hint (AnswerReader). */
export type RetryHintSource = "retry-after-ms" | "retry-after" | "body_text" | (string & {});

export interface RetryHint {
  ms: number;
  source: RetryHintSource;
  /** The vendor says the wait is this model's own quota (Gemini's RetryInfo, R9.4). */
  perModel?: boolean;
}

const UNIT = "milliseconds?|msecs?|ms|minutes?|mins?|m|seconds?|secs?|s|hours?|hrs?|h|days?|d";
// One "<number><unit>" part, optionally preceded by a separator; a unit-less number counts as
// seconds only when no word follows it ("30" yes, "30 requests" no).
const PART = new RegExp(`\\s*(?:,|and)?\\s*(\\d+(?:\\.\\d+)?)\\s*(?:(${UNIT})(?![a-z])|(?!\\s*[a-z]))`, "iy");

const cap = (ms: number): number => Math.min(Math.round(ms), PARSED_RESET_CAP_MS);

function unitMs(unit: string | undefined): number {
  const u = (unit ?? "s").toLowerCase();
  if (u === "ms" || u.startsWith("msec") || u.startsWith("milli")) return 1;
  // UNIT lets only s…, m…, h… and d… through here.
  switch (u[0]) {
    case "m":
      return 60_000;
    case "h":
      return 3_600_000;
    case "d":
      return 86_400_000;
    default:
      return 1_000;
  }
}

/** Sums consecutive duration parts from the start of `text`; `end` is where parsing stopped. */
function scanDuration(text: string): { ms: number; end: number } | null {
  PART.lastIndex = 0;
  let total = 0;
  let end = 0;
  let parts = 0;
  for (let m = PART.exec(text); m !== null && m[0] !== ""; m = PART.exec(text)) {
    total += Number(m[1]) * unitMs(m[2]);
    end = PART.lastIndex;
    parts++;
  }
  return parts > 0 ? { ms: total, end } : null;
}

/** "2h30m14s", "45m", "13 days", "26.66s", "1 hour and 5 minutes"; a bare number is seconds. */
export function parseDurationText(text: string): number | null {
  const scanned = scanDuration(text.trim());
  return scanned && scanned.end === text.trim().length ? scanned.ms : null;
}

/** A rate-limit window's reset: a duration ("1s", "6m0s", "20ms", OpenAI) or an RFC 3339 instant (Anthropic), as epoch ms. */
export function parseWindowReset(text: string | undefined, now: number): number | null {
  if (!text) return null;
  const trimmed = text.trim();
  if (/^\d{4}-\d{2}-\d{2}T/.test(trimmed)) {
    const at = Date.parse(trimmed);
    return Number.isFinite(at) ? at : null;
  }
  const ms = parseDurationText(trimmed);
  return ms === null ? null : now + ms;
}

/**
 * Marks a header object known to have only lower-case names (node and undici hand them over that
 * way): set by whoever builds one (the upstream client), or after the first scan of another.
 */
const LOWER_CASE_NAMES = Symbol("lower-case header names");

/**
 * Marks `headers` as having only lower-case names: a header a success asks for and does not find
 * then costs one read, with no scan per answer (issue 12).
 */
export function markLowerCaseNames<T extends object>(headers: T): T {
  (headers as { [LOWER_CASE_NAMES]?: true })[LOWER_CASE_NAMES] = true;
  return headers;
}

function hasOnlyLowerCaseNames(headers: Headers): boolean {
  if ((headers as { [LOWER_CASE_NAMES]?: true })[LOWER_CASE_NAMES] === true) return true;
  for (const key in headers) if (key !== key.toLowerCase()) return false;
  // Not enumerable on an object someone else made, so it never shows in their comparisons or
  // copies; a frozen object cannot carry the mark and is scanned again next time.
  if (Object.isExtensible(headers)) Object.defineProperty(headers, LOWER_CASE_NAMES, { value: true });
  return true;
}

function firstNonBlank(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  if (first === undefined) return undefined;
  const trimmed = first.trim();
  return trimmed === "" ? undefined : trimmed;
}

/** The first non-blank value of a header, whatever the case of its name. */
export function headerValue(headers: Headers, name: string): string | undefined {
  // Node hands headers over with lower-case names: the direct read is the usual answer, and a
  // miss needs no scan of every name (a success asks for several headers that are not there).
  const direct = headers[name];
  if (direct !== undefined) return firstNonBlank(direct);
  if (hasOnlyLowerCaseNames(headers)) return undefined;
  for (const key in headers) {
    if (key.toLowerCase() !== name) continue;
    const found = firstNonBlank(headers[key]);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A reset given as an instant: epoch ms (> 1e10), epoch seconds (> 1e9), else relative seconds. */
function numericReset(value: number, now: number): number | null {
  if (!Number.isFinite(value) || value < 0) return null;
  if (value > 1e10) return value - now;
  if (value > 1e9) return value * 1_000 - now;
  return value * 1_000;
}

export function positive(ms: number | null): number | null {
  return ms !== null && Number.isFinite(ms) && ms > 0 ? cap(ms) : null;
}

/** Epoch seconds (ms when > 1e10) or an HTTP/ISO date, as epoch ms; null when absent or unreadable. */
export function parseResetAt(value: string | null): number | null {
  if (value === null || value === "") return null;
  const n = Number(value);
  if (Number.isFinite(n) && n > 0) return n > 1e10 ? n : n * 1_000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? date : null;
}

/** Retry-After: delta seconds or an HTTP-date. */
export function parseRetryAfter(value: string, now: number): number | null {
  if (/^\d+(\.\d+)?$/.test(value)) return positive(Number(value) * 1_000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : positive(at - now);
}

function parseResetValue(value: string, now: number): number | null {
  if (/^\d+(\.\d+)?$/.test(value)) return positive(numericReset(Number(value), now));
  const duration = parseDurationText(value);
  if (duration !== null) return positive(duration);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : positive(at - now);
}

/** The longest of several reset headers: the request is blocked until every exhausted window resets. */
export function longestReset(headers: Headers, matches: (name: string) => boolean, now: number): number | null {
  let best: number | null = null;
  for (const [key, raw] of Object.entries(headers)) {
    if (!matches(key.toLowerCase())) continue;
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (value === undefined) continue;
    const ms = parseResetValue(value.trim(), now);
    if (ms !== null && (best === null || ms > best)) best = ms;
  }
  return best;
}

const BODY_PHRASE = /(?:resets?\s+(?:after|in)|retry\s+(?:after|in)|try\s+again\s+in|available\s+again\s+in)\s*:?\s*(?=\d)/gi;

/** "will reset after 2h30m14s", "Resets in 13 days", "Please retry in 26.66s", "try again in 20s". */
export function parseBodyResetText(body: string): number | null {
  for (const m of body.matchAll(BODY_PHRASE)) {
    const scanned = scanDuration(body.slice(m.index + m[0].length));
    const ms = scanned ? positive(scanned.ms) : null;
    if (ms !== null) return ms;
  }
  return null;
}

/**
 * What an upstream's answer says in its vendor's own headers and body, read by the format halves
 * (gateway/formats/answerReader.ts): the engine names no vendor's header.
 */
export interface AnswerReader {
  /** R21.4: the subscription windows the answer shows, and whether it shows any. */
  windows(headers: Headers, bodyText: string, now: number): WindowSignals;
  /** R4.3: the wait a vendor states in its own words (after Retry-After, before the body's text). */
  vendorRetryHint(headers: Headers, bodyText: string, now: number): RetryHint | null;
}

/** An answer read with HTTP's own headers only. */
export const HTTP_ONLY: AnswerReader = {
  windows: () => ({ windowHeaders: false, exhausted: [] }),
  vendorRetryHint: () => null,
};

/** R4.3: the first hint found, most specific source first. */
export function parseRetryHint(headers: Headers, body: string, now: number, reader: AnswerReader = HTTP_ONLY): RetryHint | null {
  const retryAfterMs = headerValue(headers, "retry-after-ms");
  if (retryAfterMs !== undefined && /^\d+(\.\d+)?$/.test(retryAfterMs)) {
    const ms = positive(Number(retryAfterMs));
    if (ms !== null) return { ms, source: "retry-after-ms" };
  }
  const retryAfter = headerValue(headers, "retry-after");
  if (retryAfter !== undefined) {
    const ms = parseRetryAfter(retryAfter, now);
    if (ms !== null) return { ms, source: "retry-after" };
  }
  const vendor = reader.vendorRetryHint(headers, body, now);
  if (vendor !== null) return vendor;
  const text = parseBodyResetText(body);
  return text !== null ? { ms: text, source: "body_text" } : null;
}
