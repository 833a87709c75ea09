// OpenAI Chat Completions request ⇄ hub.

import { assignNumber, type HubAssistantPart, type HubMessage, type HubRequest, type HubTool, type HubToolChoice, type HubUserPart } from "../hub.js";
import { budgetForEffort, droppedReasoningField, effortForBudget, openaiEffort, parseEffort } from "../reasoning.js";
import { asArray, asNumber, asRecord, asString, DroppedFields, parseDataUrl, toDataUrl } from "../values.js";

const HANDLED_KEYS = new Set([
  "model",
  "messages",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "max_tokens",
  "max_completion_tokens",
  "temperature",
  "top_p",
  "top_k",
  "stop",
  "stream",
  "stream_options",
  "user",
  "safety_identifier",
  "reasoning_effort",
  "response_format",
  "seed",
  "presence_penalty",
  "frequency_penalty",
]);

export function openaiContentText(content: unknown): string {
  if (typeof content === "string") return content;
  return asArray(content)
    .map((part) => {
      const record = asRecord(part);
      return asString(record?.["text"]) ?? asString(record?.["refusal"]) ?? "";
    })
    .filter((text) => text !== "")
    .join("\n\n");
}

function userParts(content: unknown, dropped: DroppedFields): HubUserPart[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  const parts: HubUserPart[] = [];
  for (const raw of asArray(content)) {
    const part = asRecord(raw);
    const type = asString(part?.["type"]);
    if (type === "text") {
      parts.push({ type: "text", text: asString(part?.["text"]) ?? "" });
    } else if (type === "image_url") {
      const url = asString(asRecord(part?.["image_url"])?.["url"]) ?? asString(part?.["image_url"]) ?? "";
      const inline = parseDataUrl(url);
      parts.push({ type: "image", image: inline ? { kind: "base64", ...inline } : { kind: "url", url } });
    } else if (type === "file") {
      const file = asRecord(part?.["file"]);
      const inline = parseDataUrl(asString(file?.["file_data"]) ?? "");
      const filename = asString(file?.["filename"]);
      if (inline) parts.push({ type: "file", ...inline, ...(filename !== undefined ? { filename } : {}) });
      else dropped.add("messages.content.file");
    } else {
      dropped.add(`messages.content.${type ?? "unknown"}`);
    }
  }
  return parts;
}

export function openaiAssistantParts(message: Record<string, unknown>): HubAssistantPart[] {
  const parts: HubAssistantPart[] = [];
  // DeepSeek and most compatible servers use reasoning_content; OpenRouter uses reasoning.
  const reasoning = asString(message["reasoning_content"]) ?? asString(message["reasoning"]);
  if (reasoning) parts.push({ type: "reasoning", text: reasoning, origin: "openai" });
  const text = openaiContentText(message["content"]) || (asString(message["refusal"]) ?? "");
  if (text !== "") parts.push({ type: "text", text });
  for (const raw of asArray(message["tool_calls"])) {
    const call = asRecord(raw);
    const fn = asRecord(call?.["function"]);
    if (!call || !fn) continue;
    const signature = asString(asRecord(asRecord(call["extra_content"])?.["google"])?.["thought_signature"]);
    parts.push({
      type: "tool_call",
      id: asString(call["id"]) ?? "",
      name: asString(fn["name"]) ?? "",
      arguments: asString(fn["arguments"]) ?? "",
      ...(signature !== undefined ? { thoughtSignature: signature } : {}),
    });
  }
  return parts;
}

function decodeMessages(raw: unknown, dropped: DroppedFields): HubMessage[] {
  const messages: HubMessage[] = [];
  for (const entry of asArray(raw)) {
    const message = asRecord(entry);
    if (!message) continue;
    switch (message["role"]) {
      case "system":
      case "developer":
        messages.push({ role: "system", text: openaiContentText(message["content"]) });
        break;
      case "user":
        messages.push({ role: "user", parts: userParts(message["content"], dropped) });
        break;
      case "assistant":
        messages.push({ role: "assistant", parts: openaiAssistantParts(message) });
        break;
      case "tool":
        messages.push({
          role: "tool",
          toolCallId: asString(message["tool_call_id"]) ?? "",
          parts: userParts(message["content"], dropped),
          isError: false,
        });
        break;
      default:
        dropped.add(`messages.${String(message["role"])}`);
    }
  }
  return messages;
}

