// Hub stream events → OpenAI chat.completion.chunk SSE: a role chunk, deltas, a chunk with
// finish_reason, an optional usage chunk (choices: []), then `data: [DONE]`.

import { finishToOpenai } from "../finish.js";
import { emptyUsage, mergeUsage, type HubStreamEvent, type HubUsage } from "../hub.js";
import { FrameTemplate } from "../frameTemplate.js";
import { messageId } from "../ids.js";
import { dataFrame, sseFrame } from "../sse.js";
import type { FrameKind, OutFrame, TranslateContext } from "../types.js";
import { usageToOpenai } from "./usage.js";

export class OpenaiStreamEncoder {
  private started = false;
  private finished = false;
  private finishSent = false;
  private readonly toolIndex = new Map<number, number>();
  private usage: HubUsage = emptyUsage();
  private readonly id: string;
  private readonly created = Math.floor(Date.now() / 1000);
  /** The text-delta chunk, serialised around its text once per stream. */
  private textChunk: FrameTemplate<[string]> | null = null;

  constructor(private readonly ctx: TranslateContext) {
    this.id = messageId("chatcmpl-", ctx.requestId);
  }

  encode(event: HubStreamEvent): OutFrame[] {
    if (this.finished) return [];
    switch (event.type) {
      case "start":
        if (event.usage) this.usage = mergeUsage(this.usage, event.usage);
        return this.ensureStarted();
      case "text":
        return event.text === "" ? [] : [...this.ensureStarted(), this.text(event.text)];
      case "reasoning":
        // Empty reasoning deltas are kept: they are the liveness signal of a thinking model.
        return [...this.ensureStarted(), this.chunk({ reasoning_content: event.text }, "reasoning")];
      case "tool_start": {
        const index = this.toolIndex.size;
        this.toolIndex.set(event.key, index);
        const call: Record<string, unknown> = { index, id: event.id, type: "function", function: { name: event.name, arguments: "" } };
        if (event.thoughtSignature !== undefined) call["extra_content"] = { google: { thought_signature: event.thoughtSignature } };
        return [...this.ensureStarted(), this.chunk({ tool_calls: [call] }, "tool")];
      }
      case "tool_args": {
        const index = this.toolIndex.get(event.key);
        if (index === undefined) return [];
        return [this.chunk({ tool_calls: [{ index, function: { arguments: event.json } }] }, "tool")];
      }
      case "finish":
        if (this.finishSent) return [];
        this.finishSent = true;
        return [...this.ensureStarted(), this.chunk({}, "lifecycle", finishToOpenai(event.reason))];
      case "usage":
        this.usage = mergeUsage(this.usage, event.usage);
        return [];
      case "error":
        this.finished = true;
        return [dataFrame({ error: { message: event.message, type: event.errorType ?? "server_error", code: event.code ?? null } }, "error")];
      case "done":
        return this.close();
      case "reasoning_signature":
      case "reasoning_redacted":
      case "ping":
        return [];
    }
  }

  end(): OutFrame[] {
    return this.finished || !this.started ? [] : this.close();
  }

  private base(): Record<string, unknown> {
    return { id: this.id, object: "chat.completion.chunk", created: this.created, model: this.ctx.clientModel };
  }

  private chunkData(delta: Record<string, unknown>, finishReason: string | null): Record<string, unknown> {
    return { ...this.base(), choices: [{ index: 0, delta, finish_reason: finishReason }] };
  }

  private chunk(delta: Record<string, unknown>, kind: FrameKind, finishReason: string | null = null): OutFrame {
    return dataFrame(this.chunkData(delta, finishReason), kind);
  }

  private text(text: string): OutFrame {
    this.textChunk ??= new FrameTemplate(1, (content: string) => this.chunkData({ content }, null));
    return this.textChunk.frame("content", text);
  }

  private ensureStarted(): OutFrame[] {
    if (this.started) return [];
    this.started = true;
    return [this.chunk({ role: "assistant", content: "" }, "lifecycle")];
  }

  private close(): OutFrame[] {
    const frames = this.ensureStarted();
    this.finished = true;
    if (!this.finishSent) {
      this.finishSent = true;
      frames.push(this.chunk({}, "lifecycle", this.toolIndex.size > 0 ? "tool_calls" : "stop"));
    }
    if (this.ctx.includeUsage !== false) {
      frames.push(dataFrame({ ...this.base(), choices: [], usage: usageToOpenai(this.usage) }, "usage"));
    }
    frames.push({ text: sseFrame("[DONE]"), kind: "done" });
    return frames;
  }
}
