// Column codecs shared by the repositories: SQLite has no boolean or JSON type,
// and better-sqlite3 refuses to bind JS booleans or undefined.

export function toFlag(value: boolean): 0 | 1 {
  return value ? 1 : 0;
}

export function fromFlag(value: number): boolean {
  return value !== 0;
}

export function toNullableFlag(value: boolean | null): 0 | 1 | null {
  return value === null ? null : toFlag(value);
}

export function fromNullableFlag(value: number | null): boolean | null {
  return value === null ? null : fromFlag(value);
}

export function toJson(value: unknown): string {
  return JSON.stringify(value);
}

/** Reads back a JSON column; only for columns this store wrote from a value of type T. */
export function fromJson<T>(text: string): T {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- see above: the column holds what toJson stored
  return JSON.parse(text) as T;
}

/** Drops keys whose value is undefined, so `{...current, ...patch}` never erases a field by accident. */
export function definedOnly<T extends object>(patch: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [key, value] of Object.entries(patch)) {
    if (value !== undefined) (out as Record<string, unknown>)[key] = value;
  }
  return out;
}