function decodeTools(raw: unknown, dropped: DroppedFields): HubTool[] {
  const tools: HubTool[] = [];
  for (const entry of asArray(raw)) {
    const tool = asRecord(entry);
    const fn = asRecord(tool?.["function"]);
    if (tool?.["type"] !== "function" || !fn) {
      dropped.add(`tools.${asString(tool?.["type"]) ?? "unknown"}`);
      continue;
    }
    const description = asString(fn["description"]);
    tools.push({
      name: asString(fn["name"]) ?? "",
      ...(description !== undefined ? { description } : {}),
      parameters: asRecord(fn["parameters"]) ?? { type: "object", properties: {} },
    });
  }
  return tools;
}

function decodeToolChoice(raw: unknown, dropped: DroppedFields): HubToolChoice | undefined {
  if (raw === "auto" || raw === "none" || raw === "required") return { type: raw };
  const name = asString(asRecord(asRecord(raw)?.["function"])?.["name"]);
  if (name !== undefined) return { type: "function", name };
  if (raw !== undefined) dropped.add("tool_choice");
  return undefined;
}

export function openaiRequestToHub(body: Record<string, unknown>, dropped: DroppedFields): HubRequest {
  for (const key of Object.keys(body)) {
    if (!HANDLED_KEYS.has(key) && !(key === "n" && body[key] === 1)) dropped.add(key);
  }
  const hub: HubRequest = {
    messages: decodeMessages(body["messages"], dropped),
    tools: decodeTools(body["tools"], dropped),
    stream: body["stream"] === true,
  };
  const toolChoice = decodeToolChoice(body["tool_choice"], dropped);
  if (toolChoice) hub.toolChoice = toolChoice;
  if (typeof body["parallel_tool_calls"] === "boolean") hub.parallelToolCalls = body["parallel_tool_calls"];
  const maxTokens = asNumber(body["max_completion_tokens"]) ?? asNumber(body["max_tokens"]);
  if (maxTokens !== undefined) hub.maxTokens = maxTokens;
  assignNumber(hub, "temperature", body["temperature"]);
  assignNumber(hub, "topP", body["top_p"]);
  assignNumber(hub, "topK", body["top_k"]);
  assignNumber(hub, "seed", body["seed"]);
  assignNumber(hub, "presencePenalty", body["presence_penalty"]);
  assignNumber(hub, "frequencyPenalty", body["frequency_penalty"]);
  const stop = body["stop"];
  if (typeof stop === "string") hub.stop = [stop];
  else if (Array.isArray(stop)) hub.stop = stop.filter((s): s is string => typeof s === "string");
  const user = asString(body["user"]) ?? asString(body["safety_identifier"]);
  if (user !== undefined) hub.user = user;
  const effort = parseEffort(body["reasoning_effort"]);
  if (effort !== undefined) hub.reasoning = effort === "none" ? { mode: "disabled" } : { mode: "enabled", effort };
  const format = asRecord(body["response_format"]);
  if (format?.["type"] === "json_object") hub.responseFormat = { type: "json_object" };
  const jsonSchema = asRecord(format?.["json_schema"]);
  if (format?.["type"] === "json_schema" && jsonSchema) {
    hub.responseFormat = {
      type: "json_schema",
      name: asString(jsonSchema["name"]) ?? "response",
      schema: asRecord(jsonSchema["schema"]) ?? {},
      ...(typeof jsonSchema["strict"] === "boolean" ? { strict: jsonSchema["strict"] } : {}),
    };
  }
  return hub;
}

function encodeUserContent(parts: HubUserPart[]): unknown {
  if (parts.every((part) => part.type === "text")) return parts.map((part) => part.text).join("\n\n");
  return parts.map((part) => {
    switch (part.type) {
      case "text":
        return { type: "text", text: part.text };
      case "image":
        return {
          type: "image_url",
          image_url: { url: part.image.kind === "url" ? part.image.url : toDataUrl(part.image.mediaType, part.image.data) },
        };
      case "file":
        return {
          type: "file",
          file: { file_data: toDataUrl(part.mediaType, part.data), ...(part.filename !== undefined ? { filename: part.filename } : {}) },
        };
    }
  });
}

