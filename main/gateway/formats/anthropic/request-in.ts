// Anthropic Messages request → hub.

import {
  assignNumber,
  type HubAssistantPart,
  type HubImage,
  type HubMessage,
  type HubReasoning,
  type HubRequest,
  type HubTool,
  type HubToolChoice,
  type HubUserPart,
} from "../hub.js";
import { originOfSignature, parseEffort } from "../reasoning.js";
import { asArray, asNumber, asRecord, asString, DroppedFields, type JsonObject } from "../values.js";

const HANDLED_KEYS = new Set([
  "model",
  "messages",
  "system",
  "max_tokens",
  "temperature",
  "top_p",
  "top_k",
  "stop_sequences",
  "stream",
  "metadata",
  "tools",
  "tool_choice",
  "thinking",
  "output_config",
]);

/** Claude Code's first system block is billing metadata for Anthropic, not prompt text. */
const BILLING_HEADER = /^\s*x-anthropic-billing-header:/i;

function noteCacheControl(block: JsonObject | undefined, dropped: DroppedFields): void {
  if (block && block["cache_control"] !== undefined) dropped.add("cache_control");
}

export function anthropicSystemText(system: unknown, dropped: DroppedFields): string {
  if (typeof system === "string") return system;
  const texts: string[] = [];
  for (const raw of asArray(system)) {
    const block = asRecord(raw);
    noteCacheControl(block, dropped);
    const text = asString(block?.["text"]);
    if (text === undefined) continue;
    if (BILLING_HEADER.test(text)) dropped.add("system.billing_header");
    else texts.push(text);
  }
  return texts.join("\n\n");
}

export function imageFromSource(source: unknown): HubImage | undefined {
  const record = asRecord(source);
  if (record?.["type"] === "base64") {
    return { kind: "base64", mediaType: asString(record["media_type"]) ?? "image/png", data: asString(record["data"]) ?? "" };
  }
  if (record?.["type"] === "url") return { kind: "url", url: asString(record["url"]) ?? "" };
  return undefined;
}

function documentParts(block: JsonObject, dropped: DroppedFields): HubUserPart[] {
  const source = asRecord(block["source"]);
  const title = asString(block["title"]);
  switch (source?.["type"]) {
    case "base64":
      return [
        {
          type: "file",
          mediaType: asString(source["media_type"]) ?? "application/pdf",
          data: asString(source["data"]) ?? "",
          ...(title !== undefined ? { filename: title } : {}),
        },
      ];
    case "text":
      return [{ type: "text", text: asString(source["data"]) ?? "" }];
    case "content":
      return contentParts(source["content"], dropped);
    default:
      dropped.add("messages.content.document");
      return [];
  }
}

/** Plain content blocks (text, image, document) as used in user turns and tool results. */
function contentParts(content: unknown, dropped: DroppedFields): HubUserPart[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  const parts: HubUserPart[] = [];
  for (const raw of asArray(content)) {
    const block = asRecord(raw);
    if (!block) continue;
    noteCacheControl(block, dropped);
    const type = asString(block["type"]);
    if (type === "text") {
      parts.push({ type: "text", text: asString(block["text"]) ?? "" });
    } else if (type === "image") {
      const image = imageFromSource(block["source"]);
      if (image) parts.push({ type: "image", image });
      else dropped.add("messages.content.image");
    } else if (type === "document") {
      parts.push(...documentParts(block, dropped));
    } else if (type === "search_result") {
      const texts = contentParts(block["content"], dropped).flatMap((part) => (part.type === "text" ? [part.text] : []));
      parts.push({ type: "text", text: [asString(block["title"]), asString(block["source"]), ...texts].filter(Boolean).join("\n") });
    } else if (type !== "tool_result") {
      dropped.add(`messages.content.${type ?? "unknown"}`);
    }
  }
  return parts;
}

function userTurn(content: unknown, dropped: DroppedFields): HubMessage[] {
  const toolResults: HubMessage[] = [];
  for (const raw of asArray(content)) {
    const block = asRecord(raw);
    if (block?.["type"] !== "tool_result") continue;
    noteCacheControl(block, dropped);
    toolResults.push({
      role: "tool",
      toolCallId: asString(block["tool_use_id"]) ?? "",
      parts: contentParts(block["content"] ?? "", dropped),
      isError: block["is_error"] === true,
    });
  }
  const parts = contentParts(content, dropped);
  return parts.length > 0 ? [...toolResults, { role: "user", parts }] : toolResults;
}

export function anthropicAssistantParts(content: unknown, dropped: DroppedFields): HubAssistantPart[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  const parts: HubAssistantPart[] = [];
  for (const raw of asArray(content)) {
    const block = asRecord(raw);
    if (!block) continue;
    noteCacheControl(block, dropped);
    switch (block["type"]) {
      case "text":
        parts.push({ type: "text", text: asString(block["text"]) ?? "" });
        break;
      case "thinking": {
        const signature = asString(block["signature"]);
        const origin = originOfSignature(signature) ?? "anthropic";
        parts.push({
          type: "reasoning",
          text: asString(block["thinking"]) ?? "",
          origin,
          ...(origin === "anthropic" && signature ? { signature } : {}),
        });
        break;
      }
      case "redacted_thinking":
        parts.push({ type: "reasoning", text: "", origin: "anthropic", redactedData: asString(block["data"]) ?? "" });
        break;
      case "tool_use":
        parts.push({
          type: "tool_call",
          id: asString(block["id"]) ?? "",
          name: asString(block["name"]) ?? "",
          arguments: JSON.stringify(asRecord(block["input"]) ?? {}),
        });
        break;
      default:
        dropped.add(`messages.content.${asString(block["type"]) ?? "unknown"}`);
    }
  }
  return parts;
}

