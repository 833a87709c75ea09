// What each wire format knows about itself, in two independent halves (DESIGN.md "Wire formats"):
// the client half is what a client speaks to us, the upstream half what we speak to a provider.
// Each half translates to and from the hub shape; a format may have one half or both, and a
// format with both also knows how to pass its own traffic through untranslated (SameFormatHalf).
// Everything that differs between formats lives behind these interfaces, one folder per format,
// so the rest of the gateway asks the half instead of switching on the format name.

import type { Provider, WireFormat } from "../../../shared/types.js";
import type { HubRequest, HubResponse, HubStreamEvent, HubUsage, ReasoningOrigin } from "./hub.js";
import type { FrameKind, OutFrame, TranslateContext, UpstreamEvent } from "./types.js";
import type { IssuedHere, Stripped } from "./reasoningArtifacts.js";
import type { DroppedFields, JsonObject } from "./values.js";
import type { QuotaHeaderFamily } from "./quota.js";
import type { ModelListRoute } from "./models.js";

/** Request headers as Node delivers them (IncomingHttpHeaders fits), without importing node:http here. */
export type ClientHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** The first value of a client header that may have been sent more than once. */
export function firstHeader(headers: ClientHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export interface StreamDecoder {
  decode(evt: UpstreamEvent): HubStreamEvent[];
}

export interface StreamEncoder {
  encode(event: HubStreamEvent): OutFrame[];
  end(): OutFrame[];
}

/** Per-stream bookkeeping of a same-format relay, which forwards frames untranslated. */
export interface PassthroughTracker {
  /**
   * Reads one parsed upstream event: the usage it reports, whether it carries the model id, and
   * whether it states the end of the answer (a finish reason).
   */
  track(evt: UpstreamEvent, payload: JsonObject): { usage: HubUsage | undefined; carriesModel: boolean; finished?: boolean };
  /** Frames that close a stream the upstream ended without closing; `usage` is the total seen. */
  closing(usage: HubUsage): OutFrame[];
}

/** Where a client's stream frames keep their text, for mid-stream continuation (R13.3). */
export interface ContinuationText {
  /** The text delta one client frame carries ("" when it carries none). */
  textOf(frame: OutFrame): string;
  /** The same client frame carrying other text. */
  withText(frame: OutFrame, text: string): OutFrame;
  /** The client's request with `text` as the assistant's unfinished answer (the prefill a continuation sends). */
  withPrefix(body: Record<string, unknown>, text: string): Record<string, unknown>;
}

/** R21.1: the login as the request carries it (login.ts reads it): the headers to send upstream, and the credential itself. */
export interface LoginParts {
  /** Header name (lower-case) → value, exactly as the client sent them. */
  headers: Record<string, string>;
  /** The credential alone (a Bearer token without its scheme, a key), which names the login by its digest. */
  credential: string;
  /** An OAuth or ChatGPT-plan login (R21.5: a subscription account), not a metered API key. */
  subscription: boolean;
}

/** R21.1: where a format carries the client's own login. */
export interface LoginShape {
  /** Credential headers in the order they are looked for; `authorization` must say Bearer. */
  credentialHeaders: readonly string[];
  /** Headers that travel with the credential when present. */
  companions: readonly string[];
  /** Gemini's `?key=`: a credential the query carries, sent upstream as this header. */
  queryKeyHeader?: string;
  /**
   * R24.1: whether the credential found under `header` (a Bearer without its scheme) has this vendor's
   * own shape: only such a credential is a login; a placeholder, a Switchyard key or any other string is not.
   */
  accepts(header: string, credential: string, companions: Record<string, string>): boolean;
  /** Whether the credential found (under `header`) is a subscription login. */
  subscription(header: string, credential: string, companions: Record<string, string>): boolean;
}

/** What a client speaks to us: its routes, shape check, hub conversion, answers and errors. */
export interface ClientHalf {
  readonly format: WireFormat;
  /** The generation routes of this format (lower-case exact paths), served on the hot path. */
  readonly generationPaths: readonly string[];
  /**
   * For formats that name the model and the kind of answer in the path (Gemini): the generation
   * call a POST path asks for, or null. The route puts `model` and `stream` into the body it hands on.
   */
  generationPathCall?(path: string, query: string): PathGeneration | null;
  /** The token-count endpoint of this format (R16.5, R17.1, R22.5); null when it has none. */
  readonly count: CountShape | null;
  /** R16.5: the routes that answer a turn as a compaction (lower-case exact paths). */
  readonly compactPaths: readonly string[];
  /**
   * R26.1: this format's generation paths also take a WebSocket of turns (Codex's Responses
   * WebSocket: `response.create` frames, the stream's events as frames).
   */
  readonly webSocketTurns: boolean;
  /** R1.3: the model-list routes (GET) this format's clients call, and their answers in its shape. */
  readonly modelRoutes: readonly ModelListRoute[];
  /** API.md: the path prefixes (lower-case) whose unknown routes are answered in this format; the longest match wins. */
  readonly routePrefixes: readonly string[];
  /** R20.3, R22.5: the texts a traffic class is read from (whole; the classifier reads only their openings). */
  trafficTexts(body: Record<string, unknown>): TrafficTexts;
  /**
   * R20.1, R22.5: the account-bound reasoning artifacts in a text this client receives (a JSON answer
   * or whole stream frames); null when this format's answers carry none that are read off text.
   */
  readonly reasoningArtifacts: ((text: string) => string[]) | null;
  /** R20.1, R22.5: the request without the artifacts `issued` does not vouch for, null when none is foreign; null when the format carries none. */
  readonly foreignReasoningStripped: ((body: Record<string, unknown>, issued: IssuedHere) => Stripped | null) | null;

  /** R21.1: where this format carries the client's own login, and which logins are subscriptions. */
  readonly login: LoginShape;

  /** R1.9 (and R16.1 for Responses): the first thing wrong with a generation request's shape, or null. */
  shapeProblem(body: Record<string, unknown>): string | null;
  isStreamRequest(body: Record<string, unknown>): boolean;
  /** Tools the request declares (R11.7): a tool list, or Gemini's function declarations. */
  toolCount(body: Record<string, unknown>): number;
  /** Whether a translated stream to this client ends with a usage report (TranslateContext.includeUsage). */
  wantsStreamUsage(body: Record<string, unknown>): boolean;
  toHub(body: Record<string, unknown>, dropped: DroppedFields): HubRequest;
  /** The prompt as "role: text" lines, for the request log when prompt logging is on. */
  promptText(body: Record<string, unknown>): string;
  /** Rough input tokens of a request in this format (count endpoints of non-counting upstreams). */
  estimateInputTokens(body: Record<string, unknown>): number;
  /** A session or prompt-cache key the body itself names (R7.1, D7), or null. */
  sessionHint(body: Record<string, unknown>): string | null;
  /** Whether the client marked part of its prompt for caching (the cache-aware strategies read it). */
  hasCacheHint(body: Record<string, unknown>): boolean;

  /** `ctx.clientBody` is the client's request, which some answers echo (Responses does). */
  hubToResponse(hub: HubResponse, ctx: TranslateContext): Record<string, unknown>;
  /** `upstream` is the format the hub events were decoded from. */
  streamEncoder(ctx: TranslateContext, upstream: UpstreamHalf): StreamEncoder;
  /** R13.3: null when this client's streams cannot be continued. */
  readonly continuation: ContinuationText | null;

  /**
   * Error body in this format (R1.5): the standard type for the status, Switchyard's code beside
   * it. `retryAfterSeconds` is the wait a final verdict knows (Gemini states it as RetryInfo, R17.3).
   */
  errorBody(status: number, code: string, message: string, extra?: Record<string, unknown>, retryAfterSeconds?: number | null): Record<string, unknown>;
  /**
   * A mid-stream error event in this format. `lastWritten` is the stream text the client got
   * last (empty when none), for formats whose events continue a numbering (Responses). `late` is
   * given for a final answer decided after the stream's headers went out (R24.4): the event then
   * carries what its status line and headers would have.
   */
  errorFrame(code: string, message: string, lastWritten?: string, late?: LateAnswer): string;
  /**
   * R25.2: the message of this vendor's own context error (code `context_length_exceeded`, 400), in
   * the words its agent reads to compact: the prompt's tokens and the window, each null when unknown.
   */
  contextOverflowMessage(tokens: number | null, window: number | null): string;
  /**
   * R21.5: how this client's vendor says a subscription window is used up (`window` "5h", "7d"… or ""
   * when unknown; `resetAt` epoch ms): headers and error fields its agent reads to tell its user.
   */
  windowExhausted?(window: string, resetAt: number, now: number): { headers?: Record<string, string>; extra?: Record<string, unknown> };
  /** Keep-alive frame sent while a streaming client waits for the first content (R13). */
  readonly heartbeatFrame: string;
  /**
   * R16.3: how long this kind of client tolerates no byte before the first content (Codex: about
   * 5 s); keep-alives then come well inside it, whatever the configured interval. Absent = no limit.
   */
  readonly silenceToleranceMs?: number;
  /** For clients that count only data events as life: keep-alive events numbered with the stream's own. */
  readonly numberedKeepAlive?: NumberedKeepAlive;
}

/**
 * R24.4: a final answer decided after a stream's headers went out (a keep-alive committed them), as
 * its status line and headers would have said it: the status, the wait, and the fields the error
 * body would have carried beside the code (`retry_after`, `reset_at`, a window's vendor words).
 */
export interface LateAnswer {
  /** The status the answer would have had: the error's standard type follows it. */
  status: number;
  /** Retry-After in whole seconds, null when the answer names no wait. */
  retryAfterSeconds: number | null;
  /** The instant the wait ends (epoch ms), null when the answer names no wait. */
  resetAt: number | null;
  /** The error object's fields beside type, message and code, as the JSON body has them. */
  extra?: Record<string, unknown>;
}

/** What a request says it is for, in its own words (R20.3): the system texts, and the last user text. */
export interface TrafficTexts {
  /** The opening system texts (Anthropic's system blocks, a leading system message, Gemini's instruction parts). */
  system: string[];
  /** The last message's text when a user wrote it, else "". */
  lastUser: string;
  /** The type of the last input item, where the format has typed items (Responses: Codex's `compaction_trigger`). */
  lastItemType?: string;
}

/** Keep-alive events inside a numbered event sequence (Responses' sequence_number). */
export interface NumberedKeepAlive {
  /** The keep-alive as the stream's n-th event. */
  frame(n: number): string;
  /** Stream text numbered from 0, moved past `by` keep-alives already sent. */
  shift(text: string, by: number): string;
}

/** A generation call named by its path: the model, whether it streams, and how a stream is framed. */
export interface PathGeneration {
  model: string;
  stream: boolean;
  /** SSE, or a JSON array whose elements arrive as they are produced (Gemini without alt=sse). */
  framing: StreamFraming;
  /** The path asks for a token count of the body, not for an answer (Gemini's `:countTokens`). */
  count?: boolean;
}

/**
 * A count endpoint (R16.5, R22.5): its routes, how an upstream of the same format counts exactly,
 * and the answer of an estimate when none can.
 */
export interface CountShape {
  /** The count routes (lower-case exact paths); a format that names the call in its path has none. */
  readonly paths: readonly string[];
  upstreamPath(model: string): string;
  /** The body an upstream of this format counts (Gemini's model is in the path, not the body). */
  upstreamBody(body: Record<string, unknown>, model: string): Record<string, unknown>;
  estimateBody(tokens: number): Record<string, unknown>;
}

export type StreamFraming = "sse" | "json-array";

/**
 * What a provider's format decides about its upstream calls. Real wire formats call upstream in
 * their own format; the simulator answers in whatever format the client speaks.
 */
export interface ProviderAdapter {
  upstreamFormatFor(clientFormat: WireFormat): WireFormat;
  /** Headers this kind of provider takes beyond auth (the simulator's fault programs). */
  extraHeaders(provider: Provider, clientHeaders: ClientHeaders): Record<string, string>;
  /** R18.1, R22.5: the price catalogue's provider for this kind of provider, when its base URL names none. */
  readonly pricingProvider: string | null;
  /** R9.4: this kind of provider rate-limits each model on its own (Google), so admission paces each model apart. */
  readonly limitsPerModel: boolean;
  /** API.md "Providers", R23.4: the base URL convention of this kind of provider, said where a URL is wrong. */
  readonly baseUrlConvention: string;
}

/** R23.4: what the contract doctor checks an upstream of this format against, in the words it tells the user. */
export interface UpstreamContract {
  /** The format as the user knows it ("Anthropic Messages"). */
  readonly title: string;
  /** Whether a JSON answer is in this format, by the keys only its answers carry. */
  isAnswer(body: Record<string, unknown>): boolean;
  /** The shape of this format's error bodies; formats of one vendor share the object. */
  readonly errorShape: ErrorShape;
  /** Where its answers report token usage, said when they report none. */
  readonly usageFields: string;
  /** How its streams end, said when one ends short. */
  readonly streamEnd: string;
  /** What a streaming request sets for the stream to report usage (translated requests always set it); null when streams report it unasked. */
  readonly streamUsageAsk: string | null;
}

/** An error body's shape: `{error: {message, …}}` and what else marks it as one vendor's. */
export interface ErrorShape {
  /** As a detail names it: OpenAI's {error: {message, type}}. */
  readonly title: string;
  /** Whether an error body (`body`, whose `error` object has a string message) is in this shape. */
  matches(body: Record<string, unknown>, error: Record<string, unknown>): boolean;
}

/** What we speak to a provider of this format: path, auth, request build, answer decoding. */
export interface UpstreamHalf extends ProviderAdapter {
  readonly format: WireFormat;

  /** Path appended to the provider baseUrl. */
  path(model: string, stream: boolean): string;
  /** Credentials and version headers for an upstream of this format; `clientFormat` decides what may pass through. */
  authHeaders(secret: string | null, clientHeaders: ClientHeaders, clientFormat: WireFormat): Record<string, string>;
  fromHub(hub: HubRequest, model: string, dropped: DroppedFields): Record<string, unknown>;

  responseToHub(body: unknown, requestId: string): HubResponse;
  /** Token usage of a JSON response body. */
  usage(body: unknown): HubUsage | undefined;
  streamDecoder(ctx: TranslateContext): StreamDecoder;
  /** How this format's reasoning is marked when relayed into Anthropic thinking blocks; null for Anthropic's own. */
  readonly reasoningMarker: Exclude<ReasoningOrigin, "anthropic"> | null;
  /** R13.3, R22.5: a trailing assistant message is continued (a true prefill), so a broken stream can be resumed here. */
  readonly takesPrefill: boolean;
  /** R23.4: what the contract doctor expects of an upstream of this format. */
  readonly contract: UpstreamContract;
  /** R18.3, R11.1: the rate-limit and subscription header families this vendor's answers carry. */
  readonly quotaHeaders: readonly QuotaHeaderFamily[];

  /** What an upstream event means for the stream watchdogs (R13.4); `payload` is its parsed data. */
  classify(evt: UpstreamEvent, payload: JsonObject | undefined): FrameKind;
  /** UTF-8 bytes of text deltas in one upstream event, for the throughput watchdog (R13.5). */
  textDeltaBytes(evt: UpstreamEvent): number;
  /** Tool-call or reasoning activity, which suspends the throughput watchdog while it lasts. */
  isToolOrReasoningEvent(evt: UpstreamEvent): boolean;
}

/** A format with both halves passes its own traffic through with only the model replaced. */
export interface SameFormatHalf {
  /** Same-format request: the client's body with the upstream model id put where this format keeps it. */
  withUpstreamModel(body: Record<string, unknown>, model: string): Record<string, unknown>;
  /** Same-format response: the upstream body with the model id the client asked for. */
  withClientModel(body: unknown, clientModel: string): Record<string, unknown>;
  /** Whether the upstream's JSON text can have its model edited in place (one top-level "model" key). */
  readonly editableModelText: boolean;
  /** The model is named in the path, not the body: a client's JSON text goes upstream as it is (R20.2). */
  readonly modelInPath?: boolean;
  /** The key a stream chunk names its model under, when not "model" (Gemini: modelVersion). */
  readonly streamModelKey?: string;
  passthroughTracker(): PassthroughTracker;
  /**
   * Optional, for same-format streams: true only when `data` is certainly a plain text-delta chunk
   * with neither usage nor an error (a model id in it is the chunk's own), so it needs no parse
   * (issue 12: the parse was the largest cost of a relayed frame). False means "parse it", never
   * "not content".
   */
  isPlainContentChunk?(data: string): boolean;
  /**
   * R21.10: the upstream's response headers that reach a client of the same format (the serving
   * account's rate limits and request id, which the client's own usage warnings read); null = none.
   */
  answerHeaders?(headers: ClientHeaders): Record<string, string> | null;
}

/** Response headers whose names start with one of `prefixes` or equal one of `names`, as the upstream sent them. */
export function pickHeaders(headers: ClientHeaders, prefixes: readonly string[], names: readonly string[]): Record<string, string> | null {
  let out: Record<string, string> | null = null;
  for (const name in headers) {
    if (!names.includes(name) && !prefixes.some((prefix) => name.startsWith(prefix))) continue;
    const value = headers[name];
    if (value === undefined) continue;
    (out ??= {})[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

/** One format's folder exports this: the halves it has. */
export interface FormatHalves {
  client: ClientHalf;
  upstream: UpstreamHalf;
  same: SameFormatHalf;
}
