// R23.4: what an OpenAI Chat Completions upstream must do for the clients Switchyard serves, as
// the contract doctor checks it and says it.
import type { ErrorShape, UpstreamContract } from "../adapter.js";

/**
 * OpenAI's {error: {message, type, code}}, whose code is a string or null: neither a top-level
 * type "error" around a typed error (Anthropic's) nor a numeric code beside a status (Google's).
 * The Responses API shares it.
 */
export const OPENAI_ERROR_SHAPE: ErrorShape = {
  title: "OpenAI's {error: {message, type}}",
  matches: (body, error) => !(body["type"] === "error" && typeof error["type"] === "string") && !(typeof error["code"] === "number" && typeof error["status"] === "string"),
};

export const openaiContract: UpstreamContract = {
  title: "OpenAI Chat Completions",
  isAnswer: (body) => Array.isArray(body["choices"]),
  errorShape: OPENAI_ERROR_SHAPE,
  usageFields: "usage.prompt_tokens and usage.completion_tokens",
  streamEnd: "a finish_reason, then data: [DONE]",
  // A chat stream reports usage only when asked; every streaming request Switchyard sends asks.
  streamUsageAsk: "stream_options.include_usage",
};
