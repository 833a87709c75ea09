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
