// Every error code Switchyard sends (issue 26 item 11): the gateway's client errors (`error.code`
// in the client's format, stream error events) and the management API's `{error:{code}}`. One
// catalogue, so a code is a checked name rather than a string literal, and its status is written
// once. docs/api-notes.md "Error codes" mirrors it, and tests/unit/contract/errorCodes.test.ts
// holds both against API.md.

export interface ErrorCodeEntry {
  /**
   * The HTTP status it is sent with; null when it has none of its own: it takes the failed
   * attempt's status (a verdict) or it ends a stream that already answered 200.
   */
  status: number | null;
  /** Named in API.md's list of verdict codes ("Errors use the client's format"). */
  contract: boolean;
  meaning: string;
}

export const ERROR_CODES = {
  all_targets_cooling_down: { status: 503, contract: true, meaning: "every target is excluded by a timer (cooldown, lockout, breaker)" },
  ALL_TARGETS_SKIPPED: {
    status: 503,
    contract: true,
    meaning: "every target of a combo was passed over before dispatch as terminal or inactive, with no attempt (R11.5; attempts that all failed follow R25.6)",
  },
  no_executable_targets: { status: 404, contract: true, meaning: "no active connection can serve the model" },
  rate_limit_error: { status: 429, contract: true, meaning: "every attempt was rate-limited or out of quota" },
  RATE_LIMIT_QUEUE_FULL: { status: 429, contract: true, meaning: "the connection's local queue is full (R9.3)" },
  RATE_LIMIT_QUEUE_TIMEOUT: { status: 503, contract: true, meaning: "the request waited its queue budget out (R9.3)" },
  RATE_LIMIT_EXECUTION_TIMEOUT: { status: 504, contract: true, meaning: "the admitted job expired before its attempt ended (R9.1)" },
  SEMAPHORE_TIMEOUT: { status: 503, contract: true, meaning: "the request waited too long for a concurrency permit (R8.1)" },
  SEMAPHORE_QUEUE_FULL: { status: 503, contract: true, meaning: "too many requests already wait for a concurrency permit (R8.1)" },
  LEASE_CAPACITY_UNAVAILABLE: { status: 429, contract: true, meaning: "no free eligible connection for the session lease" },
  LEASE_FENCE_STALE: { status: 409, contract: true, meaning: "the lease is not active for this owner, key and generation" },
  LEASE_CONTEXT_REQUIRED: { status: 400, contract: true, meaning: "a leased request lacks its owner or generation" },
  LEASE_CONTEXT_INVALID: { status: 400, contract: true, meaning: "the lease headers are malformed" },
  provider_circuit_open: { status: 503, contract: true, meaning: "the only target's provider breaker is open" },
  stream_content_stall: { status: null, contract: true, meaning: "the stream produced no model output for its stall budget" },
  STREAM_EARLY_EOF: { status: null, contract: true, meaning: "the upstream stream ended before its final event" },
  STREAM_THROUGHPUT_TOO_LOW: { status: null, contract: true, meaning: "the stream's useful output rate stayed below the floor (R13.5)" },
  model_not_found: { status: 404, contract: true, meaning: "the model is unknown, or every upstream said it does not exist" },
  invalid_request: { status: 400, contract: true, meaning: "the request (or the upstream's 4xx verdict) is malformed" },
  unauthorized: { status: 401, contract: true, meaning: "no valid key, or every connection is terminal or refused auth" },
  budget_exceeded: { status: 429, contract: true, meaning: "the API key has used its budget for the period (R18.4)" },
  traffic_shed: { status: 429, contract: true, meaning: "a background request met a rate limit and was shed so the main turn keeps the quota (R20.3)" },
  window_exhausted: { status: 429, contract: true, meaning: "a subscription window is used up and the billing boundary keeps the request on it until the window resets (R21.5)" },
  response_not_found: { status: 404, contract: true, meaning: "previous_response_id names no stored response (R16.4)" },
  response_storage_off: { status: 400, contract: true, meaning: "previous_response_id with response storage off (R16.4)" },
  credits_exhausted: { status: null, contract: false, meaning: "the upstream account is out of credits" },
  request_rejected: { status: null, contract: false, meaning: "the upstream refused this request's content" },
  context_length_exceeded: { status: null, contract: false, meaning: "the prompt is longer than the model's context" },
  tool_limit: { status: null, contract: false, meaning: "the upstream refused the number of tools (R11.7)" },
  upstream_error: { status: null, contract: false, meaning: "the upstream answered with a server error" },
  upstream_unreachable: { status: null, contract: false, meaning: "no usable answer came over the wire (refused, reset, DNS, TLS)" },
  upstream_timeout: { status: null, contract: false, meaning: "the upstream did not answer within the deadline" },
  upstream_invalid_json: { status: 502, contract: false, meaning: "the upstream answered 2xx with a body that is not JSON (D2)" },
  upstream_stream_error: { status: null, contract: false, meaning: "the upstream stream broke after output began" },
  stream_idle_timeout: { status: null, contract: false, meaning: "the stream sent no byte at all for its idle budget" },
  stream_attempt_deadline: { status: null, contract: false, meaning: "the attempt deadline passed after output began (R13.6)" },
  stream_continuation_refused: { status: null, contract: false, meaning: "a mid-stream continuation turned into a tool call or reasoning (R13.3)" },
  proxy_disabled: { status: 503, contract: false, meaning: "the proxy is switched off (tray)" },
  payload_too_large: { status: 413, contract: false, meaning: "the body exceeds maxBodyMb" },
  unsupported_media_type: { status: 415, contract: false, meaning: "the body is not JSON" },
  not_found: { status: 404, contract: false, meaning: "no such route, or no such management entity" },
  forbidden: { status: 403, contract: false, meaning: "the key lacks the scope the route needs" },
  forbidden_host: { status: 403, contract: false, meaning: "the Host header is not a loopback address" },
  forbidden_origin: { status: 403, contract: false, meaning: "a cross-origin browser request to /api" },
  previous_response_not_found: { status: 400, contract: false, meaning: "a WebSocket turn names a response neither its socket nor the store holds (R26.2)" },
  websocket_turn_in_progress: { status: 409, contract: false, meaning: "a WebSocket frame arrived before the socket's running turn finished (R26.3)" },
  method_not_allowed: { status: 405, contract: false, meaning: "a known management path with the wrong verb" },
  conflict: { status: 409, contract: false, meaning: "a duplicate id or name" },
  unknown_provider: { status: 400, contract: false, meaning: "the input names a provider that does not exist" },
  no_active_connection: { status: 409, contract: false, meaning: "the provider has no active connection to check (R23.4)" },
  client_closed: { status: 499, contract: false, meaning: "the client left while the request waited; only the request log sees it" },
  internal_error: { status: 500, contract: false, meaning: "Switchyard failed to handle the request" },
} as const satisfies Record<string, ErrorCodeEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * The status a code must be sent with: its catalogue status when it has one, any status when it
 * takes the attempt's. A sender typed with it cannot pair a code with another status.
 */
export type StatusOf<C extends ErrorCode> = (typeof ERROR_CODES)[C]["status"] extends infer S ? (S extends number ? S : number) : never;

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_CODES, value);
}