function encodeAssistant(parts: HubAssistantPart[], dropped: DroppedFields): Record<string, unknown> {
  const text: string[] = [];
  const reasoning: string[] = [];
  const toolCalls: Record<string, unknown>[] = [];
  for (const part of parts) {
    if (part.type === "text") text.push(part.text);
    else if (part.type === "reasoning") {
      // Only replay reasoning to the kind of upstream that produced it.
      if (part.origin !== "openai") dropped.add(droppedReasoningField(part.origin));
      else if (part.text !== "") reasoning.push(part.text);
    } else {
      toolCalls.push({
        id: part.id,
        type: "function",
        function: { name: part.name, arguments: part.arguments === "" ? "{}" : part.arguments },
        ...(part.thoughtSignature !== undefined ? { extra_content: { google: { thought_signature: part.thoughtSignature } } } : {}),
      });
    }
  }
  const message: Record<string, unknown> = { role: "assistant", content: text.length > 0 ? text.join("") : toolCalls.length > 0 ? null : "" };
  if (reasoning.length > 0) message["reasoning_content"] = reasoning.join("");
  if (toolCalls.length > 0) message["tool_calls"] = toolCalls;
  return message;
}

function encodeMessages(messages: HubMessage[], dropped: DroppedFields): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  // OpenAI tool messages carry text only; images a tool returned follow as a user turn.
  let toolImages: HubUserPart[] = [];
  const flushToolImages = (): void => {
    if (toolImages.length > 0) out.push({ role: "user", content: encodeUserContent(toolImages) });
    toolImages = [];
  };
  for (const message of messages) {
    if (message.role !== "tool") flushToolImages();
    switch (message.role) {
      case "system":
        out.push({ role: "system", content: message.text });
        break;
      case "user":
        out.push({ role: "user", content: encodeUserContent(message.parts) });
        break;
      case "assistant":
        out.push(encodeAssistant(message.parts, dropped));
        break;
      case "tool": {
        const text = message.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n\n");
        toolImages.push(...message.parts.filter((part) => part.type !== "text"));
        out.push({ role: "tool", tool_call_id: message.toolCallId, content: text });
        break;
      }
    }
  }
  flushToolImages();
  return out;
}

function encodeToolChoice(choice: HubToolChoice): unknown {
  return choice.type === "function" ? { type: "function", function: { name: choice.name } } : choice.type;
}

export function hubToOpenaiRequest(hub: HubRequest, model: string, dropped: DroppedFields): Record<string, unknown> {
  const out: Record<string, unknown> = { model, messages: encodeMessages(hub.messages, dropped) };
  if (hub.stream) {
    out["stream"] = true;
    out["stream_options"] = { include_usage: true };
  }
  if (hub.maxTokens !== undefined) out["max_tokens"] = hub.maxTokens;
  if (hub.temperature !== undefined) out["temperature"] = hub.temperature;
  if (hub.topP !== undefined) out["top_p"] = hub.topP;
  if (hub.topK !== undefined) dropped.add("top_k");
  if (hub.stop !== undefined && hub.stop.length > 0) out["stop"] = hub.stop;
  if (hub.seed !== undefined) out["seed"] = hub.seed;
  if (hub.presencePenalty !== undefined) out["presence_penalty"] = hub.presencePenalty;
  if (hub.frequencyPenalty !== undefined) out["frequency_penalty"] = hub.frequencyPenalty;
  if (hub.user !== undefined) out["user"] = hub.user;
  if (hub.tools.length > 0) {
    out["tools"] = hub.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, ...(tool.description !== undefined ? { description: tool.description } : {}), parameters: tool.parameters },
    }));
    if (hub.toolChoice) out["tool_choice"] = encodeToolChoice(hub.toolChoice);
    if (hub.parallelToolCalls !== undefined) out["parallel_tool_calls"] = hub.parallelToolCalls;
  }
  // Adaptive thinking without an effort means "let the model decide": the upstream's default.
  const reasoning = hub.reasoning;
  if (reasoning && reasoning.mode !== "disabled") {
    const effort = reasoning.effort ?? (reasoning.mode === "enabled" ? effortForBudget(reasoning.budgetTokens ?? budgetForEffort("medium")) : undefined);
    if (effort !== undefined) out["reasoning_effort"] = openaiEffort(effort);
  }
  if (hub.responseFormat?.type === "json_object") out["response_format"] = { type: "json_object" };
  if (hub.responseFormat?.type === "json_schema") {
    out["response_format"] = {
      type: "json_schema",
      json_schema: {
        name: hub.responseFormat.name,
        schema: hub.responseFormat.schema,
        ...(hub.responseFormat.strict !== undefined ? { strict: hub.responseFormat.strict } : {}),
      },
    };
  }
  return out;
}
