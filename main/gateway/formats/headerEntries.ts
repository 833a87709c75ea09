// Reading a vendor's header family: its headers by the rest of their lower-case name.
import type { Headers } from "../../engine/retryHints.js";

/** The headers whose names start with `prefix`, by the rest of their lower-case name, first non-blank value. */
export function lowerCaseEntries(headers: Headers, prefix: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const key in headers) {
    const name = key.toLowerCase();
    if (!name.startsWith(prefix)) continue;
    const raw = headers[key];
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    if (value) out.push([name.slice(prefix.length), value]);
  }
  return out;
}

export const finiteNumber = (text: string): number | null => {
  const n = Number(text);
  return text.trim() !== "" && Number.isFinite(n) ? n : null;
};
