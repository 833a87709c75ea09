// Small, dependency-free edits of the config files the coding agents read (JSON with comments,
// dotenv, and the part of TOML Codex's provider block needs). Each takes the file's text (null when
// there is none) and gives the new text; nothing here touches the disk.
import { isRecord } from "../../shared/records.js";

export type JsonObject = Record<string, unknown>;

/**
 * JSON with `//` and `/* *\/` comments and trailing commas (what settings files written by hand
 * contain) parsed as JSON; throws with the file's name when it is not that either.
 */
export function parseJsonc(text: string, file: string): unknown {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i);
      out += text.slice(i, end);
      i = end;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (c === "/" && text[i + 1] === "*") {
      const close = text.indexOf("*/", i + 2);
      i = close === -1 ? text.length : close + 2;
    } else {
      out += c;
      i++;
    }
  }
  const cleaned = withoutTrailingCommas(out);
  try {
    return cleaned.trim() === "" ? {} : (JSON.parse(cleaned) as unknown);
  } catch (err) {
    throw new Error(`${file} is not valid JSON (${err instanceof Error ? err.message : String(err)}); fix or move it first`);
  }
}

const CLOSING = /\s*[}\]]/y;

/** Drops each comma that only blanks separate from a closing bracket; strings are copied whole. */
function withoutTrailingCommas(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    if (text[i] === '"') {
      const end = stringEnd(text, i);
      out += text.slice(i, end);
      i = end;
      continue;
    }
    CLOSING.lastIndex = i + 1;
    if (text[i] !== "," || !CLOSING.test(text)) out += text[i];
    i++;
  }
  return out;
}

/** The index just past the JSON string that starts at `start` (a quote). */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
  return Math.min(i + 1, text.length);
}

/** The file's top-level object, or {} when there is no file; a file holding something else is refused. */
export function readJsonObject(text: string | null, file: string): JsonObject {
  if (text === null) return {};
  const value = parseJsonc(text, file);
  if (!isRecord(value)) throw new Error(`${file} does not hold a JSON object; fix or move it first`);
  return value;
}

/** Sets `value` at `keys` in `obj`, making (or replacing non-object) intermediate objects. */
export function setIn(obj: JsonObject, keys: string[], value: unknown): void {
  let at = obj;
  for (const key of keys.slice(0, -1)) {
    const next = at[key];
    if (isRecord(next)) at = next;
    else {
      const made: JsonObject = {};
      at[key] = made;
      at = made;
    }
  }
  at[keys[keys.length - 1]] = value;
}

/** The value at `keys`, or undefined. */
export function getIn(obj: unknown, keys: string[]): unknown {
  let at = obj;
  for (const key of keys) {
    if (!isRecord(at)) return undefined;
    at = at[key];
  }
  return at;
}

export function formatJson(obj: JsonObject): string {
  return JSON.stringify(obj, null, 2) + "\n";
}

/** Edits a JSON(C) file's object (comments are not kept: the backup keeps the original). */
export function editJson(text: string | null, file: string, edit: (obj: JsonObject) => void): string {
  const obj = readJsonObject(text, file);
  edit(obj);
  return formatJson(obj);
}

/** A dotenv file with each `name` set to its value: the existing line replaced, else one appended. */
export function setDotenv(text: string | null, values: Record<string, string>): string {
  const eol = text?.includes("\r\n") ? "\r\n" : "\n";
  const lines = text === null || text === "" ? [] : text.replace(/\r?\n$/, "").split(/\r?\n/);
  for (const [name, value] of Object.entries(values)) {
    const line = `${name}=${/[\s#"'$\\]/.test(value) ? JSON.stringify(value) : value}`;
    const pattern = new RegExp(`^\\s*(export\\s+)?${name}\\s*=`);
    const at = lines.findIndex((l) => pattern.test(l));
    if (at === -1) lines.push(line);
    else lines[at] = line;
  }
  return lines.join(eol) + eol;
}

/** A dotenv file's value for `name`, or undefined (quotes removed; enough to tell whether it is set). */
export function dotenvValue(text: string | null, name: string): string | undefined {
  if (text === null) return undefined;
  const m = new RegExp(`^\\s*(?:export\\s+)?${name}\\s*=\\s*(.*)$`, "m").exec(text);
  if (!m) return undefined;
  const raw = m[1].trim();
  return /^(["']).*\1$/.test(raw) ? raw.slice(1, -1) : raw.replace(/\s+#.*$/, "");
}

/** A TOML basic string (its escapes are JSON's for the characters a URL or a key holds). */
export const tomlString = (value: string) => JSON.stringify(value);

const TABLE_HEADER = /^\s*\[/;

/**
 * Codex's config.toml with `model_provider = "<id>"` (and the `top` keys) at the top level and `[model_providers.<id>]`
 * holding exactly `lines` (an earlier table of that name, and its sub-tables, removed). Everything
 * else stays as it was, byte for byte.
 */
export function setTomlProvider(text: string | null, id: string, lines: string[], top: [string, string][] = []): string {
  const eol = text?.includes("\r\n") ? "\r\n" : "\n";
  const all = text === null || text === "" ? [] : text.replace(/\r?\n$/, "").split(/\r?\n/);
  const header = (l: string) => {
    const m = /^\s*\[\s*([^\]]+?)\s*\]\s*(#.*)?$/.exec(l);
    return m ? m[1].replace(/\s*\.\s*/g, ".").replace(/"/g, "") : null;
  };
  const ours = (l: string) => {
    const name = header(l);
    return name !== null && (name === `model_providers.${id}` || name.startsWith(`model_providers.${id}.`));
  };
  const kept: string[] = [];
  let dropping = false;
  for (const line of all) {
    if (TABLE_HEADER.test(line)) dropping = ours(line);
    if (!dropping) kept.push(line);
  }
  // model_provider, then the other top-level keys (R26.4: chatgpt_base_url), each set where it is or added first.
  for (const [key, value] of [["model_provider", tomlString(id)], ...top].reverse()) {
    const firstTable = kept.findIndex((l) => TABLE_HEADER.test(l));
    const topEnd = firstTable === -1 ? kept.length : firstTable;
    const at = kept.slice(0, topEnd).findIndex((l) => new RegExp(`^\\s*${key}\\s*=`).test(l));
    if (at === -1) kept.unshift(`${key} = ${value}`);
    else kept[at] = `${key} = ${value}`;
  }
  while (kept.length > 0 && kept[kept.length - 1].trim() === "") kept.pop();
  const table = [`[model_providers.${id}]`, ...lines];
  return [...kept, ...(kept.length > 0 ? [""] : []), ...table].join(eol) + eol;
}
