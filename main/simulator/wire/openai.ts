import { dataFrame, THINKING_TEXT, type ReplyContext, type StreamPlan, type WireWriter } from "./plan.js";

export const OPENAI_TOOL_CALL_ID = "call_sim_1";
const DONE = "data: [DONE]\n\n";
const KEEP_ALIVE = ": keep-alive\n\n";

function errorShape(status: number): { type: string; code: string } {
  if (status === 400) return { type: "invalid_request_error", code: "invalid_request" };
  if (status === 401) return { type: "authentication_error", code: "invalid_api_key" };
  if (status === 403) return { type: "permission_error", code: "permission_denied" };
  if (status === 404) return { type: "invalid_request_error", code: "model_not_found" };
  if (status === 429) return { type: "rate_limit_error", code: "rate_limit_exceeded" };
  if (status === 503 || status === 529) return { type: "server_error", code: "overloaded" };
  if (status >= 500) return { type: "server_error", code: "server_error" };
  return { type: "invalid_request_error", code: `http_${status}` };
}

function usageOf(ctx: ReplyContext) {
  const { input, output, cacheRead } = ctx.answer.usage;
  const usage: Record<string, unknown> = { prompt_tokens: input, completion_tokens: output, total_tokens: input + output };
  if (cacheRead) usage.prompt_tokens_details = { cached_tokens: cacheRead };
  return usage;
}

function finishReason(ctx: ReplyContext): string {
  return ctx.answer.reply.kind === "tool" ? "tool_calls" : "stop";
}

function chunk(ctx: ReplyContext, delta: unknown, finish: string | null): string {
  const payload: Record<string, unknown> = {
    id: ctx.id,
    object: "chat.completion.chunk",
    created: ctx.created,
    model: ctx.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  };
  if (ctx.includeUsage) payload.usage = null;
  return dataFrame(payload);
}

export const openaiWriter: WireWriter = {
  json(ctx) {
    const reply = ctx.answer.reply;
    const message =
      reply.kind === "tool"
        ? {
            role: "assistant",
            content: null,
            tool_calls: [{ id: OPENAI_TOOL_CALL_ID, type: "function", function: { name: reply.name, arguments: reply.args } }],
          }
        : { role: "assistant", content: reply.text };
    return {
      id: ctx.id,
      object: "chat.completion",
      created: ctx.created,
      model: ctx.model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(ctx) }],
      usage: usageOf(ctx),
    };
  },

  stream(ctx, withThinking): StreamPlan {
    const reply = ctx.answer.reply;
    const content: string[] = [];
    if (reply.kind === "tool") {
      content.push(chunk(ctx, { tool_calls: [{ index: 0, id: OPENAI_TOOL_CALL_ID, type: "function", function: { name: reply.name, arguments: "" } }] }, null));
      for (const piece of reply.argChunks) content.push(chunk(ctx, { tool_calls: [{ index: 0, function: { arguments: piece } }] }, null));
    } else {
      for (const piece of reply.chunks) content.push(chunk(ctx, { content: piece }, null));
    }
    const tail = [chunk(ctx, {}, finishReason(ctx))];
    if (ctx.includeUsage) {
      tail.push(dataFrame({ id: ctx.id, object: "chat.completion.chunk", created: ctx.created, model: ctx.model, choices: [], usage: usageOf(ctx) }));
    }
    tail.push(DONE);
    return {
      head: [chunk(ctx, { role: "assistant", content: "" }, null)],
      thinking: withThinking ? { start: [], frame: chunk(ctx, { reasoning_content: THINKING_TEXT }, null), end: [] } : null,
      open: [],
      content,
      tail,
      keepAlive: KEEP_ALIVE,
    };
  },

  error(status, message) {
    const { type, code } = errorShape(status);
    return { error: { message, type, param: null, code } };
  },
};
