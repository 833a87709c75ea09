// Hub → Gemini generateContent request.

import type { HubAssistantPart, HubMessage, HubReasoning, HubRequest, HubToolChoice, HubUserPart } from "../hub.js";
import { budgetForEffort, droppedReasoningField } from "../reasoning.js";
import { argumentsToObject, DroppedFields, type JsonObject } from "../values.js";

/**
 * Gemini 3 rejects a replayed functionCall without the thought signature it issued. History
 * from another upstream (or a client that cannot carry the signature) has none; Google
 * documents this value as the stand-in for such turns.
 */
export const SKIP_THOUGHT_SIGNATURE = "skip_thought_signature_validator";

type Content = { role: "user" | "model"; parts: JsonObject[] };

const MIME_BY_EXTENSION: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  heic: "image/heic",
  pdf: "application/pdf",
};

/** fileData needs a MIME type; a URL only hints at it through its extension. */
function mimeForUrl(url: string): string {
  const extension = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(url)?.[1]?.toLowerCase() ?? "";
  return MIME_BY_EXTENSION[extension] ?? "image/jpeg";
}

function userParts(parts: HubUserPart[]): JsonObject[] {
  return parts.flatMap((part): JsonObject[] => {
    switch (part.type) {
      case "text":
        return part.text === "" ? [] : [{ text: part.text }];
      case "image":
        return part.image.kind === "url"
          ? [{ fileData: { mimeType: mimeForUrl(part.image.url), fileUri: part.image.url } }]
          : [{ inlineData: { mimeType: part.image.mediaType, data: part.image.data } }];
      case "file":
        return [{ inlineData: { mimeType: part.mediaType, data: part.data } }];
    }
  });
}

function modelParts(parts: HubAssistantPart[], names: Map<string, string>, dropped: DroppedFields): JsonObject[] {
  const out: JsonObject[] = [];
  let firstCall = true;
  for (const part of parts) {
    if (part.type === "text") {
      if (part.text !== "") out.push({ text: part.text });
    } else if (part.type === "reasoning") {
      // Gemini does not read thoughts back; only foreign reasoning is a loss worth reporting.
      if (part.origin !== "gemini") dropped.add(droppedReasoningField(part.origin));
    } else {
      names.set(part.id, part.name);
      const signature = part.thoughtSignature ?? (firstCall ? SKIP_THOUGHT_SIGNATURE : undefined);
      out.push({ functionCall: { name: part.name, args: argumentsToObject(part.arguments) }, ...(signature !== undefined ? { thoughtSignature: signature } : {}) });
      firstCall = false;
    }
  }
  return out;
}

function toolResponseParts(message: Extract<HubMessage, { role: "tool" }>, names: Map<string, string>): JsonObject[] {
  const text = message.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n\n");
  const response = message.isError ? { error: text } : { output: text };
  const name = names.get(message.toolCallId) ?? message.name ?? message.toolCallId;
  return [{ functionResponse: { name, response } }, ...userParts(message.parts.filter((part) => part.type !== "text"))];
}

function pushContent(contents: Content[], content: Content): void {
  if (content.parts.length === 0) return;
  const last = contents[contents.length - 1];
  if (last && last.role === content.role) last.parts.push(...content.parts);
  else contents.push(content);
}

function encodeContents(messages: HubMessage[], dropped: DroppedFields): { system: string[]; contents: Content[] } {
  const system: string[] = [];
  const contents: Content[] = [];
  const names = new Map<string, string>();
  for (const message of messages) {
    switch (message.role) {
      case "system":
        // Gemini has one systemInstruction; later system turns become tagged user text.
        if (contents.length === 0) system.push(message.text);
        else pushContent(contents, { role: "user", parts: [{ text: `<system>\n${message.text}\n</system>` }] });
        break;
      case "user":
        pushContent(contents, { role: "user", parts: userParts(message.parts) });
        break;
      case "tool":
        pushContent(contents, { role: "user", parts: toolResponseParts(message, names) });
        break;
      case "assistant":
        pushContent(contents, { role: "model", parts: modelParts(message.parts, names, dropped) });
        break;
    }
  }
  return { system: system.filter((text) => text !== ""), contents };
}

function encodeToolChoice(choice: HubToolChoice): JsonObject {
  switch (choice.type) {
    case "auto":
      return { mode: "AUTO" };
    case "required":
      return { mode: "ANY" };
    case "none":
      return { mode: "NONE" };
    case "function":
      return { mode: "ANY", allowedFunctionNames: [choice.name] };
  }
}

function thinkingConfig(reasoning: HubReasoning): JsonObject | undefined {
  // Some Gemini models cannot switch thinking off, so "disabled" is left to the default.
  if (reasoning.mode === "disabled" || reasoning.effort === "none") return undefined;
  if (reasoning.mode === "adaptive") return { includeThoughts: true, thinkingBudget: -1 };
  return { includeThoughts: true, thinkingBudget: reasoning.budgetTokens ?? budgetForEffort(reasoning.effort ?? "medium") };
}

function withoutSchemaKeyword(schema: Record<string, unknown>): Record<string, unknown> {
  const copy = { ...schema };
  delete copy["$schema"];
  return copy;
}

export function hubToGeminiRequest(hub: HubRequest, dropped: DroppedFields): Record<string, unknown> {
  const { system, contents } = encodeContents(hub.messages, dropped);
  const out: JsonObject = { contents };
  if (system.length > 0) out["systemInstruction"] = { parts: system.map((text) => ({ text })) };
  if (hub.tools.length > 0) {
    out["tools"] = [
      {
        functionDeclarations: hub.tools.map((tool) => ({
          name: tool.name,
          ...(tool.description !== undefined ? { description: tool.description } : {}),
          parametersJsonSchema: withoutSchemaKeyword(tool.parameters),
        })),
      },
    ];
    if (hub.toolChoice) out["toolConfig"] = { functionCallingConfig: encodeToolChoice(hub.toolChoice) };
  }
  const config: JsonObject = {};
  if (hub.maxTokens !== undefined) config["maxOutputTokens"] = hub.maxTokens;
  if (hub.temperature !== undefined) config["temperature"] = hub.temperature;
  if (hub.topP !== undefined) config["topP"] = hub.topP;
  if (hub.topK !== undefined) config["topK"] = hub.topK;
  if (hub.stop !== undefined && hub.stop.length > 0) config["stopSequences"] = hub.stop;
  if (hub.seed !== undefined) config["seed"] = hub.seed;
  if (hub.presencePenalty !== undefined) config["presencePenalty"] = hub.presencePenalty;
  if (hub.frequencyPenalty !== undefined) config["frequencyPenalty"] = hub.frequencyPenalty;
  if (hub.responseFormat) {
    config["responseMimeType"] = "application/json";
    if (hub.responseFormat.type === "json_schema") config["responseJsonSchema"] = hub.responseFormat.schema;
  }
  const thinking = hub.reasoning ? thinkingConfig(hub.reasoning) : undefined;
  if (thinking) config["thinkingConfig"] = thinking;
  if (Object.keys(config).length > 0) out["generationConfig"] = config;
  if (hub.user !== undefined) dropped.add("user");
  if (hub.parallelToolCalls === false) dropped.add("parallel_tool_calls");
  return out;
}
