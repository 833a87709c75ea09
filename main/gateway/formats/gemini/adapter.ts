// The Gemini generateContent wire format: both halves. Gemini names the model in the URL, never
// in the body: the client half reads the call from the path (R17.1), and the route puts the model
// and `stream` into the body it hands on, which the same-format half takes out again.

import { GEMINI_MODEL_ROUTES } from "./models.js";
import { geminiContract } from "./contract.js";
import type { ClientHalf, FormatHalves, PassthroughTracker, PathGeneration, SameFormatHalf, UpstreamHalf } from "../adapter.js";
import { isRecord } from "../../../../shared/records.js";
import { contentText, lastUserText, partText } from "../textParts.js";
import { geminiContinuation } from "./continuation.js";
import { geminiArtifacts, geminiForeignStripped } from "./reasoning-artifacts.js";
import { geminiPathCall } from "./paths.js";
import { KEY_BODY } from "../login.js";
import { promptTextOfHub } from "../promptText.js";
import { estimateHubInputTokens } from "../tokens.js";
import { asRecord, DroppedFields } from "../values.js";
import { geminiContextOverflow, geminiErrorBody, geminiErrorFrame } from "./errors.js";
import { classifyGemini, geminiTextDeltaBytes, isGeminiToolOrReasoning } from "./events.js";
import { geminiRequestToHub } from "./request-in.js";
import { hubToGeminiRequest } from "./request-out.js";
import { geminiResponseToHub, hubToGeminiResponse } from "./response.js";
import { GeminiStreamDecoder } from "./stream-decode.js";
import { GeminiStreamEncoder } from "./stream-encode.js";
import { usageFromGemini } from "./usage.js";

// Gemini streams name their model in modelVersion and have no closing frame of their own.
const passthrough: PassthroughTracker = {
  // Gemini has no closing event: the last chunk carries the candidate's finishReason.
  track: (_evt, chunk) => ({
    usage: usageFromGemini(chunk["usageMetadata"]),
    carriesModel: typeof chunk["modelVersion"] === "string",
    finished: Array.isArray(chunk["candidates"]) && chunk["candidates"].some((c) => typeof asRecord(c)?.["finishReason"] === "string"),
  }),
  closing: () => [],
};

/** Gemini groups function declarations inside each tool; a group without them counts as one tool. */
function toolCount(body: Record<string, unknown>): number {
  const tools = body["tools"];
  if (!Array.isArray(tools)) return 0;
  return tools.reduce<number>((n, group) => {
    const declarations = asRecord(group)?.["functionDeclarations"];
    return n + (Array.isArray(declarations) ? declarations.length : 1);
  }, 0);
}

/** R17.1: generateContent answers JSON; streamGenerateContent SSE with alt=sse, else a streamed JSON array. */
function generationPathCall(path: string, query: string): PathGeneration | null {
  const call = geminiPathCall(path);
  if (!call) return null;
  if (call.method === "countTokens") return { model: call.model, stream: false, framing: "sse", count: true };
  const stream = call.method === "streamGenerateContent";
  return { model: call.model, stream, framing: stream && new URLSearchParams(query).get("alt") === "sse" ? "sse" : stream ? "json-array" : "sse" };
}

/** R24.1: Google's own credentials, an API key `AIza…` or an OAuth access token `ya29.…`. */
const GOOGLE_API_KEY = new RegExp(`^AIza${KEY_BODY}{20,}$`);
const GOOGLE_OAUTH_TOKEN = /^ya29\.[A-Za-z0-9_.-]{10,}$/;

