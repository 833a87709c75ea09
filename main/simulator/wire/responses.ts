// The OpenAI Responses API as an upstream speaks it (R16.6): the response object, its typed SSE
// events with `sequence_number`, and the compaction answer Codex reads. Shapes follow OpenAI's API
// reference (the `openai` SDK's Response* types) and Codex's parser (codex-rs/codex-api sse/responses.rs).
import { chunkText } from "../reply.js";
import { isRecord } from "../records.js";
import { boundId, randomId, seal } from "./artifacts.js";
import { openaiWriter } from "./openai.js";
import { THINKING_TEXT, type Frame, type ReplyContext, type StreamPlan, type WireWriter } from "./plan.js";

const KEEP_ALIVE = ": keep-alive\n\n";
const REASONING_SUMMARY = THINKING_TEXT.trimEnd();

type Obj = Record<string, unknown>;

/** Everything one answer renders: ids fixed up front, the reasoning summary as it grows while streaming. */
interface Draft {
  ctx: ReplyContext;
  body: Obj;
  /** A reasoning item leads the output (the request set `reasoning`, or a reasoningOnlyMs fault streams one). */
  reasoning: boolean;
  encrypted: boolean;
  reasoningId: string;
  summary: string;
  /** Sealed once the summary is final, so every event and the final response carry the same blob. */
  sealed?: string;
  itemId: string;
  callId: string;
}

/** OpenAI's `reasoning.effort: "none"` turns reasoning off. */
function wantsReasoning(body: Obj): boolean {
  return isRecord(body.reasoning) && body.reasoning.effort !== "none";
}

function draft(ctx: ReplyContext, withThinking: boolean): Draft {
  const body = isRecord(ctx.body) ? ctx.body : {};
  const reply = ctx.answer.reply;
  const itemPrefix = reply.kind === "text" ? "msg" : reply.freeform ? "ctc" : "fc";
  return {
    ctx,
    body,
    reasoning: withThinking || wantsReasoning(body),
    encrypted: Array.isArray(body.include) && body.include.includes("reasoning.encrypted_content"),
    reasoningId: boundId(ctx.key, "rs"),
    summary: "",
    itemId: randomId(itemPrefix),
    callId: randomId("call", 12),
  };
}

function outputText(text: string): Obj {
  return { type: "output_text", text, annotations: [], logprobs: [] };
}

function reasoningItem(d: Draft): Obj {
  const item: Obj = { id: d.reasoningId, type: "reasoning", summary: d.summary ? [{ type: "summary_text", text: d.summary }] : [] };
  if (d.encrypted) item.encrypted_content = d.sealed ??= seal(d.ctx.key, d.reasoningId, d.summary);
  return item;
}

/** The answer's own item; `done` false gives the empty in-progress form `output_item.added` carries. */
function answerItem(d: Draft, done: boolean): Obj {
  const reply = d.ctx.answer.reply;
  const status = done ? "completed" : "in_progress";
  if (reply.kind === "text") {
    return { id: d.itemId, type: "message", status, role: "assistant", content: done ? [outputText(reply.text)] : [] };
  }
  if (reply.freeform) {
    return { id: d.itemId, type: "custom_tool_call", status, call_id: d.callId, name: reply.name, input: done ? reply.args : "" };
  }
  return { id: d.itemId, type: "function_call", status, arguments: done ? reply.args : "", call_id: d.callId, name: reply.name };
}

function reasoningTokens(d: Draft): number {
  return d.reasoning ? Math.max(1, Math.ceil(d.summary.length / 4)) : 0;
}

/** `output` includes `reasoning`, as OpenAI counts it. */
function usageObject(input: number, output: number, reasoning: number, cached = 0): Obj {
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: cached },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: reasoning },
    total_tokens: input + output,
  };
}

function usage(d: Draft): Obj {
  const { input, output, cacheRead } = d.ctx.answer.usage;
  const reasoning = reasoningTokens(d);
  return usageObject(input, output + reasoning, reasoning, cacheRead);
}

