// Anthropic Message JSON ⇄ hub.

import { emptyUsage, type HubResponse } from "../hub.js";
import { finishFromAnthropic, finishToAnthropic } from "../finish.js";
import { messageId } from "../ids.js";
import { markerSignature } from "../reasoning.js";
import { argumentsToObject, asRecord, asString, DroppedFields, type JsonObject } from "../values.js";
import { anthropicAssistantParts } from "./request-in.js";
import { usageFromAnthropic, usageToAnthropic } from "./usage.js";

export function anthropicResponseToHub(body: unknown): HubResponse {
  const record = asRecord(body) ?? {};
  // Server-tool blocks in a response have no counterpart; nobody reads this drop list.
  const parts = anthropicAssistantParts(record["content"] ?? [], new DroppedFields());
  return {
    parts,
    finish: finishFromAnthropic(record["stop_reason"]),
    stopSequence: asString(record["stop_sequence"]) ?? null,
    usage: usageFromAnthropic(record["usage"]) ?? emptyUsage(),
  };
}

export function hubToAnthropicResponse(hub: HubResponse, clientModel: string, requestId: string): Record<string, unknown> {
  const content: JsonObject[] = hub.parts.map((part): JsonObject => {
    switch (part.type) {
      case "text":
        return { type: "text", text: part.text };
      case "reasoning":
        if (part.redactedData !== undefined) return { type: "redacted_thinking", data: part.redactedData };
        return {
          type: "thinking",
          thinking: part.text,
          signature: part.origin === "anthropic" ? (part.signature ?? "") : markerSignature(part.origin),
        };
      case "tool_call":
        return { type: "tool_use", id: part.id, name: part.name, input: argumentsToObject(part.arguments) };
    }
  });
  const finish = hub.finish ?? (hub.parts.some((part) => part.type === "tool_call") ? "tool_calls" : "stop");
  return {
    id: messageId("msg_", requestId),
    type: "message",
    role: "assistant",
    model: clientModel,
    content,
    stop_reason: finishToAnthropic(finish),
    stop_sequence: hub.stopSequence ?? null,
    usage: usageToAnthropic(hub.usage),
  };
}