const client: ClientHalf = {
  format: "gemini",
  generationPaths: [],
  generationPathCall,
  compactPaths: [],
  webSocketTurns: false,
  modelRoutes: GEMINI_MODEL_ROUTES,
  routePrefixes: ["/v1beta/"],
  trafficTexts: (body) => {
    const instruction = body["systemInstruction"] ?? body["system_instruction"];
    return { system: [isRecord(instruction) ? contentText(instruction["parts"], false) : partText(instruction)], lastUser: lastUserText(body["contents"]) };
  },
  reasoningArtifacts: geminiArtifacts,
  foreignReasoningStripped: geminiForeignStripped,
  // R21.1: a Gemini key in its header or in `?key=` (sent upstream in the header), or an OAuth token
  // as a Bearer. R24.1: a key must be Google's `AIza…`, a Bearer Google's `ya29.…` token.
  login: {
    credentialHeaders: ["x-goog-api-key", "authorization"],
    companions: [],
    queryKeyHeader: "x-goog-api-key",
    accepts: (header, credential) => (header === "authorization" ? GOOGLE_OAUTH_TOKEN : GOOGLE_API_KEY).test(credential),
    subscription: () => false,
  },
  // R17.1: `models/{model}:countTokens`, the model in the path.
  count: { paths: [], upstreamPath: (model) => `/models/${model}:countTokens`, upstreamBody: (body) => body, estimateBody: (tokens) => ({ totalTokens: tokens }) },
  shapeProblem: (body) => (Array.isArray(body["contents"]) && body["contents"].length > 0 ? null : "contents: required non-empty array"),
  isStreamRequest: (body) => body["stream"] === true,
  toolCount,
  wantsStreamUsage: () => true,
  toHub: geminiRequestToHub,
  promptText: (body) => promptTextOfHub(geminiRequestToHub(body, new DroppedFields())),
  estimateInputTokens: (body) => estimateHubInputTokens(geminiRequestToHub(body, new DroppedFields())),
  sessionHint: () => null,
  hasCacheHint: (body) => typeof body["cachedContent"] === "string",

  hubToResponse: (hub, ctx) => hubToGeminiResponse(hub, ctx.clientModel, ctx.requestId),
  streamEncoder: (ctx) => new GeminiStreamEncoder(ctx),
  continuation: geminiContinuation,

  errorBody: geminiErrorBody,
  errorFrame: geminiErrorFrame,
  contextOverflowMessage: geminiContextOverflow,
  // CLIENTS.md: the Gemini CLI's SDK fails on an SSE comment before content but takes a bare newline.
  heartbeatFrame: "\n",
};

const upstream: UpstreamHalf = {
  format: "gemini",
  upstreamFormatFor: () => "gemini",
  takesPrefill: false,
  pricingProvider: "google",
  limitsPerModel: true,
  baseUrlConvention: "a Gemini base URL goes up to the version, e.g. https://generativelanguage.googleapis.com/v1beta",
  contract: geminiContract,
  // Google states no quota windows in its answers.
  quotaHeaders: [],
  extraHeaders: () => ({}),
  path: (model, stream) => {
    const name = model.startsWith("models/") ? model.slice("models/".length) : model;
    return stream ? `/models/${name}:streamGenerateContent?alt=sse` : `/models/${name}:generateContent`;
  },
  authHeaders: (secret): Record<string, string> => (secret ? { "x-goog-api-key": secret } : {}),
  fromHub: (hub, _model, dropped) => hubToGeminiRequest(hub, dropped),
  responseToHub: geminiResponseToHub,
  usage: (body) => usageFromGemini(asRecord(body)?.["usageMetadata"]),
  streamDecoder: (ctx) => new GeminiStreamDecoder(ctx.requestId),
  reasoningMarker: "gemini",
  classify: (_evt, chunk) => classifyGemini(chunk),
  textDeltaBytes: geminiTextDeltaBytes,
  isToolOrReasoningEvent: isGeminiToolOrReasoning,
};

const same: SameFormatHalf = {
  // The model goes in the path; `model` and `stream` were put in by the route, Google knows neither.
  withUpstreamModel: ({ model: _model, stream: _stream, ...body }) => body,
  withClientModel: (body, clientModel) => ({ ...(asRecord(body) ?? {}), modelVersion: clientModel }),
  editableModelText: false,
  modelInPath: true,
  streamModelKey: "modelVersion",
  passthroughTracker: () => passthrough,
};

export const geminiFormat: FormatHalves = { client, upstream, same };
