// The Anthropic Messages wire format: both halves.

import { ANTHROPIC_QUOTA_HEADERS } from "./quota.js";
import { anthropicContract } from "./contract.js";
import { CLAIM_WINDOWS } from "./windows.js";
import { pickHeaders, type ClientHalf, type FormatHalves, type SameFormatHalf, type UpstreamHalf } from "../adapter.js";
import { KEY_BODY } from "../login.js";
import { promptTextOfHub } from "../promptText.js";
import { cacheControlHint, messagesShapeProblem, metadataSessionHint } from "../shape.js";
import { estimateInputTokens } from "../tokens.js";
import { arrayLength, asRecord, DroppedFields } from "../values.js";
import { lastUserText, partText, SIGNAL_PARTS } from "../textParts.js";
import { anthropicContinuation } from "./continuation.js";
import { anthropicArtifacts, anthropicForeignStripped } from "./reasoning-artifacts.js";
import { anthropicContextOverflow, anthropicErrorBody, anthropicErrorFrame } from "./errors.js";
import { anthropicTextDeltaBytes, classifyAnthropic, isAnthropicToolOrReasoning, isPlainAnthropicTextDelta } from "./events.js";
import { AnthropicPassthroughTracker } from "./passthrough.js";
import { anthropicRequestToHub } from "./request-in.js";
import { hubToAnthropicRequest } from "./request-out.js";
import { anthropicResponseToHub, hubToAnthropicResponse } from "./response.js";
import { AnthropicStreamDecoder } from "./stream-decode.js";
import { AnthropicStreamEncoder } from "./stream-encode.js";
import { usageFromAnthropic } from "./usage.js";
import { ANTHROPIC_MODEL_ROUTES } from "./models.js";

const DEFAULT_ANTHROPIC_VERSION = "2023-06-01";
/** R21.10: what Claude Code reads off an answer: the serving account's rate limits and the request id. */
const ANSWER_HEADER_PREFIXES = ["anthropic-ratelimit-"];
const ANSWER_HEADER_NAMES = ["request-id"];
/** The unified `representative-claim` of each window name (the engine reads them the other way). */
const UNIFIED_CLAIMS: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(CLAIM_WINDOWS).map(([claim, window]) => [window, claim]));

const isPositiveInteger = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value) && value > 0;

/** R24.1: Anthropic's own credential, an API key `sk-ant-api…` or Claude's OAuth token `sk-ant-oat…`. */
const ANTHROPIC_KEY = new RegExp(`^sk-ant-${KEY_BODY}{10,}$`);

