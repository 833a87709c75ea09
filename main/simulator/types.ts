import type { SubscriptionState } from "./subscriptions.js";
import type { StreamExhaustionSpec, SubscriptionSpec, UsageChange } from "./subscriptionSpecs.js";
import type { UsageWallSpec } from "./usageWall.js";

/** Wire format of a simulated upstream call, decided by the route it arrived on. */
export type WireFormat = "openai" | "openai-responses" | "anthropic" | "gemini";

/**
 * One programmed misbehaviour (R0.5). Fields combine: `latencyMs` delays the headers,
 * then `reset` or `status` decide the response, else the stream fields shape a 200 SSE
 * stream. Stream-only fields are ignored for JSON responses. "Chunks" count content
 * frames (text deltas, tool-argument deltas), not lifecycle frames.
 */
export interface FaultSpec {
  /** Respond with this HTTP status and an error body in the request's wire format. */
  status?: number;
  /** Seconds, sent as `Retry-After`. */
  retryAfter?: number;
  /** Sent as `retry-after-ms`. */
  retryAfterMs?: number;
  /** Extra response headers (e.g. `x-ratelimit-reset`, `anthropic-ratelimit-requests-reset`). */
  headers?: Record<string, string>;
  /**
   * Raw body text instead of the default error body. Without `status` it is sent as a
   * 200 (as SSE text when the request streams), which lets tests inject raw frames.
   */
  body?: string;
  /** Wait before sending the response headers. */
  latencyMs?: number;
  /** Reset the connection without any response. */
  reset?: boolean;
  /** Stream: close the socket abruptly after N content chunks. */
  resetAfterChunks?: number;
  /** Stream: after N content chunks end the response cleanly, without the closing frames (a truncated stream). */
  endAfterChunks?: number;
  /** Stream: after N content chunks send one frame whose data is not valid JSON, then end (malformed SSE). */
  garbleAfterChunks?: number;
  /** Stream: after N content chunks send nothing more, keeping the socket open until the client leaves. */
  stallAfterChunks?: number;
  /** Stream: send the lifecycle frames (message_start / role chunk), then nothing. */
  stallBeforeContent?: boolean;
  /** Stream: 200 and headers, then end with no events. */
  emptyStream?: boolean;
  /** Stream: delay between frames. */
  trickleMs?: number;
  /** Stream: after the lifecycle frames send only keep-alive frames at this interval, never content. */
  pingEveryMs?: number;
  /** Stream: send reasoning/thinking frames for this long before the content. */
  reasoningOnlyMs?: number;
  /** Stream: after N content chunks send the format's in-stream error event, then end (R25.4). */
  errorEventAfterChunks?: number;
  /** The status the error event names (default 529, overloaded): 400 an invalid request, 429 a rate limit. */
  errorEventStatus?: number;
  /** Answer 400 "too many tools" to a request declaring more tools than this (R11.7); smaller requests are served. */
  maxTools?: number;
  /** R25.2: the model's context window: a longer prompt gets the vendor's own context error (contextWindow.ts). */
  contextWindow?: number;
  /** Apply to the next N matching requests, then drop it (default: until cleared). */
  times?: number;
}

