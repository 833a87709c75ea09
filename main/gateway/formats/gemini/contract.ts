// R23.4: what a Gemini generateContent upstream must do for the clients Switchyard serves, as the
// contract doctor checks it and says it.
import type { UpstreamContract } from "../adapter.js";

export const geminiContract: UpstreamContract = {
  title: "Gemini generateContent",
  isAnswer: (body) => Array.isArray(body["candidates"]),
  errorShape: {
    title: "Google's {error: {code, message, status}}",
    matches: (_body, error) => typeof error["code"] === "number" && typeof error["status"] === "string",
  },
  usageFields: "usageMetadata.promptTokenCount and candidatesTokenCount",
  streamEnd: "a chunk with a finishReason",
  streamUsageAsk: null,
};
