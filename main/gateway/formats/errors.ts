// Errors in the client's own format (R1.5). The standard `type` for the status is kept so
// that SDKs classify the error as usual; Switchyard's verdict code rides in `code`.

import type { WireFormat } from "../../../shared/types.js";
import { sseJson } from "./sse.js";

export function openaiErrorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

export function anthropicErrorType(status: number): string {
  switch (status) {
    case 401:
      return "authentication_error";
    case 402:
      return "billing_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 503:
    case 529:
      return "overloaded_error";
    default:
      return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

function geminiStatus(status: number): string {
  switch (status) {
    case 401:
      return "UNAUTHENTICATED";
    case 403:
      return "PERMISSION_DENIED";
    case 404:
      return "NOT_FOUND";
    case 409:
      return "ABORTED";
    case 429:
      return "RESOURCE_EXHAUSTED";
    case 503:
      return "UNAVAILABLE";
    case 504:
      return "DEADLINE_EXCEEDED";
    default:
      return status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT";
  }
}

export function errorBody(
  format: WireFormat,
  status: number,
  code: string,
  message: string,
  extra?: Record<string, unknown>,
): Record<string, unknown> {
  switch (format) {
    case "openai":
      return { error: { message, type: openaiErrorType(status), code, ...extra } };
    case "anthropic":
      return { type: "error", error: { type: anthropicErrorType(status), message, code, ...extra } };
    case "gemini":
      return {
        error: {
          code: status,
          message,
          status: geminiStatus(status),
          details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: code, domain: "switchyard" }],
          ...extra,
        },
      };
  }
}

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

export function errorFrame(format: WireFormat, code: string, message: string): string {
  const body = errorBody(format, statusForCode(code), code, message);
  return format === "anthropic" ? sseJson(body, "error") : sseJson(body);
}
