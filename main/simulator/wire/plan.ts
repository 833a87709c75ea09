import type { Answer } from "../reply.js";

/** Everything a wire writer needs to render one simulated answer. */
export interface ReplyContext {
  id: string;
  model: string;
  /** Epoch seconds. */
  created: number;
  answer: Answer;
  /** OpenAI `stream_options.include_usage`. */
  includeUsage: boolean;
  /** The request body, for writers whose answer echoes or depends on request fields (Responses). */
  body: unknown;
  /** The API key the request presented: Responses binds its reasoning artifacts to it (R16.7). */
  key: string | null;
}

/**
 * One SSE frame: ready text, or a renderer that receives the stream's next sequence number
 * (Responses numbers its events, and a repeated reasoning frame cannot be numbered ahead).
 */
export type Frame = string | ((sequence: number) => string);

/** The thinking/reasoning part of a stream: opening frames, one repeatable progress frame, closing frames. */
export interface ThinkingFrames {
  start: Frame[];
  frame: Frame;
  end: Frame[];
}

/**
 * A whole SSE stream as ready-to-write frames, in order:
 * head, thinking (only when asked), open, content, tail. Head and open are lifecycle
 * frames; content frames are the ones faults count.
 */
export interface StreamPlan {
  head: Frame[];
  thinking: ThinkingFrames | null;
  open: Frame[];
  content: Frame[];
  tail: Frame[];
  /** A keep-alive frame (Anthropic ping or SSE comment) carrying no output. */
  keepAlive: string;
}

export interface WireWriter {
  json(ctx: ReplyContext): unknown;
  stream(ctx: ReplyContext, withThinking: boolean): StreamPlan;
  error(status: number, message: string): unknown;
}

export const THINKING_TEXT = "Considering the request. ";

export function dataFrame(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

/** Short default messages for simulated error statuses. */
export function defaultErrorMessage(status: number): string {
  if (status === 429) return "Rate limit exceeded (simulated)";
  if (status === 401) return "Invalid API key (simulated)";
  if (status === 403) return "Permission denied (simulated)";
  if (status === 404) return "Not found (simulated)";
  if (status === 400) return "Bad request (simulated)";
  if (status === 529 || status === 503) return "Overloaded (simulated)";
  if (status >= 500) return "Internal server error (simulated)";
  return `Simulated error ${status}`;
}
