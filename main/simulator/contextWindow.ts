// R25.2: a simulated model with a context window. A generation whose prompt (counted as the
// simulator counts usage: a token per four characters) is larger than the window is refused with
// the vendor's own context error, as each API words it: OpenAI's `context_length_exceeded`, the
// Responses API's (no numbers), Anthropic's "prompt is too long: N tokens > M maximum" and Gemini's
// INVALID_ARGUMENT naming both counts.
import type { WireFormat } from "./types.js";

export interface ContextRefusal {
  status: number;
  body: Record<string, unknown>;
}

/** The prompt's tokens as the simulator's usage counts them. */
export const promptTokens = (promptChars: number): number => Math.max(1, Math.ceil(promptChars / 4));

/** The vendor's refusal of a prompt of `tokens` over a window of `window`, or null when it fits. */
export function contextRefusal(format: WireFormat, window: number | undefined, tokens: number): ContextRefusal | null {
  if (window === undefined || tokens <= window) return null;
  switch (format) {
    case "openai":
      return {
        status: 400,
        body: {
          error: {
            message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
            type: "invalid_request_error",
            param: "messages",
            code: "context_length_exceeded",
          },
        },
      };
    case "openai-responses":
      return {
        status: 400,
        body: {
          error: {
            message: "Your input exceeds the context window of this model. Please adjust your input and try again.",
            type: "invalid_request_error",
            param: "input",
            code: "context_length_exceeded",
          },
        },
      };
    case "anthropic":
      return { status: 400, body: { type: "error", error: { type: "invalid_request_error", message: `prompt is too long: ${tokens} tokens > ${window} maximum` } } };
    case "gemini":
      return {
        status: 400,
        body: { error: { code: 400, message: `The input token count (${tokens}) exceeds the maximum number of tokens allowed (${window}).`, status: "INVALID_ARGUMENT" } },
      };
  }
}
