// Same-format streams: every frame is the upstream event re-serialised (same event name,
// same data string), except the model id, which becomes the id the client asked for.

import type { WireFormat } from "../../../shared/types.js";
import { classifyParsed } from "./classify.js";
import { emptyUsage, mergeUsage, type HubUsage } from "./hub.js";
import { sseFrame, sseJson } from "./sse.js";
import { isProgressKind, type OutFrame, type StreamTranslator, type TranslateContext, type UpstreamEvent } from "./types.js";
import { mergeAnthropicRawUsage, summariseUsage, usageFromAnthropic, usageFromGemini, usageFromOpenai } from "./usage.js";
import { asNumber, asRecord, asString, parseJson } from "./values.js";

const MODEL_FIELD = /("model"\s*:\s*)"(?:[^"\\]|\\.)*"/;

/**
 * Rewrites the first "model" key in the text. In JSON text an unescaped `"model"` followed
 * by a colon can only be a key, never string content; the first such key is the chunk's own
 * (OpenAI) or message_start's message.model (Anthropic), as content is still empty there.
 */
function rewriteModel(data: string, model: string): string {
  // Fast path for the compact JSON every upstream sends: `"model":"<id>"` with no escapes.
  const at = data.indexOf('"model":"');
  if (at !== -1) {
    const start = at + 9;
    const end = data.indexOf('"', start);
    if (end !== -1 && data.lastIndexOf("\\", end) < start) return data.slice(0, start - 1) + JSON.stringify(model) + data.slice(end + 1);
  }
  return data.replace(MODEL_FIELD, (_match, prefix: string) => `${prefix}${JSON.stringify(model)}`);
}

export class PassthroughTranslator implements StreamTranslator {
  private started = false;
  private completed = false;
  private content = false;
  private sawMessageDelta = false;
  private readonly openBlocks = new Set<number>();
  private total: HubUsage = emptyUsage();
  private anthropicUsage: Record<string, unknown> = {};

  constructor(
    private readonly format: WireFormat,
    private readonly ctx: TranslateContext,
  ) {}

  push(evt: UpstreamEvent): OutFrame[] {
    const isDone = evt.data.trim() === "[DONE]";
    const parsed = isDone ? undefined : parseJson(evt.data);
    const kind = classifyParsed(this.format, evt, parsed);
    if (isProgressKind(kind)) this.content = true;
    if (kind === "error" || kind === "done") this.completed = true;
    this.started = true;
    const data = this.track(evt, asRecord(parsed)) ? rewriteModel(evt.data, this.ctx.clientModel) : evt.data;
    return [{ text: sseFrame(data, evt.event), kind }];
  }

  end(): OutFrame[] {
    if (this.completed || !this.started) return [];
    this.completed = true;
    if (this.format === "openai") return [{ text: sseFrame("[DONE]"), kind: "done" }];
    if (this.format === "gemini") return [];
    const frames: OutFrame[] = [...this.openBlocks].map((index) => ({
      text: sseJson({ type: "content_block_stop", index }, "content_block_stop"),
      kind: "lifecycle" as const,
    }));
    if (!this.sawMessageDelta) {
      frames.push({
        text: sseJson(
          { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: this.total.outputTokens ?? 0 } },
          "message_delta",
        ),
        kind: "usage",
      });
    }
    frames.push({ text: sseJson({ type: "message_stop" }, "message_stop"), kind: "done" });
    return frames;
  }

  usage(): ReturnType<StreamTranslator["usage"]> {
    return summariseUsage(this.total);
  }

  hasContent(): boolean {
    return this.content;
  }

  /** Updates stream state; returns whether this event carries the model id to rewrite. */
  private track(evt: UpstreamEvent, payload: Record<string, unknown> | undefined): boolean {
    if (!payload) return false;
    if (this.format === "openai") {
      this.addUsage(usageFromOpenai(payload["usage"]));
      return typeof payload["model"] === "string";
    }
    if (this.format === "gemini") {
      this.addUsage(usageFromGemini(payload["usageMetadata"]));
      return false;
    }
    const index = asNumber(payload["index"]) ?? 0;
    switch (asString(payload["type"]) ?? evt.event) {
      case "message_start": {
        const message = asRecord(payload["message"]);
        this.addAnthropicUsage(message?.["usage"]);
        return typeof message?.["model"] === "string";
      }
      case "content_block_start":
        this.openBlocks.add(index);
        return false;
      case "content_block_stop":
        this.openBlocks.delete(index);
        return false;
      case "message_delta":
        this.sawMessageDelta = true;
        this.addAnthropicUsage(payload["usage"]);
        return false;
      default:
        return false;
    }
  }

  private addAnthropicUsage(raw: unknown): void {
    if (asRecord(raw) === undefined) return;
    this.anthropicUsage = mergeAnthropicRawUsage(this.anthropicUsage, raw);
    this.addUsage(usageFromAnthropic(this.anthropicUsage));
  }

  private addUsage(usage: HubUsage | undefined): void {
    if (usage) this.total = mergeUsage(this.total, usage);
  }
}
