// Pure rules of the resilience settings forms (R10.1): reading a field out of the document,
// turning what the user typed into a PATCH, and telling the user what the server's normaliser
// changed — by comparing what was sent with what came back, field by field.
import { isRecord } from "../../shared/records.js";
import { DEFAULT_RESILIENCE_SETTINGS, RESILIENCE_CHOICES, rangeAt } from "../../shared/resilienceSettings.js";

/** The words a choice setting takes (the server's list). */
export const choicesFor = (path: string): readonly string[] => RESILIENCE_CHOICES[path] ?? [];
import { formatRemaining } from "./format.js";

/** ms: a duration; int/number: a count or ratio; nullableInt: empty means "derived" (null); choice: one word of RESILIENCE_CHOICES. */
export type SettingKind = "ms" | "int" | "number" | "bool" | "nullableInt" | "codes" | "choice";

export interface SettingField {
  path: string;
  label: string;
  kind: SettingKind;
  help?: string;
}

export type DraftValue = string | boolean;

export function getAt(doc: unknown, path: string): unknown {
  let node: unknown = doc;
  for (const key of path.split(".")) {
    if (!isRecord(node)) return undefined;
    node = node[key];
  }
  return node;
}

/** The bounds the server enforces for the setting at `path` (shared, so the form and the server agree). */
export const rangeFor = rangeAt;

export function formatNumber(n: number): string {
  return n.toLocaleString("en-US");
}

/** "5,000–600,000 ms" or "0 (off) or 1,000–3,600,000 ms"; undefined when the field has no range. */
export function rangeHint(field: SettingField): string | undefined {
  if (field.kind === "codes") return "HTTP status codes (100–599), separated by commas";
  if (field.kind === "nullableInt") {
    const r = rangeFor(field.path);
    return r ? `${formatNumber(r.min)}–${formatNumber(r.max)}; empty = derived` : "empty = derived";
  }
  const range = rangeFor(field.path);
  if (!range) return undefined;
  const unit = field.kind === "ms" ? " ms" : "";
  const span = `${formatNumber(range.min)}–${formatNumber(range.max)}${unit}`;
  return range.zeroMeansOff ? `0 (off) or ${span}` : span;
}

/** What the input shows for a stored value. */
export function toDraft(value: unknown, kind: SettingKind): DraftValue {
  if (kind === "bool") return value === true;
  if (kind === "codes") return Array.isArray(value) ? value.join(", ") : "";
  if (kind === "choice") return typeof value === "string" ? value : "";
  return typeof value === "number" ? String(value) : "";
}

export type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

/** What the user typed -> the JSON value to send; type errors are caught here, ranges are the server's. */
export function parseDraft(draft: DraftValue, kind: SettingKind): Parsed {
  if (kind === "bool") return { ok: true, value: draft === true };
  const text = String(draft).trim();
  if (kind === "choice") return text === "" ? { ok: false, error: "choose one" } : { ok: true, value: text };
  if (kind === "codes") {
    const tokens = text === "" ? [] : text.split(/[\s,;]+/).filter(Boolean);
    const codes = tokens.map(Number);
    const bad = tokens.find((token) => !Number.isInteger(Number(token)));
    return bad === undefined ? { ok: true, value: codes } : { ok: false, error: `"${bad}" is not a status code` };
  }
  if (text === "") return kind === "nullableInt" ? { ok: true, value: null } : { ok: false, error: "enter a number" };
  const n = Number(text);
  if (!Number.isFinite(n)) return { ok: false, error: "enter a number" };
  return { ok: true, value: n };
}

/** Dotted paths and values -> the nested partial document PATCH /api/resilience expects. */
export function buildPatch(values: Record<string, unknown>): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const [path, value] of Object.entries(values)) {
    const keys = path.split(".");
    let node = patch;
    for (const key of keys.slice(0, -1)) {
      const child = node[key];
      node = isRecord(child) ? child : (node[key] = {});
    }
    node[keys[keys.length - 1]] = value;
  }
  return patch;
}

export function isBuiltInDefault(path: string, value: unknown): boolean {
  return sameValue(getAt(DEFAULT_RESILIENCE_SETTINGS, path), value);
}

/** R10.2 provenance of one value: saved in the dashboard, seeded by an env var, or built in. */
export type ValueSource = "saved" | "env" | "default";

export function valueSource(path: string, sources: { stored: unknown; envDefaults: unknown } | null, value: unknown): ValueSource {
  if (!sources) return isBuiltInDefault(path, value) ? "default" : "saved";
  if (getAt(sources.stored, path) !== undefined) return "saved";
  return sameValue(getAt(sources.envDefaults, path), getAt(DEFAULT_RESILIENCE_SETTINGS, path)) ? "default" : "env";
}

export function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export interface Adjustment {
  path: string;
  /** What the user sent; undefined when the field was not sent but changed anyway (cross-field rule). */
  sent: unknown;
  saved: unknown;
}

/**
 * What the normaliser did to a save: every sent field whose saved value differs, plus fields of
 * the form that were not sent yet changed (e.g. maxCooldownMs raised to a larger base).
 */
export function adjustments(sent: Record<string, unknown>, before: unknown, after: unknown, formPaths: readonly string[]): Adjustment[] {
  const out: Adjustment[] = [];
  for (const [path, value] of Object.entries(sent)) {
    const saved = getAt(after, path);
    if (value !== null && !sameValue(value, saved)) out.push({ path, sent: value, saved });
  }
  for (const path of formPaths) {
    if (path in sent) continue;
    const saved = getAt(after, path);
    if (!sameValue(getAt(before, path), saved)) out.push({ path, sent: undefined, saved });
  }
  return out;
}

/** A value as the user reads it: durations get their human form next to the raw number. */
export function describeValue(value: unknown, kind: SettingKind): string {
  if (Array.isArray(value)) return value.join(", ");
  if (typeof value === "number") {
    if (kind !== "ms") return formatNumber(value);
    return value >= 1_000 ? `${formatNumber(value)} ms (${formatRemaining(value)})` : `${formatNumber(value)} ms`;
  }
  if (value === null) return "derived";
  if (typeof value === "string" || typeof value === "boolean" || value === undefined) return String(value);
  // A section (an object) reads as its JSON, not as "[object Object]".
  return JSON.stringify(value);
}
