// What one failed upstream attempt was, as the gateway saw it (issue 26 item 11): a typed union the
// classifier switches on. The gateway names a transport or stream failure once, where it catches
// it; the classifier never parses error strings again.

export type UpstreamHeaders = Record<string, string | string[] | undefined>;

/** Why no usable answer came over the wire; only `timeout` changes the verdict (R13.6 → 504). */
export type TransportCause = "refused" | "reset" | "timeout" | "dns" | "tls" | "aborted" | "other";

/** What a stream watchdog or the relay saw go wrong (R4.8, R13.2–R13.5, D13). */
export type StreamCause =
  /** No model output for the content-stall budget. */
  | "content_stall"
  /** No byte at all for the idle budget. */
  | "idle_stall"
  | "early_eof"
  | "throughput"
  /** R13.3: a continuation turned into a tool call or reasoning, which a prefix cannot stitch. */
  | "continuation_refused";

export interface TransportFailure {
  kind: "transport";
  cause: TransportCause;
  /** The raw errno or undici code ("ECONNREFUSED", "UND_ERR_SOCKET"): the verdict's errorCode and the logs. */
  code: string;
}

export type UpstreamFailure =
  /** The upstream answered with an error status (a status below 400 here is no answer at all). */
  | { kind: "http"; status: number; headers: UpstreamHeaders; bodyText: string }
  /** D2: a 2xx (`status`) whose body is not JSON; it is classified as the 502 it becomes. */
  | { kind: "invalid_json"; status: number; headers: UpstreamHeaders }
  | TransportFailure
  | { kind: "stream"; cause: StreamCause; detail: string }
  /**
   * R21.4: a 200 stream ended on the account's limit (an error event the relay recognised): its
   * error body and the stream's response headers, classified as the 429 it stands for.
   */
  | { kind: "stream_limit"; headers: UpstreamHeaders; bodyText: string }
  /** R25.4: a 200 stream carried an error event (its data): a failure of the class its error names. */
  | { kind: "stream_error"; headers: UpstreamHeaders; bodyText: string };

/** The attempt deadline passed (R13.6): whatever undici reported, it is this timeout. */
export const ATTEMPT_TIMED_OUT: TransportFailure = { kind: "transport", cause: "timeout", code: "ETIMEDOUT" };

/** D2: the body text a 2xx that is not JSON is classified with, as the 502 it becomes. */
export const INVALID_JSON_TEXT = "upstream returned a body that is not JSON";
