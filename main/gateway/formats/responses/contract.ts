// R23.4: what an OpenAI Responses upstream must do for the clients Switchyard serves, as the
// contract doctor checks it and says it.
import type { UpstreamContract } from "../adapter.js";
import { OPENAI_ERROR_SHAPE } from "../openai/contract.js";

export const responsesContract: UpstreamContract = {
  title: "OpenAI Responses",
  isAnswer: (body) => body["object"] === "response" || Array.isArray(body["output"]),
  errorShape: OPENAI_ERROR_SHAPE,
  usageFields: "usage.input_tokens and usage.output_tokens",
  streamEnd: "response.completed",
  streamUsageAsk: null,
};
