// The Anthropic Messages wire format.

import { firstHeader, type WireAdapter } from "../adapter.js";
import { statusForCode } from "../errors.js";
import { sseJson } from "../sse.js";
import { arrayLength, asRecord } from "../values.js";
import { anthropicErrorBody } from "./errors.js";
import { anthropicTextDeltaBytes, classifyAnthropic, isAnthropicToolOrReasoning, isPlainAnthropicTextDelta } from "./events.js";
import { AnthropicPassthroughTracker } from "./passthrough.js";
import { anthropicRequestToHub } from "./request-in.js";
import { hubToAnthropicRequest } from "./request-out.js";
import { anthropicResponseToHub, hubToAnthropicResponse } from "./response.js";
import { AnthropicStreamDecoder } from "./stream-decode.js";
import { AnthropicStreamEncoder } from "./stream-encode.js";
import { usageFromAnthropic } from "./usage.js";

const DEFAULT_ANTHROPIC_VERSION = "2023-06-01";

export const anthropicAdapter: WireAdapter = {
  format: "anthropic",
  upstreamFormatFor: () => "anthropic",
  extraHeaders: () => ({}),

  path: () => "/v1/messages",
  // R1.2: an Anthropic client's anthropic-version and anthropic-beta reach an Anthropic upstream;
  // other clients never chose them, so they get the default version and no betas.
  authHeaders: (secret, clientHeaders, clientFormat) => {
    const fromAnthropicClient = clientFormat === "anthropic";
    const headers: Record<string, string> = {
      "anthropic-version": (fromAnthropicClient && firstHeader(clientHeaders, "anthropic-version")) || DEFAULT_ANTHROPIC_VERSION,
    };
    const beta = fromAnthropicClient ? clientHeaders["anthropic-beta"] : undefined;
    if (beta) headers["anthropic-beta"] = Array.isArray(beta) ? beta.join(",") : beta;
    if (secret) headers["x-api-key"] = secret;
    return headers;
  },
  isStreamRequest: (body) => body["stream"] === true,
  wantsStreamUsage: () => true,
  toolCount: (body) => arrayLength(body["tools"]),
  shapeProblem: (body) =>
    Number.isInteger(body["max_tokens"]) && (body["max_tokens"] as number) > 0 ? null : "max_tokens: required positive integer",
  withUpstreamModel: (body, model) => ({ ...body, model }),
  toHub: anthropicRequestToHub,
  fromHub: hubToAnthropicRequest,

  responseToHub: (body) => anthropicResponseToHub(body),
  hubToResponse: hubToAnthropicResponse,
  withClientModel: (body, clientModel) => ({ ...(asRecord(body) ?? {}), model: clientModel }),
  usage: (body) => usageFromAnthropic(asRecord(body)?.["usage"]),

  streamDecoder: () => new AnthropicStreamDecoder(),
  // Thinking that did not come from Anthropic carries a marker signature naming its origin.
  streamEncoder: (ctx, upstream) => new AnthropicStreamEncoder(ctx, upstream.reasoningMarker ?? "openai"),
  reasoningMarker: null,
  passthroughTracker: () => new AnthropicPassthroughTracker(),
  isPlainContentChunk: isPlainAnthropicTextDelta,

  classify: classifyAnthropic,
  textDeltaBytes: anthropicTextDeltaBytes,
  isToolOrReasoningEvent: isAnthropicToolOrReasoning,

  errorBody: anthropicErrorBody,
  errorFrame: (code, message) => sseJson(anthropicErrorBody(statusForCode(code), code, message), "error"),
  heartbeatFrame: 'event: ping\ndata: {"type":"ping"}\n\n',
};
