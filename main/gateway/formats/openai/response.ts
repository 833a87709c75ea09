// OpenAI chat.completion JSON ⇄ hub.

import { emptyUsage, type HubResponse } from "../hub.js";
import { finishFromOpenai, finishToOpenai } from "../finish.js";
import { messageId, syntheticToolId } from "../ids.js";
import { asArray, asRecord } from "../values.js";
import { openaiAssistantParts } from "./request.js";
import { usageFromOpenai, usageToOpenai } from "./usage.js";

export function openaiResponseToHub(body: unknown, requestId: string): HubResponse {
  const record = asRecord(body) ?? {};
  const choice = asRecord(asArray(record["choices"])[0]) ?? {};
  let position = 0;
  const parts = openaiAssistantParts(asRecord(choice["message"]) ?? {}).map((part) => {
    if (part.type !== "tool_call") return part;
    const id = part.id || syntheticToolId(requestId, position);
    position += 1;
    return { ...part, id };
  });
  return { parts, finish: finishFromOpenai(choice["finish_reason"]), usage: usageFromOpenai(record["usage"]) ?? emptyUsage() };
}

export function hubToOpenaiResponse(hub: HubResponse, clientModel: string, requestId: string): Record<string, unknown> {
  const text: string[] = [];
  const reasoning: string[] = [];
  const toolCalls: Record<string, unknown>[] = [];
  for (const part of hub.parts) {
    if (part.type === "text") text.push(part.text);
    else if (part.type === "reasoning") reasoning.push(part.text);
    else {
      toolCalls.push({
        id: part.id,
        type: "function",
        function: { name: part.name, arguments: part.arguments === "" ? "{}" : part.arguments },
        // Gemini's own OpenAI endpoint carries thought signatures here; clients echo it back.
        ...(part.thoughtSignature !== undefined ? { extra_content: { google: { thought_signature: part.thoughtSignature } } } : {}),
      });
    }
  }
  const message: Record<string, unknown> = { role: "assistant", content: text.length > 0 ? text.join("") : toolCalls.length > 0 ? null : "" };
  if (reasoning.some((r) => r !== "")) message["reasoning_content"] = reasoning.join("");
  if (toolCalls.length > 0) message["tool_calls"] = toolCalls;
  const finish = hub.finish ?? (toolCalls.length > 0 ? "tool_calls" : "stop");
  return {
    id: messageId("chatcmpl-", requestId),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: clientModel,
    choices: [{ index: 0, message, finish_reason: finishToOpenai(finish), logprobs: null }],
    usage: usageToOpenai(hub.usage),
  };
}
