// R20.1, R22.5: what each format's halves share about account-bound reasoning artifacts — the
// shape of a request with foreign ones taken out, and the JSON string scan the taps use. Which
// artifacts a format carries, and where, is each format's own (its reasoning-artifacts.ts).

/** Whether the account a request goes to issued an artifact: its opaque blob, or an item id. */
export type IssuedHere = (value: string, kind: "blob" | "id") => boolean;

export interface Stripped {
  body: Record<string, unknown>;
  /** Artifacts taken out with what carried them. */
  removed: number;
  /** Artifacts whose content went on without them (as text, or a part without its signature). */
  plain: number;
}

/** Signatures Switchyard writes itself (reasoning.ts markers) are no account's. */
export const isSwitchyardMarker = (value: string): boolean => value.startsWith("switchyard.reasoning.");

/** A JSON string value; a backslash inside it means the text must be unescaped. */
export const JSON_STRING = String.raw`"((?:[^"\\]|\\.)*)"`;

function unescaped(raw: string): string {
  if (!raw.includes("\\")) return raw;
  try {
    const value: unknown = JSON.parse(`"${raw}"`);
    return typeof value === "string" ? value : raw;
  } catch {
    return raw;
  }
}

/** Every string value `pattern` (with one capture of JSON_STRING) finds in `text`, unescaped and kept when `keep` says so. */
export function stringValues(text: string, pattern: RegExp, keep: (value: string) => boolean, into: string[]): void {
  for (const match of text.matchAll(pattern)) {
    const value = unescaped(match[1] ?? "");
    if (keep(value)) into.push(value);
  }
}