export interface SimulatorOptions {
  /** 0 (default) picks an ephemeral port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Names this simulated provider in reply texts and the `x-sim-label` header. */
  label?: string;
  /** Fault applied when neither the request header nor a programmed fault applies. */
  defaultFault?: FaultSpec;
  /**
   * Chooses a fault per request when neither the header nor a programmed fault applies, before
   * `defaultFault`: chaos runs draw faults from a seeded generator here. Its result is validated.
   */
  pickFault?: (request: SimulatedRequest) => FaultSpec | undefined;
  /**
   * R25.2: context windows per model name (as the request names it): a generation whose prompt is
   * longer gets the vendor's own context error, as a `contextWindow` fault does.
   */
  contextWindows?: Record<string, number>;
  /** Reply text instead of `Hello from <label> (key <key>)`. */
  replyText?: string;
  /** How many received requests `requests` keeps (default 1000). */
  recordLimit?: number;
  /**
   * Answer generations with rate-limit and subscription headers that follow the tokens each key was
   * served (quotaMeters.ts, R18.3). Off by default: the learned-quota strategies (R11.1) and retry
   * hints read such headers, and most tests program their own.
   */
  quotaHeaders?: boolean;
  /**
   * The clock the quota windows run on (default Date.now): a test that moves the gateway's test
   * clock moves this one with it, so the windows' resets stay ahead of the gateway's "now".
   */
  quotaClock?: () => number;
  /**
   * Subscription logins (R21.9; shape and behaviour in subscriptions.ts): Claude OAuth tokens served on
   * `/v1/messages` and ChatGPT tokens served on `/backend-api/codex/…`, each with 5-hour and weekly
   * windows that rise per request, run out and reset. With an `anthropic` login configured, Anthropic
   * routes refuse unknown keys 401; without any, every route behaves as before.
   */
  subscriptions?: SubscriptionSpec[];
  /** Metered keys Anthropic routes still serve, as before, once `anthropic` subscriptions are configured. */
  apiKeys?: string[];
  /** Refuse a Claude login sent as `Authorization: Bearer` without `anthropic-beta: oauth-2025-04-20`, as Anthropic does (R21.1). */
  requireOAuthBeta?: boolean;
}

export interface SimulatedRequest {
  path: string;
  format: WireFormat;
  model: string;
  key: string | null;
  stream: boolean;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body (the text itself when it is not JSON; null when empty). */
  body: unknown;
  /** The body exactly as received, as UTF-8 text ("" without one): R20.2 compares the bytes two identical conversations sent. */
  rawBody: string;
  at: number;
  /** The caller's address as this upstream saw it (the gateway's egress IP, R12.5). */
  remoteAddress?: string;
  /** The name of the subscription login the key is, when it is one (R21.9): which account served, without the token. */
  login?: string;
  /** The HTTP status this upstream answered, once its answer is written (absent for a reset connection). */
  status?: number;
  /** The usage a generation's answer reported (absent for errors, counts and model lists): what the gateway's usage rows must add up to. */
  usage?: { input: number; output: number; cacheRead?: number; cacheWrite?: number };
  /** The fault this call was answered with, when one applied. */
  fault?: FaultSpec;
  /** The answer told of a used-up subscription window: a login's 429 or a stream cut at the limit (R21.9). */
  windowExhausted?: boolean;
  /** R25.2: the answer was the vendor's context error (the prompt was longer than the model's window). */
  contextRefused?: boolean;
}

export interface Simulator {
  /** "http://127.0.0.1:<port>" */
  url: string;
  port: number;
  /** Every upstream request received, in order (bounded to the last `recordLimit`). */
  requests: SimulatedRequest[];
  /** Program faults for requests presenting this API key ("*" = any key). Appended to a FIFO per key; `times` consumes. */
  addFault(key: string, fault: FaultSpec): void;
  clearFaults(key?: string): void;
  /** Put this key behind the Claude usage wall (R12.6; see UsageWallSpec). */
  setUsageWall(key: string, spec: UsageWallSpec): void;
  clearUsageWall(key?: string): void;
  /** R21.9: each subscription login's windows (its token is never shown; `name` names it). */
  subscriptions(): SubscriptionState[];
  /** R21.9: set, use up or move the reset of a login's window; `login` is its name or token. */
  setSubscriptionUsage(login: string, change: UsageChange): SubscriptionState;
  /** R21.9: the login's next streamed answer(s) start 200 and end with the usage limit. */
  exhaustInStream(login: string, spec?: StreamExhaustionSpec): void;
  /** Moves the simulator's window clock (subscription and quota-header windows) forward; returns its now (epoch ms). */
  advanceClock(ms: number): number;
  close(): Promise<void>;
}
