// The simulator's "is this a JSON object" check. The simulator imports nothing outside its own
// folder (its CLI runs from a copy of it, R0.5), so it keeps this twin of shared/records.ts.

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