function decodeMessages(raw: unknown, dropped: DroppedFields): HubMessage[] {
  const messages: HubMessage[] = [];
  for (const entry of asArray(raw)) {
    const message = asRecord(entry);
    if (!message) continue;
    switch (message["role"]) {
      case "user":
        messages.push(...userTurn(message["content"], dropped));
        break;
      case "assistant":
        messages.push({ role: "assistant", parts: anthropicAssistantParts(message["content"], dropped) });
        break;
      case "system":
        // Claude Code injects mid-conversation system turns; they stay system wherever the
        // target format allows it.
        messages.push({ role: "system", text: anthropicSystemText(message["content"], dropped) });
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
    if (!tool) continue;
    noteCacheControl(tool, dropped);
    const type = asString(tool["type"]);
    const schema = asRecord(tool["input_schema"]);
    if ((type !== undefined && type !== "custom") || !schema) {
      // Server tools (web_search, bash, text_editor…) run inside Anthropic only.
      dropped.add(`tools.${asString(tool["name"]) ?? type ?? "unknown"}`);
      continue;
    }
    const description = asString(tool["description"]);
    tools.push({ name: asString(tool["name"]) ?? "", ...(description !== undefined ? { description } : {}), parameters: schema });
  }
  return tools;
}

function decodeToolChoice(raw: JsonObject | undefined, dropped: DroppedFields): HubToolChoice | undefined {
  switch (raw?.["type"]) {
    case undefined:
      return undefined;
    case "auto":
      return { type: "auto" };
    case "any":
      return { type: "required" };
    case "none":
      return { type: "none" };
    case "tool":
      return { type: "function", name: asString(raw["name"]) ?? "" };
    default:
      dropped.add("tool_choice");
      return undefined;
  }
}

function decodeReasoning(thinking: JsonObject | undefined, outputConfig: JsonObject | undefined): HubReasoning | undefined {
  let reasoning: HubReasoning | undefined;
  switch (thinking?.["type"]) {
    case "enabled": {
      const budget = asNumber(thinking["budget_tokens"]);
      reasoning = { mode: "enabled", ...(budget !== undefined ? { budgetTokens: budget } : {}) };
      break;
    }
    case "adaptive":
    case "between_tools":
      reasoning = { mode: "adaptive" };
      break;
    case "disabled":
      reasoning = { mode: "disabled" };
      break;
  }
  const effort = parseEffort(outputConfig?.["effort"]);
  if (effort === undefined) return reasoning;
  return reasoning ? { ...reasoning, effort } : { mode: "adaptive", effort };
}

export function anthropicRequestToHub(body: Record<string, unknown>, dropped: DroppedFields): HubRequest {
  for (const key of Object.keys(body)) if (!HANDLED_KEYS.has(key)) dropped.add(key);
  const hub: HubRequest = { messages: [], tools: decodeTools(body["tools"], dropped), stream: body["stream"] === true };
  const system = anthropicSystemText(body["system"], dropped);
  if (system !== "") hub.messages.push({ role: "system", text: system });
  hub.messages.push(...decodeMessages(body["messages"], dropped));
  const toolChoice = asRecord(body["tool_choice"]);
  const choice = decodeToolChoice(toolChoice, dropped);
  if (choice) hub.toolChoice = choice;
  if (toolChoice?.["disable_parallel_tool_use"] === true) hub.parallelToolCalls = false;
  const maxTokens = asNumber(body["max_tokens"]);
  if (maxTokens !== undefined) hub.maxTokens = maxTokens;
  assignNumber(hub, "temperature", body["temperature"]);
  assignNumber(hub, "topP", body["top_p"]);
  assignNumber(hub, "topK", body["top_k"]);
  const stop = asArray(body["stop_sequences"]).filter((s): s is string => typeof s === "string");
  if (stop.length > 0) hub.stop = stop;
  const metadata = asRecord(body["metadata"]);
  for (const key of Object.keys(metadata ?? {})) if (key !== "user_id") dropped.add(`metadata.${key}`);
  const user = asString(metadata?.["user_id"]);
  if (user !== undefined) hub.user = user;
  const outputConfig = asRecord(body["output_config"]);
  const reasoning = decodeReasoning(asRecord(body["thinking"]), outputConfig);
  if (reasoning) hub.reasoning = reasoning;
  for (const key of Object.keys(outputConfig ?? {})) if (key !== "effort" && key !== "format") dropped.add(`output_config.${key}`);
  const format = asRecord(outputConfig?.["format"]);
  if (format?.["type"] === "json_schema") {
    hub.responseFormat = { type: "json_schema", name: "response", schema: asRecord(format["schema"]) ?? {} };
  }
  return hub;
}