function echo(value: unknown, fallback: unknown): unknown {
  return value === undefined ? fallback : value;
}

function responseObject(d: Draft, done: boolean): Obj {
  const { body, ctx } = d;
  const reasoning = isRecord(body.reasoning) ? body.reasoning : {};
  const output = done ? (d.reasoning ? [reasoningItem(d), answerItem(d, true)] : [answerItem(d, true)]) : [];
  return {
    id: ctx.id,
    object: "response",
    created_at: ctx.created,
    status: done ? "completed" : "in_progress",
    background: false,
    error: null,
    incomplete_details: null,
    instructions: echo(body.instructions, null),
    max_output_tokens: echo(body.max_output_tokens, null),
    model: ctx.model,
    output,
    parallel_tool_calls: echo(body.parallel_tool_calls, true),
    previous_response_id: echo(body.previous_response_id, null),
    prompt_cache_key: echo(body.prompt_cache_key, null),
    reasoning: { effort: echo(reasoning.effort, null), summary: echo(reasoning.summary, null) },
    store: echo(body.store, true),
    text: echo(body.text, { format: { type: "text" } }),
    tool_choice: echo(body.tool_choice, "auto"),
    tools: echo(body.tools, []),
    truncation: "disabled",
    usage: done ? usage(d) : null,
    metadata: echo(body.metadata, {}),
  };
}

/** One typed event; its fields may be computed when it is written (they read the growing summary). */
function event(type: string, fields: Obj | (() => Obj)): Frame {
  return (sequence) => {
    const data = { type, sequence_number: sequence, ...(typeof fields === "function" ? fields() : fields) };
    return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
  };
}

function reasoningFrames(d: Draft): { start: Frame[]; delta: (piece: string) => Frame; end: Frame[] } {
  const at = { item_id: d.reasoningId, output_index: 0, summary_index: 0 };
  return {
    start: [
      event("response.output_item.added", { output_index: 0, item: { id: d.reasoningId, type: "reasoning", summary: [] } }),
      event("response.reasoning_summary_part.added", { ...at, part: { type: "summary_text", text: "" } }),
    ],
    delta: (piece) =>
      event("response.reasoning_summary_text.delta", () => {
        d.summary += piece;
        return { ...at, delta: piece };
      }),
    end: [
      event("response.reasoning_summary_text.done", () => ({ ...at, text: d.summary })),
      event("response.reasoning_summary_part.done", () => ({ ...at, part: { type: "summary_text", text: d.summary } })),
      event("response.output_item.done", () => ({ output_index: 0, item: reasoningItem(d) })),
    ],
  };
}

/** Frames of the answer's item: `open` announces it, `content` carries the deltas faults count, `close` finishes it. */
function answerFrames(d: Draft): { open: Frame[]; content: Frame[]; close: Frame[] } {
  const reply = d.ctx.answer.reply;
  const output_index = d.reasoning ? 1 : 0;
  const at = { item_id: d.itemId, output_index };
  const open = [event("response.output_item.added", { output_index, item: answerItem(d, false) })];
  const itemDone = event("response.output_item.done", { output_index, item: answerItem(d, true) });
  if (reply.kind === "text") {
    const part = { ...at, content_index: 0 };
    open.push(event("response.content_part.added", { ...part, part: outputText("") }));
    return {
      open,
      content: reply.chunks.map((delta) => event("response.output_text.delta", { ...part, delta, logprobs: [] })),
      close: [
        event("response.output_text.done", { ...part, text: reply.text, logprobs: [] }),
        event("response.content_part.done", { ...part, part: outputText(reply.text) }),
        itemDone,
      ],
    };
  }
  if (reply.freeform) {
    return {
      open,
      content: reply.argChunks.map((delta) => event("response.custom_tool_call_input.delta", { ...at, delta })),
      close: [event("response.custom_tool_call_input.done", { ...at, input: reply.args }), itemDone],
    };
  }
  return {
    open,
    content: reply.argChunks.map((delta) => event("response.function_call_arguments.delta", { ...at, delta })),
    close: [event("response.function_call_arguments.done", { ...at, name: reply.name, arguments: reply.args }), itemDone],
  };
}

