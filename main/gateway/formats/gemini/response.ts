// Gemini GenerateContentResponse JSON ⇄ hub.

import { emptyUsage, type HubAssistantPart, type HubResponse } from "../hub.js";
import { finishFromGemini, finishToGemini } from "../finish.js";
import { syntheticToolId } from "../ids.js";
import { argumentsToObject, asArray, asRecord, asString, isRecord, type JsonObject } from "../values.js";
import { usageFromGemini, usageToGemini } from "./usage.js";

/**
 * Parts of one response chunk. `position` counts function calls already seen in this
 * response, so streamed and non-streamed responses synthesise the same ids.
 */
export function geminiAssistantParts(parts: unknown, requestId: string, position: number): HubAssistantPart[] {
  const out: HubAssistantPart[] = [];
  for (const part of asArray(parts).filter(isRecord)) {
    const call = asRecord(part["functionCall"]);
    if (call) {
      const signature = asString(part["thoughtSignature"]);
      out.push({
        type: "tool_call",
        id: asString(call["id"]) ?? syntheticToolId(requestId, position),
        name: asString(call["name"]) ?? "",
        arguments: JSON.stringify(asRecord(call["args"]) ?? {}),
        ...(signature !== undefined ? { thoughtSignature: signature } : {}),
      });
      position += 1;
    } else if (typeof part["text"] === "string") {
      out.push(part["thought"] === true ? { type: "reasoning", text: part["text"], origin: "gemini" } : { type: "text", text: part["text"] });
    }
  }
  return out;
}

export function geminiCandidate(body: unknown): JsonObject | undefined {
  return asRecord(asArray(asRecord(body)?.["candidates"])[0]);
}

export function geminiResponseToHub(body: unknown, requestId: string): HubResponse {
  const record = asRecord(body) ?? {};
  const candidate = geminiCandidate(record);
  const parts = geminiAssistantParts(asRecord(candidate?.["content"])?.["parts"], requestId, 0);
  const sawToolCall = parts.some((part) => part.type === "tool_call");
  const blocked = candidate === undefined && asRecord(record["promptFeedback"])?.["blockReason"] !== undefined;
  return {
    parts,
    finish: blocked ? "content_filter" : finishFromGemini(candidate?.["finishReason"], sawToolCall),
    usage: usageFromGemini(record["usageMetadata"]) ?? emptyUsage(),
  };
}

export function hubToGeminiResponse(hub: HubResponse, clientModel: string, requestId: string): Record<string, unknown> {
  const parts: JsonObject[] = hub.parts.flatMap((part): JsonObject[] => {
    switch (part.type) {
      case "text":
        return [{ text: part.text }];
      case "reasoning":
        return part.text === "" ? [] : [{ text: part.text, thought: true }];
      case "tool_call":
        return [
          {
            functionCall: { id: part.id, name: part.name, args: argumentsToObject(part.arguments) },
            ...(part.thoughtSignature !== undefined ? { thoughtSignature: part.thoughtSignature } : {}),
          },
        ];
    }
  });
  return {
    candidates: [{ content: { role: "model", parts }, finishReason: finishToGemini(hub.finish ?? "stop"), index: 0 }],
    usageMetadata: usageToGemini(hub.usage),
    modelVersion: clientModel,
    responseId: requestId,
  };
}
