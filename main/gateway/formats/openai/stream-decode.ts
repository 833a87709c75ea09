// OpenAI chat.completion.chunk SSE → hub stream events.

import { finishFromOpenai } from "../finish.js";
import type { HubStreamEvent } from "../hub.js";
import { syntheticToolId } from "../ids.js";
import { asArray, asNumber, asRecord, asString, parseJson } from "../values.js";
import { plainOpenaiContent } from "./events.js";
import { usageFromOpenai } from "./usage.js";

export class OpenaiStreamDecoder {
  private started = false;
  private readonly toolKeys = new Set<number>();

  constructor(private readonly requestId: string) {}

  decode(evt: { event?: string; data: string }): HubStreamEvent[] {
    // Most chunks of an answer are plain text deltas: their text is all they say (issue 33).
    const plain = plainOpenaiContent(evt.data);
    if (plain !== null) return this.plainText(plain);
    if (evt.data.trim() === "[DONE]") return [{ type: "done" }];
    const chunk = asRecord(parseJson(evt.data));
    if (!chunk) return [];
    const error = asRecord(chunk["error"]);
    if (error) {
      const code = asString(error["code"]);
      return [
        {
          type: "error",
          message: asString(error["message"]) ?? "upstream error",
          errorType: asString(error["type"]) ?? "server_error",
          ...(code !== undefined ? { code } : {}),
        },
      ];
    }
    const out: HubStreamEvent[] = [];
    if (!this.started) {
      this.started = true;
      out.push({ type: "start" });
    }
    const choice = asRecord(asArray(chunk["choices"])[0]);
    const delta = asRecord(choice?.["delta"]);
    if (delta) this.decodeDelta(delta, out);
    const finish = finishFromOpenai(choice?.["finish_reason"]);
    if (finish) out.push({ type: "finish", reason: finish });
    const usage = usageFromOpenai(chunk["usage"]);
    if (usage) out.push({ type: "usage", usage });
    return out;
  }

  private plainText(text: string): HubStreamEvent[] {
    if (this.started) return [{ type: "text", text }];
    this.started = true;
    return [{ type: "start" }, { type: "text", text }];
  }

  private decodeDelta(delta: Record<string, unknown>, out: HubStreamEvent[]): void {
    const reasoning = asString(delta["reasoning_content"]) ?? asString(delta["reasoning"]);
    if (reasoning) out.push({ type: "reasoning", text: reasoning });
    const text = asString(delta["content"]) || asString(delta["refusal"]);
    if (text) out.push({ type: "text", text });
    asArray(delta["tool_calls"]).forEach((raw, position) => {
      const call = asRecord(raw);
      if (!call) return;
      const key = asNumber(call["index"]) ?? position;
      const fn = asRecord(call["function"]);
      if (!this.toolKeys.has(key)) {
        const id = asString(call["id"]) || syntheticToolId(this.requestId, this.toolKeys.size);
        this.toolKeys.add(key);
        const signature = asString(asRecord(asRecord(call["extra_content"])?.["google"])?.["thought_signature"]);
        out.push({ type: "tool_start", key, id, name: asString(fn?.["name"]) ?? "", ...(signature !== undefined ? { thoughtSignature: signature } : {}) });
      }
      const args = asString(fn?.["arguments"]);
      if (args) out.push({ type: "tool_args", key, json: args });
    });
  }
}
