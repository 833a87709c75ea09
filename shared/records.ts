// The one check for "a JSON object": settings readers, adapters and the renderer all ask it of
// values that arrived as `unknown` (a stored document, a request body, an SSE payload).

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A record whose prototype is Object's (or none): what JSON and structured clone produce. Trust
 * boundaries ask this stricter question so a class instance never passes for caller input.
 */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (!isRecord(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * `Object.keys` typed by the record's key union. `Object.keys` says string[] because an object may
 * carry keys its type does not name; callers pass records written as literals of exactly `K`.
 */
export function keysOf<K extends string>(record: Readonly<Record<K, unknown>>): K[] {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- see above: every key of such a record is a K
  return Object.keys(record) as K[];
}

/** The `code` of a Node, SQLite or store error (`"ENOENT"`, `"conflict"`…), or undefined for anything else thrown. */
export function errorCode(err: unknown): unknown {
  return isRecord(err) ? err["code"] : undefined;
}
