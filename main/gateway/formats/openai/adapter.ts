// The OpenAI Chat Completions wire format.

import type { PassthroughTracker, WireAdapter } from "../adapter.js";
import { statusForCode } from "../errors.js";
import { sseFrame, sseJson } from "../sse.js";
import { arrayLength, asRecord } from "../values.js";
import { openaiErrorBody } from "./errors.js";
import { classifyOpenai, isOpenaiToolOrReasoning, isPlainOpenaiContentChunk, openaiTextDeltaBytes } from "./events.js";
import { hubToOpenaiRequest, openaiRequestToHub } from "./request.js";
import { hubToOpenaiResponse, openaiResponseToHub } from "./response.js";
import { OpenaiStreamDecoder } from "./stream-decode.js";
import { OpenaiStreamEncoder } from "./stream-encode.js";
import { usageFromOpenai } from "./usage.js";

const passthrough: PassthroughTracker = {
  track: (_evt, chunk) => ({
    usage: usageFromOpenai(chunk["usage"]),
    carriesModel: typeof chunk["model"] === "string",
    finished: Array.isArray(chunk["choices"]) && chunk["choices"].some((choice) => typeof asRecord(choice)?.["finish_reason"] === "string"),
  }),
  closing: () => [{ text: sseFrame("[DONE]"), kind: "done" }],
};

export const openaiAdapter: WireAdapter = {
  format: "openai",
  upstreamFormatFor: () => "openai",
  extraHeaders: () => ({}),

  path: () => "/chat/completions",
  authHeaders: (secret): Record<string, string> => (secret ? { authorization: `Bearer ${secret}` } : {}),
  isStreamRequest: (body) => body["stream"] === true,
  // The client opts in to the trailing usage chunk; translated upstream requests always ask for it.
  shapeProblem: () => null,
  toolCount: (body) => arrayLength(body["tools"]),
  wantsStreamUsage: (body) => asRecord(body["stream_options"])?.["include_usage"] === true,
  withUpstreamModel: (body, model) => ({ ...body, model }),
  toHub: openaiRequestToHub,
  fromHub: hubToOpenaiRequest,

  responseToHub: openaiResponseToHub,
  hubToResponse: hubToOpenaiResponse,
  withClientModel: (body, clientModel) => ({ ...(asRecord(body) ?? {}), model: clientModel }),
  usage: (body) => usageFromOpenai(asRecord(body)?.["usage"]),

  streamDecoder: (ctx) => new OpenaiStreamDecoder(ctx.requestId),
  streamEncoder: (ctx) => new OpenaiStreamEncoder(ctx),
  reasoningMarker: "openai",
  passthroughTracker: () => passthrough,
  isPlainContentChunk: isPlainOpenaiContentChunk,

  classify: classifyOpenai,
  textDeltaBytes: openaiTextDeltaBytes,
  isToolOrReasoningEvent: isOpenaiToolOrReasoning,

  errorBody: openaiErrorBody,
  errorFrame: (code, message) => sseJson(openaiErrorBody(statusForCode(code), code, message)),
  heartbeatFrame: ": keep-alive\n\n",
};
