// R18.3: what an upstream's rate-limit and subscription headers say about the account's windows,
// one reading per window. Each vendor's header families belong to its upstream half (quotaHeaders);
// this is what they share: the reading, the family, and the arithmetic of count windows.
// Pure: headers and an instant in, readings out.
import type { UsageQuotaItem } from "../../../shared/apiTypes.js";
import { headerValue, parseWindowReset, type Headers } from "../../engine/retryHints.js";

/** One window as a response stated it; what it did not say is null. `source` names the header family. */
export type QuotaReading = Omit<UsageQuotaItem, "connectionId" | "provider" | "seenAt" | "status"> & { status: string | null };

/** One family of quota headers: the prefix all its names share, and what they say. */
export interface QuotaHeaderFamily {
  /** Lower-case letters and dashes: every header of the family starts with it. */
  readonly prefix: string;
  /** Every window the family's headers state; `found` holds the quota headers by lower-case name, first non-blank value. */
  read(found: ReadonlyMap<string, string>, now: number): QuotaReading[];
  /** R11.1: the family's request-count window, which learned quotas read by name on every answer. */
  readonly requests?: CountHeaderNames;
}

export const round4 = (n: number): number => Math.round(n * 10_000) / 10_000;

export function nonNegative(text: string): number | null {
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

export function readingIn(windows: Map<string, QuotaReading>, window: string, source: string): QuotaReading {
  let reading = windows.get(window);
  if (!reading) {
    reading = { window, usedPercent: null, remaining: null, limit: null, resetAt: null, source, status: null };
    windows.set(window, reading);
  }
  return reading;
}

/** The three header names of one count window, built once by whoever reads it on every answer. */
export interface CountHeaderNames {
  limit: string;
  remaining: string;
  reset: string;
}

/** How a count family spells its names: the window's name and a field's (limit, remaining, reset) in their places. */
export interface CountSpelling {
  source: string;
  prefix: string;
  /** The rest of a name after the prefix as [window, field], or null when it is none of the family's. */
  parse(rest: string): [window: string, field: string] | null;
  name(window: string, field: string): string;
}

/** A family of `{limit, remaining, reset}` count windows (Anthropic's and OpenAI's): resets as instants or durations. */
export function countFamily(spelling: CountSpelling, skip?: (name: string) => boolean): QuotaHeaderFamily {
  const names = (window: string): CountHeaderNames => ({
    limit: spelling.name(window, "limit"),
    remaining: spelling.name(window, "remaining"),
    reset: spelling.name(window, "reset"),
  });
  return {
    prefix: spelling.prefix,
    requests: names("requests"),
    read(found, now) {
      const windows = new Map<string, QuotaReading>();
      for (const [name, value] of found) {
        if (!name.startsWith(spelling.prefix) || skip?.(name)) continue;
        const parsed = spelling.parse(name.slice(spelling.prefix.length));
        if (!parsed) continue;
        const [window, field] = parsed;
        const reading = readingIn(windows, window, spelling.source);
        if (field === "reset") reading.resetAt = parseWindowReset(value, now);
        else if (field === "limit") reading.limit = countValue(value);
        else reading.remaining = countValue(value);
      }
      for (const reading of windows.values()) reading.usedPercent = usedShare(reading.limit, reading.remaining);
      return [...windows.values()];
    },
  };
}

/** One count window read by name, without a scan (learnedQuota reads the requests window per attempt). */
export function readCountWindow(headers: Headers, names: CountHeaderNames, now: number): { limit: number | null; remaining: number | null; resetAt: number | null } {
  return {
    limit: countValue(headerValue(headers, names.limit)),
    remaining: countValue(headerValue(headers, names.remaining)),
    resetAt: parseWindowReset(headerValue(headers, names.reset), now),
  };
}
