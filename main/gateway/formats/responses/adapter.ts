// The OpenAI Responses wire format (Codex CLI, the AI SDK's default OpenAI provider): both halves.

import { RESPONSES_MODEL_ROUTES } from "./models.js";
import { RESPONSES_QUOTA_HEADERS } from "./quota.js";
import { responsesContract } from "./contract.js";
import { pickHeaders } from "../adapter.js";
import { OPENAI_LOGIN } from "../login.js";
import type { ClientHalf, FormatHalves, SameFormatHalf, UpstreamHalf } from "../adapter.js";
import { promptTextOfHub } from "../promptText.js";
import { metadataSessionHint } from "../shape.js";
import { estimateHubInputTokens } from "../tokens.js";
import { arrayLength, asRecord, DroppedFields } from "../values.js";
import { isRecord } from "../../../../shared/records.js";
import { lastUserText, leadingSystemText, partText } from "../textParts.js";
import { responsesContextOverflow, responsesErrorBody, responsesErrorFrame } from "./errors.js";
import { responsesForeignStripped } from "./reasoning-artifacts.js";
import { responsesKeepAlive } from "./keepalive.js";
import { classifyResponses, isPlainResponsesTextDelta, isResponsesToolOrReasoning, responsesTextDeltaBytes } from "./events.js";
import { responsesPassthrough } from "./passthrough.js";
import { responsesRequestToHub, responsesShapeProblem } from "./request-in.js";
import { hubToResponsesRequest } from "./request-out.js";
import { hubToResponsesResponse, responsesResponseToHub } from "./response.js";
import { ResponsesStreamDecoder } from "./stream-decode.js";
import { ResponsesStreamEncoder } from "./stream-encode.js";
import { usageFromResponses } from "./usage.js";

const client: ClientHalf = {
  format: "openai-responses",
  // R21.1: Codex on a ChatGPT plan speaks to the ChatGPT backend's paths (its base_url ends in /backend-api/codex).
  generationPaths: ["/v1/responses", "/backend-api/codex/responses"],
  count: {
    paths: ["/v1/responses/input_tokens"],
    upstreamPath: () => "/responses/input_tokens",
    upstreamBody: (body, model) => ({ ...body, model }),
    estimateBody: (tokens) => ({ object: "response.input_tokens", input_tokens: tokens }),
  },
  compactPaths: ["/v1/responses/compact", "/backend-api/codex/responses/compact"],
  // R26.1: Codex's Responses WebSocket on the same paths (http/upgrade.ts, http/responsesSocket.ts).
  webSocketTurns: true,
  modelRoutes: RESPONSES_MODEL_ROUTES,
  routePrefixes: ["/v1/responses"],
  trafficTexts: (body) => {
    const input = body["input"];
    const last: unknown = Array.isArray(input) ? input[input.length - 1] : undefined;
    const lastItemType = isRecord(last) && typeof last["type"] === "string" ? last["type"] : undefined;
    return { system: [partText(body["instructions"]), leadingSystemText(input)], lastUser: lastUserText(input), lastItemType };
  },
  // Its account-bound items are read off the finished response by the turn that served it (R16.7).
  reasoningArtifacts: null,
  foreignReasoningStripped: responsesForeignStripped,
  login: OPENAI_LOGIN,
  shapeProblem: responsesShapeProblem,
  isStreamRequest: (body) => body["stream"] === true,
  toolCount: (body) => arrayLength(body["tools"]),
  // response.completed always carries the usage.
  wantsStreamUsage: () => true,
  toHub: responsesRequestToHub,
  promptText: (body) => promptTextOfHub(responsesRequestToHub(body, new DroppedFields())),
  estimateInputTokens: (body) => estimateHubInputTokens(responsesRequestToHub(body, new DroppedFields())),
  // Codex names its session in prompt_cache_key; other clients may use the shared metadata fields.
  sessionHint: (body) => (typeof body["prompt_cache_key"] === "string" && body["prompt_cache_key"].trim() ? body["prompt_cache_key"].trim() : metadataSessionHint(body)),
  hasCacheHint: (body) => typeof body["prompt_cache_key"] === "string",

  hubToResponse: hubToResponsesResponse,
  streamEncoder: (ctx, upstream) => new ResponsesStreamEncoder(ctx, upstream),
  // A Responses stream numbers its events and ends with one response object; it is not spliced.
  continuation: null,

  errorBody: responsesErrorBody,
  errorFrame: responsesErrorFrame,
  contextOverflowMessage: responsesContextOverflow,
  // An SSE comment: Codex's parser (eventsource-stream) and the OpenAI SDKs skip it.
  heartbeatFrame: ": keep-alive\n\n",
  // Codex ends the turn and tells its user "You've hit your usage limit … try again at …" for this type.
  windowExhausted: (_window, resetAt, now) => ({
    extra: { type: "usage_limit_reached", resets_at: Math.ceil(resetAt / 1000), resets_in_seconds: Math.max(0, Math.ceil((resetAt - now) / 1000)) },
  }),
  // CLIENTS.md: Codex drops a stream that sends no byte for about 5 s.
  silenceToleranceMs: 5_000,
  numberedKeepAlive: responsesKeepAlive,
};

const upstream: UpstreamHalf = {
  format: "openai-responses",
  upstreamFormatFor: () => "openai-responses",
  takesPrefill: false,
  pricingProvider: "openai",
  limitsPerModel: false,
  baseUrlConvention: "an OpenAI Responses base URL includes the version path, e.g. https://api.openai.com/v1",
  contract: responsesContract,
  quotaHeaders: RESPONSES_QUOTA_HEADERS,
  extraHeaders: () => ({}),
  path: () => "/responses",
  authHeaders: (secret): Record<string, string> => (secret ? { authorization: `Bearer ${secret}` } : {}),
  fromHub: hubToResponsesRequest,
  responseToHub: (body) => responsesResponseToHub(body),
  usage: (body) => usageFromResponses(asRecord(body)?.["usage"]),
  streamDecoder: () => new ResponsesStreamDecoder(),
  reasoningMarker: "openai-responses",
  classify: classifyResponses,
  textDeltaBytes: responsesTextDeltaBytes,
  isToolOrReasoningEvent: isResponsesToolOrReasoning,
};

const same: SameFormatHalf = {
  withUpstreamModel: (body, model) => ({ ...body, model }),
  withClientModel: (body, clientModel) => ({ ...(asRecord(body) ?? {}), model: clientModel }),
  // The text is edited only when it holds a single "model" key (requestTextWithModel checks), so
  // an answer whose echoed tools or metadata name a "model" field is serialised instead.
  editableModelText: true,
  passthroughTracker: () => responsesPassthrough,
  isPlainContentChunk: isPlainResponsesTextDelta,
  // Codex shows its plan's windows from the serving account's own usage headers (R21.6).
  answerHeaders: (headers) => pickHeaders(headers, ["x-codex-"], []),
};

export const responsesFormat: FormatHalves = { client, upstream, same };
