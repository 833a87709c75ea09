// Hub → OpenAI Responses request. Leading system text becomes `instructions`, later system
// messages developer messages; reasoning is replayed only as the encrypted items a Responses
// upstream issued, since the API reads nothing else back.

import type { HubAssistantPart, HubMessage, HubRequest, HubTool, HubToolChoice, HubUserPart } from "../hub.js";
import { budgetForEffort, droppedReasoningField, effortForBudget, openaiEffort } from "../reasoning.js";
import { DroppedFields, toDataUrl, type JsonObject } from "../values.js";
import { unwrapCustomInput } from "./tools.js";

function userContent(parts: HubUserPart[]): JsonObject[] {
  return parts.map((part): JsonObject => {
    switch (part.type) {
      case "text":
        return { type: "input_text", text: part.text };
      case "image":
        return { type: "input_image", image_url: part.image.kind === "url" ? part.image.url : toDataUrl(part.image.mediaType, part.image.data), detail: "auto" };
      case "file":
        return { type: "input_file", filename: part.filename ?? "file", file_data: toDataUrl(part.mediaType, part.data) };
    }
  });
}

/** A tool result: plain text when it is only text, as most tools answer; content items otherwise. */
function toolOutput(parts: HubUserPart[]): string | JsonObject[] {
  if (parts.every((part) => part.type === "text")) return parts.map((part) => part.text).join("\n\n");
  return userContent(parts);
}

function reasoningItem(part: Extract<HubAssistantPart, { type: "reasoning" }>, dropped: DroppedFields): JsonObject[] {
  if (part.origin !== "openai-responses" || part.encryptedContent === undefined) {
    dropped.add(droppedReasoningField(part.origin));
    return [];
  }
  const summary = part.text === "" ? [] : [{ type: "summary_text", text: part.text }];
  return [{ type: "reasoning", summary, encrypted_content: part.encryptedContent }];
}

function assistantItems(parts: HubAssistantPart[], customCalls: Set<string>, dropped: DroppedFields): JsonObject[] {
  const items: JsonObject[] = [];
  let text = "";
  const flush = (): void => {
    if (text !== "") items.push({ type: "message", role: "assistant", content: [{ type: "output_text", text }] });
    text = "";
  };
  for (const part of parts) {
    if (part.type === "text") {
      text += part.text;
      continue;
    }
    flush();
    if (part.type === "reasoning") items.push(...reasoningItem(part, dropped));
    else if (part.custom) {
      customCalls.add(part.id);
      items.push({ type: "custom_tool_call", call_id: part.id, name: part.name, input: unwrapCustomInput(part.arguments) });
    } else {
      items.push({ type: "function_call", call_id: part.id, name: part.name, arguments: part.arguments === "" ? "{}" : part.arguments });
    }
  }
  flush();
  return items;
}

function encodeInput(messages: HubMessage[], dropped: DroppedFields): { instructions: string; input: JsonObject[] } {
  const leading: string[] = [];
  const input: JsonObject[] = [];
  const customCalls = new Set<string>();
  for (const message of messages) {
    switch (message.role) {
      case "system":
        if (input.length === 0) leading.push(message.text);
        else input.push({ type: "message", role: "developer", content: [{ type: "input_text", text: message.text }] });
        break;
      case "user":
        input.push({ type: "message", role: "user", content: userContent(message.parts) });
        break;
      case "assistant":
        input.push(...assistantItems(message.parts, customCalls, dropped));
        break;
      case "tool":
        input.push(
          customCalls.has(message.toolCallId)
            ? { type: "custom_tool_call_output", call_id: message.toolCallId, output: outputText(message.parts) }
            : { type: "function_call_output", call_id: message.toolCallId, output: toolOutput(message.parts) },
        );
        break;
    }
  }
  return { instructions: leading.filter((text) => text !== "").join("\n\n"), input };
}

/** Custom tool outputs are text only. */
function outputText(parts: HubUserPart[]): string {
  return parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n\n");
}

function encodeTool(tool: HubTool): JsonObject {
  const description = tool.description !== undefined ? { description: tool.description } : {};
  if (tool.custom) return { type: "custom", name: tool.name, ...description, ...(tool.custom.format ? { format: tool.custom.format } : {}) };
  // The Responses API makes function tools strict unless told otherwise, which most schemas fail.
  return { type: "function", name: tool.name, ...description, parameters: tool.parameters, strict: false };
}

function encodeToolChoice(choice: HubToolChoice, tools: HubTool[]): unknown {
  if (choice.type !== "function") return choice.type;
  const custom = tools.some((tool) => tool.name === choice.name && tool.custom);
  return { type: custom ? "custom" : "function", name: choice.name };
}

export function hubToResponsesRequest(hub: HubRequest, model: string, dropped: DroppedFields): Record<string, unknown> {
  const { instructions, input } = encodeInput(hub.messages, dropped);
  const out: JsonObject = { model };
  if (instructions !== "") out["instructions"] = instructions;
  out["input"] = input;
  if (hub.tools.length > 0) {
    out["tools"] = hub.tools.map(encodeTool);
    if (hub.toolChoice) out["tool_choice"] = encodeToolChoice(hub.toolChoice, hub.tools);
    if (hub.parallelToolCalls !== undefined) out["parallel_tool_calls"] = hub.parallelToolCalls;
  }
  if (hub.maxTokens !== undefined) out["max_output_tokens"] = hub.maxTokens;
  if (hub.temperature !== undefined) out["temperature"] = hub.temperature;
  if (hub.topP !== undefined) out["top_p"] = hub.topP;
  if (hub.user !== undefined) out["user"] = hub.user;
  const reasoning = hub.reasoning;
  if (reasoning && reasoning.mode !== "disabled") {
    const effort = reasoning.effort ?? (reasoning.mode === "enabled" ? effortForBudget(reasoning.budgetTokens ?? budgetForEffort("medium")) : undefined);
    out["reasoning"] = { ...(effort !== undefined ? { effort: openaiEffort(effort) } : {}), summary: "auto" };
    out["include"] = ["reasoning.encrypted_content"];
  }
  if (hub.responseFormat?.type === "json_object") out["text"] = { format: { type: "json_object" } };
  if (hub.responseFormat?.type === "json_schema") {
    const format = hub.responseFormat;
    out["text"] = { format: { type: "json_schema", name: format.name, schema: format.schema, ...(format.strict !== undefined ? { strict: format.strict } : {}) } };
  }
  // Nothing is kept upstream: the history travels in every request, reasoning as encrypted items.
  out["store"] = false;
  if (hub.stream) out["stream"] = true;
  for (const [field, value] of [
    ["top_k", hub.topK],
    ["seed", hub.seed],
    ["presence_penalty", hub.presencePenalty],
    ["frequency_penalty", hub.frequencyPenalty],
  ] as const) {
    if (value !== undefined) dropped.add(field);
  }
  if (hub.stop !== undefined && hub.stop.length > 0) dropped.add("stop");
  return out;
}
