// Hub stream events → Anthropic Messages SSE, with the exact event sequence clients expect:
// message_start, per block content_block_start / _delta… / _stop, message_delta, message_stop.

import { finishToAnthropic } from "../finish.js";
import { FrameTemplate } from "../frameTemplate.js";
import { emptyUsage, mergeUsage, type HubFinish, type HubStreamEvent, type HubUsage, type ReasoningOrigin } from "../hub.js";
import { messageId } from "../ids.js";
import { markerSignature } from "../reasoning.js";
import { dataFrame } from "../sse.js";
import type { FrameKind, OutFrame, TranslateContext } from "../types.js";
import { usageToAnthropic } from "./usage.js";

type BlockKind = "text" | "thinking" | "tool";

interface OpenBlock {
  index: number;
  kind: BlockKind;
  toolKey?: number;
  signed: boolean;
}

const ANTHROPIC_ERROR_TYPES = new Set([
  "invalid_request_error",
  "authentication_error",
  "billing_error",
  "permission_error",
  "not_found_error",
  "request_too_large",
  "rate_limit_error",
  "api_error",
  "overloaded_error",
  "timeout_error",
]);

function frame(event: string, payload: Record<string, unknown>, kind: FrameKind): OutFrame {
  return dataFrame(payload, kind, event);
}

const deltaData = (index: number, delta: Record<string, unknown>): Record<string, unknown> => ({ type: "content_block_delta", index, delta });

/** The text delta, the one frame of most of a stream, serialised around its block index and text once. */
const TEXT_DELTA = new FrameTemplate(2, (index: number, text: string) => deltaData(index, { type: "text_delta", text }), "content_block_delta");

export class AnthropicStreamEncoder {
  private started = false;
  private finished = false;
  private block: OpenBlock | null = null;
  private nextIndex = 0;
  private finish: HubFinish | null = null;
  private stopSequence: string | null = null;
  private usage: HubUsage = emptyUsage();
  private sawTool = false;

  constructor(
    private readonly ctx: TranslateContext,
    private readonly origin: Exclude<ReasoningOrigin, "anthropic">,
  ) {}

  encode(event: HubStreamEvent): OutFrame[] {
    if (this.finished) return [];
    switch (event.type) {
      case "start":
        if (event.usage) this.usage = mergeUsage(this.usage, event.usage);
        return this.ensureStarted();
      case "text":
        if (event.text === "") return [];
        return [...this.openBlock("text"), TEXT_DELTA.frame("content", this.block?.index ?? 0, event.text)];
      case "reasoning":
        return [...this.openBlock("thinking"), this.delta({ type: "thinking_delta", thinking: event.text }, "reasoning")];
      case "reasoning_signature":
        if (this.block?.kind !== "thinking") return [];
        this.block.signed = true;
        return [this.delta({ type: "signature_delta", signature: event.signature }, "reasoning")];
      case "reasoning_redacted":
        return this.redactedBlock(event.data);
      case "tool_start":
        this.sawTool = true;
        return [...this.ensureStarted(), ...this.closeBlock(), this.startBlock({ type: "tool_use", id: event.id, name: event.name, input: {} }, "tool", "tool", event.key)];
      case "tool_args":
        if (this.block?.kind !== "tool" || this.block.toolKey !== event.key) return [];
        return [this.delta({ type: "input_json_delta", partial_json: event.json }, "tool")];
      case "finish":
        this.finish = event.reason;
        this.stopSequence = event.stopSequence ?? null;
        return [];
      case "usage":
        this.usage = mergeUsage(this.usage, event.usage);
        return [];
      case "ping":
        return this.started ? [frame("ping", { type: "ping" }, "lifecycle")] : [];
      case "error": {
        this.finished = true;
        const type = event.errorType !== undefined && ANTHROPIC_ERROR_TYPES.has(event.errorType) ? event.errorType : "api_error";
        return [frame("error", { type: "error", error: { type, message: event.message } }, "error")];
      }
      case "done":
        return this.close();
    }
  }

  end(): OutFrame[] {
    return this.finished || !this.started ? [] : this.close();
  }

  private ensureStarted(): OutFrame[] {
    if (this.started) return [];
    this.started = true;
    const usage = usageToAnthropic(this.usage);
    return [
      frame(
        "message_start",
        {
          type: "message_start",
          message: {
            id: messageId("msg_", this.ctx.requestId),
            type: "message",
            role: "assistant",
            model: this.ctx.clientModel,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { ...usage, output_tokens: 0 },
          },
        },
        "lifecycle",
      ),
    ];
  }

  private startBlock(contentBlock: Record<string, unknown>, kind: BlockKind, frameKind: FrameKind, toolKey?: number): OutFrame {
    const index = this.nextIndex;
    this.nextIndex += 1;
    this.block = { index, kind, signed: false, ...(toolKey !== undefined ? { toolKey } : {}) };
    return frame("content_block_start", { type: "content_block_start", index, content_block: contentBlock }, frameKind);
  }

  private openBlock(kind: "text" | "thinking"): OutFrame[] {
    if (this.block?.kind === kind) return [];
    const frames = [...this.ensureStarted(), ...this.closeBlock()];
    frames.push(
      kind === "text"
        ? this.startBlock({ type: "text", text: "" }, "text", "lifecycle")
        : this.startBlock({ type: "thinking", thinking: "", signature: "" }, "thinking", "reasoning"),
    );
    return frames;
  }

  private delta(delta: Record<string, unknown>, kind: FrameKind): OutFrame {
    return frame("content_block_delta", deltaData(this.block?.index ?? 0, delta), kind);
  }

  private closeBlock(): OutFrame[] {
    const block = this.block;
    if (!block) return [];
    const frames: OutFrame[] = [];
    // A thinking block must end signed; the marker tells Switchyard where it came from.
    if (block.kind === "thinking" && !block.signed) {
      frames.push(this.delta({ type: "signature_delta", signature: markerSignature(this.origin) }, "reasoning"));
    }
    frames.push(frame("content_block_stop", { type: "content_block_stop", index: block.index }, "lifecycle"));
    this.block = null;
    return frames;
  }

  private redactedBlock(data: string): OutFrame[] {
    const frames = [...this.ensureStarted(), ...this.closeBlock()];
    frames.push(this.startBlock({ type: "redacted_thinking", data }, "thinking", "reasoning"));
    this.block = null;
    frames.push(frame("content_block_stop", { type: "content_block_stop", index: this.nextIndex - 1 }, "lifecycle"));
    return frames;
  }

  private close(): OutFrame[] {
    const frames = [...this.ensureStarted(), ...this.closeBlock()];
    this.finished = true;
    const reason = this.finish ?? (this.sawTool ? "tool_calls" : "stop");
    frames.push(
      frame(
        "message_delta",
        { type: "message_delta", delta: { stop_reason: finishToAnthropic(reason), stop_sequence: this.stopSequence }, usage: usageToAnthropic(this.usage) },
        "usage",
      ),
    );
    frames.push(frame("message_stop", { type: "message_stop" }, "done"));
    return frames;
  }
}
