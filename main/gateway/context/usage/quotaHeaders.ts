// R18.3: what an upstream's rate-limit and subscription headers say about the account's windows,
// one reading per window. Each header family (Anthropic's unified and count windows, OpenAI's
// counts, Codex's windows…) is its vendor's upstream half's (formats/*/quota.ts); every answer is
// read with all of them, whichever provider sent it. Pure: headers and an instant in, readings out.
import type { Headers } from "../../../engine/retryHints.js";
import { quotaHeaderFamilies } from "../../formats/index.js";
import type { QuotaReading } from "../../formats/quota.js";

export type { QuotaReading } from "../../formats/quota.js";
export { windowNameOfMinutes } from "../../../engine/subscriptionWindows.js";

/** Where the pipeline reports each attempt's response headers (successes and refusals alike). */
export interface QuotaObserver {
  /** `who`: the request's R7.1 session key and R20.3 traffic class, charged with the rise of each window (R21.6). */
  observe(connectionId: string, provider: string, headers: Headers, now: number, who?: { session: string | null; trafficClass: string }): void;
}

const FAMILIES = quotaHeaderFamilies();
const PREFIXES = FAMILIES.map((family) => family.prefix);
/** The first letters of the prefixes, lower-case char codes: a name starting otherwise is no family's. */
const FIRST_LETTERS = new Set(PREFIXES.map((prefix) => prefix.charCodeAt(0)));

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
    if (!FIRST_LETTERS.has(name.charCodeAt(0) | 0x20)) continue;
    for (const prefix of PREFIXES) if (startsWithFolded(name, prefix)) return true;
  }
  return false;
}

/** The quota families' headers, by lower-case name, first non-blank value. */
function quotaHeaderValues(headers: Headers): Map<string, string> {
  const found = new Map<string, string>();
  for (const key in headers) {
    const name = key.toLowerCase();
    if (!PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    const raw = headers[key];
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    if (value && !found.has(name)) found.set(name, value);
  }
  return found;
}

/** Every quota window the headers state, family by family in the registry's order; ask hasQuotaHeaders first on a hot path. */
export function readQuotaHeaders(headers: Headers, now: number): QuotaReading[] {
  const found = quotaHeaderValues(headers);
  return FAMILIES.flatMap((family) => family.read(found, now));
}
