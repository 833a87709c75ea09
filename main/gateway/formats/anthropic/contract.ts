// R23.4: what an Anthropic Messages upstream must do for the clients Switchyard serves, as the
// contract doctor checks it and says it.
import type { UpstreamContract } from "../adapter.js";

export const anthropicContract: UpstreamContract = {
  title: "Anthropic Messages",
  isAnswer: (body) => body["type"] === "message" && Array.isArray(body["content"]),
  errorShape: {
    title: 'Anthropic\'s {type: "error", error: {type, message}}',
    matches: (body, error) => body["type"] === "error" && typeof error["type"] === "string",
  },
  usageFields: "usage.input_tokens and usage.output_tokens",
  streamEnd: "message_delta with a stop_reason, then message_stop",
  streamUsageAsk: null,
};
