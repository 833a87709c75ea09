// Hub stream events → Gemini streamGenerateContent SSE. Gemini streams whole function
// calls, so argument fragments are collected until the call is complete.

import { finishToGemini } from "../finish.js";
import { FrameTemplate } from "../frameTemplate.js";
import { emptyUsage, mergeUsage, type HubFinish, type HubStreamEvent, type HubUsage } from "../hub.js";
import { dataFrame } from "../sse.js";
import type { FrameKind, OutFrame, TranslateContext } from "../types.js";
import { argumentsToObject } from "../values.js";
import { usageToGemini } from "./usage.js";

interface PendingCall {
  id: string;
  name: string;
  args: string;
  thoughtSignature?: string;
}

export class GeminiStreamEncoder {
  private started = false;
  private finished = false;
  private pending: PendingCall | null = null;
  private finish: HubFinish | null = null;
  private usage: HubUsage = emptyUsage();
  /** The text chunk, serialised around its text once per stream. */
  private textChunk: FrameTemplate<[string]> | null = null;

  constructor(private readonly ctx: TranslateContext) {}

  encode(event: HubStreamEvent): OutFrame[] {
    if (this.finished) return [];
    switch (event.type) {
      case "start":
        this.started = true;
        if (event.usage) this.usage = mergeUsage(this.usage, event.usage);
        return [];
      case "text":
        return event.text === "" ? [] : [...this.flushCall(), this.text(event.text)];
      case "reasoning":
        return event.text === "" ? [] : [...this.flushCall(), this.frame([{ text: event.text, thought: true }], "reasoning")];
      case "tool_start": {
        const frames = this.flushCall();
        this.pending = { id: event.id, name: event.name, args: "", ...(event.thoughtSignature !== undefined ? { thoughtSignature: event.thoughtSignature } : {}) };
        return frames;
      }
      case "tool_args":
        if (this.pending) this.pending.args += event.json;
        return [];
      case "finish":
        this.finish = event.reason;
        return [];
      case "usage":
        this.usage = mergeUsage(this.usage, event.usage);
        return [];
      case "error":
        this.finished = true;
        return [dataFrame({ error: { code: 500, message: event.message, status: "INTERNAL" } }, "error")];
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

  private chunk(parts: Record<string, unknown>[], final: boolean): Record<string, unknown> {
    const candidate: Record<string, unknown> = { content: { role: "model", parts }, index: 0 };
    if (final) candidate["finishReason"] = finishToGemini(this.finish ?? "stop");
    const body: Record<string, unknown> = { candidates: [candidate] };
    if (final) body["usageMetadata"] = usageToGemini(this.usage);
    body["modelVersion"] = this.ctx.clientModel;
    body["responseId"] = this.ctx.requestId;
    return body;
  }

  private frame(parts: Record<string, unknown>[], kind: FrameKind, final = false): OutFrame {
    return dataFrame(this.chunk(parts, final), kind);
  }

  private text(text: string): OutFrame {
    this.textChunk ??= new FrameTemplate(1, (value: string) => this.chunk([{ text: value }], false));
    return this.textChunk.frame("content", text);
  }

  private flushCall(): OutFrame[] {
    const call = this.pending;
    if (!call) return [];
    this.pending = null;
    const part: Record<string, unknown> = { functionCall: { id: call.id, name: call.name, args: argumentsToObject(call.args) } };
    if (call.thoughtSignature !== undefined) part["thoughtSignature"] = call.thoughtSignature;
    return [this.frame([part], "tool")];
  }

  private close(): OutFrame[] {
    const frames = this.flushCall();
    this.finished = true;
    frames.push(this.frame([], "usage", true));
    return frames;
  }
}
