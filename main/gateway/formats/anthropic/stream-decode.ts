// Anthropic Messages SSE → hub stream events.

import { finishFromAnthropic } from "../finish.js";
import type { HubStreamEvent, HubUsage } from "../hub.js";
import { asNumber, asRecord, asString, parseJson, type JsonObject } from "../values.js";
import { mergeAnthropicRawUsage, usageFromAnthropic } from "./usage.js";

export class AnthropicStreamDecoder {
  /** Block type per index: deltas say which block they belong to, not what it is. */
  private readonly blockTypes = new Map<number, string>();
  private rawUsage: Record<string, unknown> = {};

  decode(evt: { event?: string; data: string }): HubStreamEvent[] {
    const payload = asRecord(parseJson(evt.data));
    if (!payload) return [];
    switch (asString(payload["type"]) ?? evt.event) {
      case "message_start": {
        const usage = this.addUsage(asRecord(payload["message"])?.["usage"]);
        return [usage ? { type: "start", usage } : { type: "start" }];
      }
      case "content_block_start":
        return this.blockStart(asNumber(payload["index"]) ?? 0, asRecord(payload["content_block"]) ?? {});
      case "content_block_delta":
        return this.blockDelta(asNumber(payload["index"]) ?? 0, asRecord(payload["delta"]) ?? {});
      case "message_delta": {
        const out: HubStreamEvent[] = [];
        const delta = asRecord(payload["delta"]);
        const finish = finishFromAnthropic(delta?.["stop_reason"]);
        if (finish) out.push({ type: "finish", reason: finish, stopSequence: asString(delta?.["stop_sequence"]) ?? null });
        const usage = this.addUsage(payload["usage"]);
        if (usage) out.push({ type: "usage", usage });
        return out;
      }
      case "message_stop":
        return [{ type: "done" }];
      case "ping":
        return [{ type: "ping" }];
      case "error": {
        const error = asRecord(payload["error"]);
        return [{ type: "error", message: asString(error?.["message"]) ?? "upstream error", errorType: asString(error?.["type"]) ?? "api_error" }];
      }
      default:
        return [];
    }
  }

  private addUsage(raw: unknown): HubUsage | undefined {
    if (asRecord(raw) === undefined) return undefined;
    this.rawUsage = mergeAnthropicRawUsage(this.rawUsage, raw);
    return usageFromAnthropic(this.rawUsage);
  }

  private blockStart(index: number, block: JsonObject): HubStreamEvent[] {
    const type = asString(block["type"]) ?? "";
    this.blockTypes.set(index, type);
    switch (type) {
      case "text": {
        const text = asString(block["text"]);
        return text ? [{ type: "text", text }] : [];
      }
      case "thinking": {
        const text = asString(block["thinking"]);
        return text ? [{ type: "reasoning", text }] : [];
      }
      case "redacted_thinking":
        return [{ type: "reasoning_redacted", data: asString(block["data"]) ?? "" }];
      case "tool_use": {
        const out: HubStreamEvent[] = [{ type: "tool_start", key: index, id: asString(block["id"]) ?? "", name: asString(block["name"]) ?? "" }];
        const input = asRecord(block["input"]);
        if (input && Object.keys(input).length > 0) out.push({ type: "tool_args", key: index, json: JSON.stringify(input) });
        return out;
      }
      default:
        return [];
    }
  }

  private blockDelta(index: number, delta: JsonObject): HubStreamEvent[] {
    switch (delta["type"]) {
      case "text_delta": {
        const text = asString(delta["text"]);
        return text ? [{ type: "text", text }] : [];
      }
      case "thinking_delta":
        // Empty thinking deltas still prove the model is alive (R13.4).
        return [{ type: "reasoning", text: asString(delta["thinking"]) ?? "" }];
      case "signature_delta":
        return [{ type: "reasoning_signature", signature: asString(delta["signature"]) ?? "" }];
      case "input_json_delta": {
        const json = asString(delta["partial_json"]);
        return json && this.blockTypes.get(index) === "tool_use" ? [{ type: "tool_args", key: index, json }] : [];
      }
      default:
        return [];
    }
  }
}
