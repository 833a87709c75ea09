// The Gemini generateContent wire format. Gemini names the model in the URL, never in the body.

import type { PassthroughTracker, WireAdapter } from "../adapter.js";
import { statusForCode } from "../errors.js";
import { sseJson } from "../sse.js";
import { asRecord } from "../values.js";
import { geminiErrorBody } from "./errors.js";
import { classifyGemini, geminiTextDeltaBytes, isGeminiToolOrReasoning } from "./events.js";
import { geminiRequestToHub } from "./request-in.js";
import { hubToGeminiRequest } from "./request-out.js";
import { geminiResponseToHub, hubToGeminiResponse } from "./response.js";
import { GeminiStreamDecoder } from "./stream-decode.js";
import { GeminiStreamEncoder } from "./stream-encode.js";
import { usageFromGemini } from "./usage.js";

// Gemini streams carry no model id to rewrite and have no closing frame of their own.
const passthrough: PassthroughTracker = {
  // Gemini has no closing event: the last chunk carries the candidate's finishReason.
  track: (_evt, chunk) => ({
    usage: usageFromGemini(chunk["usageMetadata"]),
    carriesModel: false,
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

export const geminiAdapter: WireAdapter = {
  format: "gemini",
  upstreamFormatFor: () => "gemini",
  extraHeaders: () => ({}),

  path: (model, stream) => {
    const name = model.startsWith("models/") ? model.slice("models/".length) : model;
    return stream ? `/models/${name}:streamGenerateContent?alt=sse` : `/models/${name}:generateContent`;
  },
  authHeaders: (secret): Record<string, string> => (secret ? { "x-goog-api-key": secret } : {}),
  isStreamRequest: (body) => body["stream"] === true,
  wantsStreamUsage: () => true,
  shapeProblem: () => null,
  toolCount,
  withUpstreamModel: (body) => body,
  toHub: geminiRequestToHub,
  fromHub: (hub, _model, dropped) => hubToGeminiRequest(hub, dropped),

  responseToHub: geminiResponseToHub,
  hubToResponse: hubToGeminiResponse,
  withClientModel: (body, clientModel) => ({ ...(asRecord(body) ?? {}), modelVersion: clientModel }),
  usage: (body) => usageFromGemini(asRecord(body)?.["usageMetadata"]),

  streamDecoder: (ctx) => new GeminiStreamDecoder(ctx.requestId),
  streamEncoder: (ctx) => new GeminiStreamEncoder(ctx),
  reasoningMarker: "gemini",
  passthroughTracker: () => passthrough,

  classify: (_evt, chunk) => classifyGemini(chunk),
  textDeltaBytes: geminiTextDeltaBytes,
  isToolOrReasoningEvent: isGeminiToolOrReasoning,

  errorBody: geminiErrorBody,
  errorFrame: (code, message) => sseJson(geminiErrorBody(statusForCode(code), code, message)),
  heartbeatFrame: ": keep-alive\n\n",
};