export const responsesWriter: WireWriter = {
  json(ctx) {
    const d = draft(ctx, false);
    if (d.reasoning) d.summary = REASONING_SUMMARY;
    return responseObject(d, true);
  },

  stream(ctx, withThinking): StreamPlan {
    const d = draft(ctx, withThinking);
    const head: Frame[] = [
      event("response.created", () => ({ response: responseObject(d, false) })),
      event("response.in_progress", () => ({ response: responseObject(d, false) })),
    ];
    const reasoning = d.reasoning ? reasoningFrames(d) : null;
    // Reasoning asked for by the request streams ahead of the answer at once; a reasoningOnlyMs fault stretches it instead.
    if (reasoning && !withThinking) head.push(...reasoning.start, ...chunkText(REASONING_SUMMARY).map(reasoning.delta), ...reasoning.end);
    const answer = answerFrames(d);
    return {
      head,
      thinking: reasoning && withThinking ? { start: reasoning.start, frame: reasoning.delta(THINKING_TEXT), end: reasoning.end } : null,
      open: answer.open,
      content: answer.content,
      tail: [...answer.close, event("response.completed", () => ({ response: responseObject(d, true) }))],
      keepAlive: KEEP_ALIVE,
    };
  },

  error: openaiWriter.error,
};

/**
 * R21.9: the event a Responses stream ends with when the account's usage limit runs out inside a 200:
 * `response.failed` with error code `usage_limit_reached`, or `response.incomplete` with that reason.
 */
export function usageLimitEnd(ctx: ReplyContext, as: "failed" | "incomplete", message: string): Frame {
  const d = draft(ctx, false);
  const ending: Obj = as === "failed" ? { error: { code: "usage_limit_reached", message } } : { incomplete_details: { reason: "usage_limit_reached" } };
  return event(`response.${as}`, () => ({ response: { ...responseObject(d, false), status: as, ...ending } }));
}

function userMessages(input: unknown): Obj[] {
  if (typeof input === "string") return [{ type: "message", role: "user", content: [{ type: "input_text", text: input }] }];
  if (!Array.isArray(input)) return [];
  const kept: Obj[] = [];
  for (const item of input) {
    if (!isRecord(item) || item.role !== "user" || (item.type !== undefined && item.type !== "message")) continue;
    const content = typeof item.content === "string" ? [{ type: "input_text", text: item.content }] : item.content;
    kept.push({ type: "message", role: "user", content });
  }
  return kept;
}

/**
 * POST /responses/compact. Codex (codex-rs/codex-api/src/endpoint/compact.rs) reads only `output`,
 * a list of its ResponseItems, and keeps a `compaction` item's `encrypted_content` for the next turn;
 * OpenAI's CompactedResponse adds id, object "response.compaction", created_at and usage. The output is
 * the request's user messages followed by one compaction item sealed to the key like reasoning (R16.7).
 */
export function compactionAnswer(ctx: ReplyContext): unknown {
  const body = isRecord(ctx.body) ? ctx.body : {};
  const messages = userMessages(body.input).map((message) => ({ id: randomId("msg"), status: "completed", ...message }));
  const id = boundId(ctx.key, "cmp");
  const summary = `Simulated summary of ${Array.isArray(body.input) ? body.input.length : 1} input items.`;
  return {
    id: ctx.id,
    object: "response.compaction",
    created_at: ctx.created,
    output: [...messages, { id, type: "compaction", encrypted_content: seal(ctx.key, id, summary) }],
    usage: usageObject(ctx.answer.usage.input, Math.max(1, Math.ceil(summary.length / 4)), 0),
  };
}
