import { seal } from "./artifacts.js";
import { THINKING_TEXT, type ReplyContext, type StreamPlan, type WireWriter } from "./plan.js";
import { geminiThinking } from "./signatures.js";

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

const THOUGHT_PART = { text: THINKING_TEXT, thought: true };

/**
 * The answer's parts, one per text piece: the first functionCall always carries a thoughtSignature
 * sealed with the request's key (as Gemini 3 sends it), the first text part only when the request
 * configures thinking (R20.1).
 */
function answerParts(ctx: ReplyContext, pieces: string[]): Record<string, unknown>[] {
  const reply = ctx.answer.reply;
  const signature = { thoughtSignature: seal(ctx.key, ctx.id, THINKING_TEXT) };
  if (reply.kind === "tool") return [{ functionCall: { name: reply.name, args: reply.input }, ...signature }];
  const signed = geminiThinking(ctx.body).configured;
  return pieces.map((text, i) => (i === 0 && signed ? { text, ...signature } : { text }));
}

/** The chunk objects of a streamed answer, shared by the SSE and the JSON-array forms; `lead` is the thought chunk `includeThoughts` asks for. */
export function geminiChunks(ctx: ReplyContext): { lead: Record<string, unknown>[]; content: Record<string, unknown>[]; final: Record<string, unknown> } {
  const reply = ctx.answer.reply;
  const content = answerParts(ctx, reply.kind === "text" ? reply.chunks : []).map((part) => candidateChunk(ctx, [part]));
  const lead = geminiThinking(ctx.body).includeThoughts ? [candidateChunk(ctx, [THOUGHT_PART])] : [];
  return { lead, content, final: candidateChunk(ctx, [{ text: "" }], "STOP") };
}

export const geminiWriter: WireWriter = {
  json(ctx) {
    const reply = ctx.answer.reply;
    const parts = answerParts(ctx, reply.kind === "text" ? [reply.text] : []);
    if (geminiThinking(ctx.body).includeThoughts) parts.unshift(THOUGHT_PART);
    return {
      candidates: [{ content: { parts, role: "model" }, finishReason: "STOP", index: 0 }],
      usageMetadata: usageMetadata(ctx),
      modelVersion: ctx.model,
      responseId: ctx.id,
    };
  },

  stream(ctx, withThinking): StreamPlan {
    const { lead, content, final } = geminiChunks(ctx);
    return {
      // A reasoningOnlyMs fault repeats the thought chunk instead.
      head: withThinking ? [] : lead.map(geminiFrame),
      thinking: withThinking ? { start: [], frame: geminiFrame(candidateChunk(ctx, [THOUGHT_PART])), end: [] } : null,
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