const client: ClientHalf = {
  format: "anthropic",
  generationPaths: ["/v1/messages"],
  compactPaths: [],
  webSocketTurns: false,
  // R25.3: a request with `anthropic-version` gets Anthropic's list shape, with each window.
  modelRoutes: ANTHROPIC_MODEL_ROUTES,
  routePrefixes: ["/v1/messages"],
  trafficTexts: (body) => ({
    system: Array.isArray(body["system"]) ? body["system"].slice(0, SIGNAL_PARTS).map(partText) : [partText(body["system"])],
    lastUser: lastUserText(body["messages"]),
  }),
  reasoningArtifacts: anthropicArtifacts,
  foreignReasoningStripped: anthropicForeignStripped,
  // R21.1: Claude Code on Pro/Max sends its OAuth token as a Bearer; an API key comes as x-api-key.
  // R24.1: either way only Anthropic's own `sk-ant-…` (api or oat) is a login.
  login: {
    credentialHeaders: ["authorization", "x-api-key"],
    companions: [],
    accepts: (_header, credential) => ANTHROPIC_KEY.test(credential),
    subscription: (header, credential) => header === "authorization" || credential.startsWith("sk-ant-oat"),
  },
  count: {
    paths: ["/v1/messages/count_tokens"],
    upstreamPath: () => "/v1/messages/count_tokens",
    upstreamBody: (body, model) => ({ ...body, model }),
    estimateBody: (tokens) => ({ input_tokens: tokens }),
  },
  shapeProblem: (body) => messagesShapeProblem(body) ?? (isPositiveInteger(body["max_tokens"]) ? null : "max_tokens: required positive integer"),
  isStreamRequest: (body) => body["stream"] === true,
  toolCount: (body) => arrayLength(body["tools"]),
  wantsStreamUsage: () => true,
  toHub: anthropicRequestToHub,
  promptText: (body) => promptTextOfHub(anthropicRequestToHub(body, new DroppedFields())),
  estimateInputTokens: (body) => estimateInputTokens(body).input_tokens,
  sessionHint: metadataSessionHint,
  hasCacheHint: cacheControlHint,

  hubToResponse: (hub, ctx) => hubToAnthropicResponse(hub, ctx.clientModel, ctx.requestId),
  // Thinking that did not come from Anthropic carries a marker signature naming its origin.
  streamEncoder: (ctx, upstream) => new AnthropicStreamEncoder(ctx, upstream.reasoningMarker ?? "openai"),
  continuation: anthropicContinuation,

  errorBody: anthropicErrorBody,
  errorFrame: anthropicErrorFrame,
  contextOverflowMessage: anthropicContextOverflow,
  heartbeatFrame: 'event: ping\ndata: {"type":"ping"}\n\n',
  // Claude Code reads the unified headers of a 429 to say "You've hit your 5-hour limit · resets …".
  windowExhausted: (window, resetAt) => {
    const reset = String(Math.ceil(resetAt / 1000));
    const headers: Record<string, string> = { "anthropic-ratelimit-unified-status": "rejected", "anthropic-ratelimit-unified-reset": reset };
    const claim = UNIFIED_CLAIMS[window];
    if (claim) headers["anthropic-ratelimit-unified-representative-claim"] = claim;
    if (window) {
      headers[`anthropic-ratelimit-unified-${window}-status`] = "rejected";
      headers[`anthropic-ratelimit-unified-${window}-reset`] = reset;
      headers[`anthropic-ratelimit-unified-${window}-utilization`] = "1";
    }
    return { headers };
  },
};

const upstream: UpstreamHalf = {
  format: "anthropic",
  upstreamFormatFor: () => "anthropic",
  takesPrefill: true,
  pricingProvider: "anthropic",
  limitsPerModel: false,
  baseUrlConvention: "an Anthropic base URL is the origin, e.g. https://api.anthropic.com",
  contract: anthropicContract,
  quotaHeaders: ANTHROPIC_QUOTA_HEADERS,
  extraHeaders: () => ({}),
  path: () => "/v1/messages",
  // R1.2, R21.10: an Anthropic client's `anthropic-*` headers reach an Anthropic upstream as an open
  // list (version, betas, workspace, capability headers not yet invented); other clients never chose
  // them, so they get the default version and no betas.
  authHeaders: (secret, clientHeaders, clientFormat) => {
    const headers: Record<string, string> = { "anthropic-version": DEFAULT_ANTHROPIC_VERSION };
    if (clientFormat === "anthropic") {
      for (const name in clientHeaders) {
        if (!name.startsWith("anthropic-")) continue;
        const value = clientHeaders[name];
        if (value) headers[name] = Array.isArray(value) ? value.join(",") : value;
      }
    }
    if (secret) headers["x-api-key"] = secret;
    return headers;
  },
  fromHub: hubToAnthropicRequest,
  responseToHub: (body) => anthropicResponseToHub(body),
  usage: (body) => usageFromAnthropic(asRecord(body)?.["usage"]),
  streamDecoder: () => new AnthropicStreamDecoder(),
  reasoningMarker: null,
  classify: classifyAnthropic,
  textDeltaBytes: anthropicTextDeltaBytes,
  isToolOrReasoningEvent: isAnthropicToolOrReasoning,
};

const same: SameFormatHalf = {
  withUpstreamModel: (body, model) => ({ ...body, model }),
  withClientModel: (body, clientModel) => ({ ...(asRecord(body) ?? {}), model: clientModel }),
  editableModelText: true,
  passthroughTracker: () => new AnthropicPassthroughTracker(),
  answerHeaders: (headers) => pickHeaders(headers, ANSWER_HEADER_PREFIXES, ANSWER_HEADER_NAMES),
  isPlainContentChunk: isPlainAnthropicTextDelta,
};

export const anthropicFormat: FormatHalves = { client, upstream, same };
