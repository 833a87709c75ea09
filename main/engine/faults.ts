// R25.4: whose fault an attempt's end was, from its verdict, where it ended and whether Switchyard
// translated the request. Pure. Only transport, provider and account faults blame the upstream:
// a client's, a context window's or Switchyard's own fault never cools a connection or moves a
// breaker (the "OmniRoute's own leaked field cooled every account").
import type { AttemptEnded, AttemptFault } from "../../shared/types.js";

/**
 * Verdict names (the engine's reasons and the request log's own codes) by fault. A request the
 * upstream refused as malformed is the client's when it went unchanged, and the gateway's when
 * Switchyard translated it (see `faultOf`). `context_overflow` is R25.2's verdict.
 */
const FAULT_BY_VERDICT: Readonly<Record<string, AttemptFault>> = {
  transport: "transport",
  timeout: "transport",
  target_timeout: "transport",
  server_error: "provider",
  stream_stall: "provider",
  stream_early_eof: "provider",
  stream_throughput: "provider",
  not_found: "provider",
  model_not_found: "provider",
  request_rejected: "provider",
  upstream_invalid_json: "provider",
  count_unavailable: "provider",
  rate_limit: "account",
  concurrency_limited: "account",
  quota_exhausted: "account",
  credits_exhausted: "account",
  auth_error: "account",
  banned: "account",
  window_exhausted: "account",
  client_abort: "client",
  tool_limit: "client",
  context_overflow: "context",
  // R13.3: a continuation the upstream would not stitch is Switchyard's own attempt failing.
  continuation_refused: "gateway",
};

/** The verdicts of a request the upstream refused as malformed (400/422). */
const MALFORMED = new Set(["bad_request"]);

/**
 * `verdict` null is an attempt that answered (`ended` "complete"). A malformed-request refusal is
 * the client's on a same-format request and the gateway's on a translated one. A verdict this table
 * does not name is a local limit Switchyard set (R9.1 deadlines): the gateway's.
 */
export function faultOf(verdict: string | null, ended: AttemptEnded, translated: boolean): AttemptFault {
  if (verdict === null) return ended === "complete" ? "none" : "gateway";
  if (MALFORMED.has(verdict)) return translated ? "gateway" : "client";
  return FAULT_BY_VERDICT[verdict] ?? "gateway";
}

/** Whether a fault may cool a connection or move a breaker (R25.4): the upstream's side only. */
export function blamesUpstream(fault: AttemptFault): boolean {
  return fault === "transport" || fault === "provider" || fault === "account";
}
