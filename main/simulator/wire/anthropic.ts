import { seal } from "./artifacts.js";
import { THINKING_TEXT, type Frame, type ReplyContext, type StreamPlan, type ThinkingFrames, type WireWriter } from "./plan.js";
import { anthropicThinking } from "./signatures.js";

export const ANTHROPIC_TOOL_USE_ID = "toolu_sim_1";
const PING = event("ping", { type: "ping" });

function event(type: string, payload: unknown): string {
  return `event: ${type}\ndata: ${JSON.stringify(payload)}\n\n`;
}

function errorType(status: number): string {
  if (status === 400) return "invalid_request_error";
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 413) return "request_too_large";
  if (status === 429) return "rate_limit_error";
  if (status === 529 || status === 503) return "overloaded_error";
  if (status >= 500) return "api_error";
  return "invalid_request_error";
}

function stopReason(ctx: ReplyContext): string {
  return ctx.answer.reply.kind === "tool" ? "tool_use" : "end_turn";
}

function blockDelta(index: number, delta: unknown): string {
  return event("content_block_delta", { type: "content_block_delta", index, delta });
}

/** Anthropic counts cache reads and writes apart from input_tokens. */
function promptUsage(ctx: ReplyContext): Record<string, number> {
  const { input, cacheRead = 0, cacheWrite = 0 } = ctx.answer.usage;
  return { input_tokens: input - cacheRead - cacheWrite, cache_creation_input_tokens: cacheWrite, cache_read_input_tokens: cacheRead };
}

/** The thinking block at index 0, its signature sealing the text it streamed with the request's key (R20.1). */
function thinkingFrames(ctx: ReplyContext): ThinkingFrames {
  let text = "";
  const delta: Frame = () => {
    text += THINKING_TEXT;
    return blockDelta(0, { type: "thinking_delta", thinking: THINKING_TEXT });
  };
  return {
    start: [event("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } })],
    frame: delta,
    end: [() => blockDelta(0, { type: "signature_delta", signature: seal(ctx.key, ctx.id, text) }), event("content_block_stop", { type: "content_block_stop", index: 0 })],
  };
}

/** An SSE `error` event, as Anthropic ends a stream it cannot finish (R21.9: `rate_limit_error` for a used-up window). */
export function anthropicErrorEvent(status: number, message: string): string {
  return event("error", { type: "error", error: { type: errorType(status), message } });
}

export const anthropicWriter: WireWriter = {
  json(ctx) {
    const reply = ctx.answer.reply;
    const content: unknown[] =
      reply.kind === "tool" ? [{ type: "tool_use", id: ANTHROPIC_TOOL_USE_ID, name: reply.name, input: reply.input }] : [{ type: "text", text: reply.text }];
    if (anthropicThinking(ctx.body)) content.unshift({ type: "thinking", thinking: THINKING_TEXT, signature: seal(ctx.key, ctx.id, THINKING_TEXT) });
    return {
      id: ctx.id,
      type: "message",
      role: "assistant",
      model: ctx.model,
      content,
      stop_reason: stopReason(ctx),
      stop_sequence: null,
      usage: { ...promptUsage(ctx), output_tokens: ctx.answer.usage.output },
    };
  },

  stream(ctx, withThinking): StreamPlan {
    const reply = ctx.answer.reply;
    // A reasoningOnlyMs fault stretches the thinking block; thinking the request enables streams at once.
    const thinking = withThinking || anthropicThinking(ctx.body) ? thinkingFrames(ctx) : null;
    const index = thinking ? 1 : 0;
    const messageStart = event("message_start", {
      type: "message_start",
      message: {
        id: ctx.id,
        type: "message",
        role: "assistant",
        model: ctx.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...promptUsage(ctx), output_tokens: 1 },
      },
    });
    const block = reply.kind === "tool" ? { type: "tool_use", id: ANTHROPIC_TOOL_USE_ID, name: reply.name, input: {} } : { type: "text", text: "" };
    const content =
      reply.kind === "tool"
        ? reply.argChunks.map((piece) => blockDelta(index, { type: "input_json_delta", partial_json: piece }))
        : reply.chunks.map((piece) => blockDelta(index, { type: "text_delta", text: piece }));
    return {
      head: thinking && !withThinking ? [messageStart, ...thinking.start, thinking.frame, ...thinking.end] : [messageStart],
      thinking: withThinking ? thinking : null,
      open: [event("content_block_start", { type: "content_block_start", index, content_block: block }), PING],
      content,
      tail: [
        event("content_block_stop", { type: "content_block_stop", index }),
        event("message_delta", {
          type: "message_delta",
          delta: { stop_reason: stopReason(ctx), stop_sequence: null },
          usage: { output_tokens: ctx.answer.usage.output },
        }),
        event("message_stop", { type: "message_stop" }),
      ],
      keepAlive: PING,
    };
  },

  error(status, message) {
    return { type: "error", error: { type: errorType(status), message } };
  },
};
