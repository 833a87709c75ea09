// Errors in the client's own format (R1.5). Each format writes its own body (<format>/errors.ts);
// what they share is the HTTP status behind a verdict code.

/** HTTP statuses of the verdict codes in API.md; a mid-stream error has no status of its own. */
const STATUS_FOR_CODE: Record<string, number> = {
  all_targets_cooling_down: 503,
  ALL_TARGETS_SKIPPED: 503,
  no_executable_targets: 404,
  rate_limit_error: 429,
  RATE_LIMIT_QUEUE_FULL: 429,
  RATE_LIMIT_QUEUE_TIMEOUT: 503,
  RATE_LIMIT_EXECUTION_TIMEOUT: 504,
  SEMAPHORE_TIMEOUT: 503,
  SEMAPHORE_QUEUE_FULL: 503,
  LEASE_CAPACITY_UNAVAILABLE: 429,
  LEASE_FENCE_STALE: 409,
  LEASE_CONTEXT_REQUIRED: 400,
  LEASE_CONTEXT_INVALID: 400,
  provider_circuit_open: 503,
  model_not_found: 404,
  invalid_request: 400,
  unauthorized: 401,
};

export function statusForCode(code: string): number {
  return STATUS_FOR_CODE[code] ?? 500;
}
