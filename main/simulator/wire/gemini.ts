import { THINKING_TEXT, type ReplyContext, type StreamPlan, type WireWriter } from "./plan.js";

const KEEP_ALIVE = ": keep-alive\r\n\r\n";

/** Gemini's SSE frames end in CRLF pairs, as the real service sends them. */
function geminiFrame(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\r\n\r\n`;
}

function errorStatus(status: number): string {
  if (status === 400) return "INVALID_ARGUMENT";
  if (status === 401) return "UNAUTHENTICATED";
  if (status === 403) return "PERMISSION_DENIED";
  if (status === 404) return "NOT_FOUND";
  if (status === 429) return "RESOURCE_EXHAUSTED";
  if (status === 503 || status === 529) return "UNAVAILABLE";
  if (status === 504) return "DEADLINE_EXCEEDED";
  if (status >= 500) return "INTERNAL";
  return "FAILED_PRECONDITION";
}

function usageMetadata(ctx: ReplyContext) {
  const { input, output, cacheRead } = ctx.answer.usage;
  return { promptTokenCount: input, candidatesTokenCount: output, totalTokenCount: input + output, ...(cacheRead ? { cachedContentTokenCount: cacheRead } : {}) };
}

function candidateChunk(ctx: ReplyContext, parts: unknown[], finish?: string): Record<string, unknown> {
  const candidate: Record<string, unknown> = { content: { parts, role: "model" }, index: 0 };
  if (finish) candidate.finishReason = finish;
  const payload: Record<string, unknown> = { candidates: [candidate], modelVersion: ctx.model, responseId: ctx.id };
  if (finish) payload.usageMetadata = usageMetadata(ctx);
  return payload;
}

/** The chunk objects of a streamed answer, shared by the SSE and the JSON-array forms. */
export function geminiChunks(ctx: ReplyContext): { content: Record<string, unknown>[]; final: Record<string, unknown> } {
  const reply = ctx.answer.reply;
  const content =
    reply.kind === "tool" ? [candidateChunk(ctx, [{ functionCall: { name: reply.name, args: reply.input } }])] : reply.chunks.map((text) => candidateChunk(ctx, [{ text }]));
  return { content, final: candidateChunk(ctx, [{ text: "" }], "STOP") };
}

export const geminiWriter: WireWriter = {
  json(ctx) {
    const reply = ctx.answer.reply;
    const parts = reply.kind === "tool" ? [{ functionCall: { name: reply.name, args: reply.input } }] : [{ text: reply.text }];
    return {
      candidates: [{ content: { parts, role: "model" }, finishReason: "STOP", index: 0 }],
      usageMetadata: usageMetadata(ctx),
      modelVersion: ctx.model,
      responseId: ctx.id,
    };
  },

  stream(ctx, withThinking): StreamPlan {
    const { content, final } = geminiChunks(ctx);
    return {
      head: [],
      thinking: withThinking ? { start: [], frame: geminiFrame(candidateChunk(ctx, [{ text: THINKING_TEXT, thought: true }])), end: [] } : null,
      open: [],
      content: content.map(geminiFrame),
      tail: [geminiFrame(final)],
      keepAlive: KEEP_ALIVE,
    };
  },

  error(status, message) {
    return { error: { code: status, message, status: errorStatus(status) } };
  },
};
