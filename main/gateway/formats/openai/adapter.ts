// The OpenAI Chat Completions wire format: both halves.

import { OPENAI_MODEL_ROUTES } from "./models.js";
import { OPENAI_COUNT_HEADERS } from "./quota.js";
import { openaiContract } from "./contract.js";
import { OPENAI_LOGIN } from "../login.js";
import type { ClientHalf, FormatHalves, PassthroughTracker, SameFormatHalf, UpstreamHalf } from "../adapter.js";
import { lastUserText, leadingSystemText } from "../textParts.js";
import { chatContinuation } from "./continuation.js";
import { promptTextOfHub } from "../promptText.js";
import { sseFrame } from "../sse.js";
import { estimateHubInputTokens } from "../tokens.js";
import { arrayLength, asRecord, DroppedFields } from "../values.js";
import { openaiContextOverflow, openaiErrorBody, openaiErrorFrame } from "./errors.js";
import { classifyOpenai, isOpenaiToolOrReasoning, isPlainOpenaiContentChunk, openaiTextDeltaBytes } from "./events.js";
import { hubToOpenaiRequest, openaiRequestToHub } from "./request.js";
import { hubToOpenaiResponse, openaiResponseToHub } from "./response.js";
import { OpenaiStreamDecoder } from "./stream-decode.js";
import { OpenaiStreamEncoder } from "./stream-encode.js";
import { usageFromOpenai } from "./usage.js";
import { cacheControlHint, messagesShapeProblem, metadataSessionHint } from "../shape.js";

const passthrough: PassthroughTracker = {
  track: (_evt, chunk) => ({
    usage: usageFromOpenai(chunk["usage"]),
    carriesModel: typeof chunk["model"] === "string",
    finished: Array.isArray(chunk["choices"]) && chunk["choices"].some((choice) => typeof asRecord(choice)?.["finish_reason"] === "string"),
  }),
  closing: () => [{ text: sseFrame("[DONE]"), kind: "done" }],
};

const client: ClientHalf = {
  format: "openai",
  generationPaths: ["/v1/chat/completions"],
  count: null,
  compactPaths: [],
  // Chat is the /v1 family's default: what no other format's prefix claims is answered as chat.
  webSocketTurns: false,
  modelRoutes: OPENAI_MODEL_ROUTES,
  routePrefixes: ["/v1/"],
  trafficTexts: (body) => ({ system: [leadingSystemText(body["messages"])], lastUser: lastUserText(body["messages"]) }),
  reasoningArtifacts: null,
  foreignReasoningStripped: null,
  login: OPENAI_LOGIN,
  shapeProblem: messagesShapeProblem,
  isStreamRequest: (body) => body["stream"] === true,
  toolCount: (body) => arrayLength(body["tools"]),
  // The client opts in to the trailing usage chunk; translated upstream requests always ask for it.
  wantsStreamUsage: (body) => asRecord(body["stream_options"])?.["include_usage"] === true,
  toHub: openaiRequestToHub,
  promptText: (body) => promptTextOfHub(openaiRequestToHub(body, new DroppedFields())),
  estimateInputTokens: (body) => estimateHubInputTokens(openaiRequestToHub(body, new DroppedFields())),
  sessionHint: metadataSessionHint,
  hasCacheHint: cacheControlHint,

  hubToResponse: (hub, ctx) => hubToOpenaiResponse(hub, ctx.clientModel, ctx.requestId),
  streamEncoder: (ctx) => new OpenaiStreamEncoder(ctx),
  continuation: chatContinuation,

  errorBody: openaiErrorBody,
  errorFrame: openaiErrorFrame,
  contextOverflowMessage: openaiContextOverflow,
  heartbeatFrame: ": keep-alive\n\n",
};

const upstream: UpstreamHalf = {
  format: "openai",
  upstreamFormatFor: () => "openai",
  takesPrefill: false,
  pricingProvider: "openai",
  limitsPerModel: false,
  baseUrlConvention: "an OpenAI base URL includes the version path, e.g. https://api.openai.com/v1",
  contract: openaiContract,
  quotaHeaders: [OPENAI_COUNT_HEADERS],
  extraHeaders: () => ({}),
  path: () => "/chat/completions",
  authHeaders: (secret): Record<string, string> => (secret ? { authorization: `Bearer ${secret}` } : {}),
  fromHub: hubToOpenaiRequest,
  responseToHub: openaiResponseToHub,
  usage: (body) => usageFromOpenai(asRecord(body)?.["usage"]),
  streamDecoder: (ctx) => new OpenaiStreamDecoder(ctx.requestId),
  reasoningMarker: "openai",
  classify: classifyOpenai,
  textDeltaBytes: openaiTextDeltaBytes,
  isToolOrReasoningEvent: isOpenaiToolOrReasoning,
};

const same: SameFormatHalf = {
  withUpstreamModel: (body, model) => ({ ...body, model }),
  withClientModel: (body, clientModel) => ({ ...(asRecord(body) ?? {}), model: clientModel }),
  editableModelText: true,
  passthroughTracker: () => passthrough,
  isPlainContentChunk: isPlainOpenaiContentChunk,
};

export const openaiFormat: FormatHalves = { client, upstream, same };
