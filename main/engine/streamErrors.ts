// R25.4: an error event inside a 200 stream is a failure of its class, never a success. The status
// it stands for, from the error's type, code or status as each format names it (Anthropic
// `overloaded_error`, OpenAI `server_error`, Responses `response.failed`, Gemini `UNAVAILABLE` or a
// numeric code). Pure.
import { isRecord } from "../../shared/records.js";

const STATUS_BY_NAME: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  invalid_request: 400,
  context_length_exceeded: 400,
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  authentication_error: 401,
  invalid_api_key: 401,
  UNAUTHENTICATED: 401,
  permission_error: 403,
  PERMISSION_DENIED: 403,
  not_found_error: 404,
  model_not_found: 404,
  NOT_FOUND: 404,
  rate_limit_error: 429,
  rate_limit_exceeded: 429,
  insufficient_quota: 429,
  usage_limit_reached: 429,
  RESOURCE_EXHAUSTED: 429,
  // Anthropic's 529: the provider is overloaded, which the breaker reads as a 503 (R2.3).
  overloaded_error: 503,
  overloaded: 503,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
};

/** Anthropic's overloaded status, as a numeric code names it. */
const OVERLOADED = 529;

/** An error the event does not name is the provider's: a 500. */
const UNNAMED_STREAM_ERROR = 500;

/** The error object of an error event: `error`, a failed response's `response.error`, or the event itself. */
function errorOf(body: string): Record<string, unknown> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  if (!isRecord(parsed)) return null;
  if (isRecord(parsed["error"])) return parsed["error"];
  const response = parsed["response"];
  if (isRecord(response) && isRecord(response["error"])) return response["error"];
  return parsed;
}

/** The HTTP status an in-stream error event stands for. */
export function streamErrorStatus(body: string): number {
  const error = errorOf(body);
  if (!error) return UNNAMED_STREAM_ERROR;
  // The code first: OpenAI's is finer than its type (model_not_found under invalid_request_error).
  for (const key of ["code", "type", "status"]) {
    const value = error[key];
    if (typeof value === "string" && STATUS_BY_NAME[value] !== undefined) return STATUS_BY_NAME[value];
    if (typeof value === "number" && Number.isInteger(value) && value >= 400 && value < 600) return value === OVERLOADED ? STATUS_BY_NAME["overloaded_error"] : value;
  }
  return UNNAMED_STREAM_ERROR;
}
