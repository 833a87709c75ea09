// Same-format Anthropic streams: the blocks left open and the usage reported, so a stream the
// upstream cut short can still be closed with a well-formed message_delta and message_stop.

import type { PassthroughTracker } from "../adapter.js";
import type { HubUsage } from "../hub.js";
import { dataFrame } from "../sse.js";
import type { OutFrame, UpstreamEvent } from "../types.js";
import { asNumber, asRecord, asString, type JsonObject } from "../values.js";
import { mergeAnthropicRawUsage, usageFromAnthropic } from "./usage.js";

const NOTHING = { usage: undefined, carriesModel: false };

export class AnthropicPassthroughTracker implements PassthroughTracker {
  private sawMessageDelta = false;
  private readonly openBlocks = new Set<number>();
  private rawUsage: Record<string, unknown> = {};

  track(evt: UpstreamEvent, payload: JsonObject): { usage: HubUsage | undefined; carriesModel: boolean; finished?: boolean } {
    const index = asNumber(payload["index"]) ?? 0;
    switch (asString(payload["type"]) ?? evt.event) {
      case "message_start": {
        const message = asRecord(payload["message"]);
        return { usage: this.addUsage(message?.["usage"]), carriesModel: typeof message?.["model"] === "string" };
      }
      case "content_block_start":
        this.openBlocks.add(index);
        return NOTHING;
      case "content_block_stop":
        this.openBlocks.delete(index);
        return NOTHING;
      case "message_delta":
        this.sawMessageDelta = true;
        return { usage: this.addUsage(payload["usage"]), carriesModel: false, finished: typeof asRecord(payload["delta"])?.["stop_reason"] === "string" };
      default:
        return NOTHING;
    }
  }

  closing(usage: HubUsage): OutFrame[] {
    const frames: OutFrame[] = [...this.openBlocks].map((index) => dataFrame({ type: "content_block_stop", index }, "lifecycle", "content_block_stop"));
    if (!this.sawMessageDelta) {
      frames.push(
        dataFrame({ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: usage.outputTokens ?? 0 } }, "usage", "message_delta"),
      );
    }
    frames.push(dataFrame({ type: "message_stop" }, "done", "message_stop"));
    return frames;
  }

  private addUsage(raw: unknown): HubUsage | undefined {
    if (asRecord(raw) === undefined) return undefined;
    this.rawUsage = mergeAnthropicRawUsage(this.rawUsage, raw);
    return usageFromAnthropic(this.rawUsage);
  }
}
