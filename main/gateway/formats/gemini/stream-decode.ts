// Gemini streamGenerateContent (alt=sse) → hub stream events. Each event is a whole
// GenerateContentResponse; function calls arrive complete, never as argument fragments.

import { finishFromGemini } from "../finish.js";
import type { HubStreamEvent } from "../hub.js";
import { asNumber, asRecord, asString, parseJson } from "../values.js";
import { geminiAssistantParts, geminiCandidate } from "./response.js";
import { usageFromGemini } from "./usage.js";

export class GeminiStreamDecoder {
  private started = false;
  private toolCount = 0;

  constructor(private readonly requestId: string) {}

  decode(evt: { event?: string; data: string }): HubStreamEvent[] {
    const chunk = asRecord(parseJson(evt.data));
    if (!chunk) return [];
    const error = asRecord(chunk["error"]);
    if (error) {
      const status = asString(error["status"]);
      return [{ type: "error", message: asString(error["message"]) ?? "upstream error", errorType: status ?? String(asNumber(error["code"]) ?? 500) }];
    }
    const usage = usageFromGemini(chunk["usageMetadata"]);
    const out: HubStreamEvent[] = [];
    if (!this.started) {
      this.started = true;
      out.push(usage ? { type: "start", usage } : { type: "start" });
    }
    const candidate = geminiCandidate(chunk);
    for (const part of geminiAssistantParts(asRecord(candidate?.["content"])?.["parts"], this.requestId, this.toolCount)) {
      if (part.type === "text") {
        if (part.text !== "") out.push({ type: "text", text: part.text });
      } else if (part.type === "reasoning") {
        if (part.text !== "") out.push({ type: "reasoning", text: part.text });
      } else {
        const key = this.toolCount;
        this.toolCount += 1;
        out.push({ type: "tool_start", key, id: part.id, name: part.name, ...(part.thoughtSignature !== undefined ? { thoughtSignature: part.thoughtSignature } : {}) });
        out.push({ type: "tool_args", key, json: part.arguments });
      }
    }
    const blocked = candidate === undefined && asRecord(chunk["promptFeedback"])?.["blockReason"] !== undefined;
    const finish = blocked ? "content_filter" : finishFromGemini(candidate?.["finishReason"], this.toolCount > 0);
    if (finish) out.push({ type: "finish", reason: finish });
    if (usage) out.push({ type: "usage", usage });
    return out;
  }
}
