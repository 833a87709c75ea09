// OpenAI Responses request → hub. Input items of one assistant turn (reasoning, assistant text,
// function and custom tool calls) become one hub assistant message, as Anthropic needs them.

import { assignNumber, type HubAssistantPart, type HubMessage, type HubRequest, type HubTool, type HubToolChoice, type HubUserPart } from "../hub.js";
import { parseEffort } from "../reasoning.js";
import { asArray, asNumber, asRecord, asString, DroppedFields, isRecord, parseDataUrl, type JsonObject } from "../values.js";
import { reasoningPartOf } from "./reasoning-items.js";
import { bridgedArguments, bridgedCustomTool } from "./tools.js";

/**
 * Fields read here, and fields the gateway itself serves (storage, session keys, background mode)
 * or that change nothing the model sees; anything else is reported as dropped.
 */
const HANDLED_KEYS = new Set([
  "model",
  "input",
  "instructions",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "reasoning",
  "max_output_tokens",
  "temperature",
  "top_p",
  "text",
  "user",
  "safety_identifier",
  "stream",
  "stream_options",
  "include",
  "metadata",
  "store",
  "previous_response_id",
  "prompt_cache_key",
  "background",
  "client_metadata",
]);

/** The only `include` value a translated answer can honour (reasoning items carry it). */
const ENCRYPTED_REASONING = "reasoning.encrypted_content";

export function responsesShapeProblem(body: Record<string, unknown>): string | null {
  if (typeof body["model"] !== "string" || !body["model"]) return "model: required non-empty string";
  const continues = typeof body["previous_response_id"] === "string" && body["previous_response_id"] !== "";
  const input = body["input"];
  if (input === undefined && continues) return null;
  if (typeof input === "string") return input !== "" || continues ? null : "input: must not be empty";
  if (!Array.isArray(input)) return "input: required non-empty string or array of items";
  if (input.length === 0 && !continues) return "input: required non-empty string or array of items";
  const bad = input.findIndex((item) => !isRecord(item));
  return bad >= 0 ? `input[${bad}]: must be an object` : null;
}

function imagePart(part: JsonObject, dropped: DroppedFields): HubUserPart[] {
  const url = asString(part["image_url"]) ?? asString(asRecord(part["image_url"])?.["url"]);
  if (url === undefined) {
    dropped.add("input.input_image.file_id");
    return [];
  }
  const inline = parseDataUrl(url);
  return [{ type: "image", image: inline ? { kind: "base64", ...inline } : { kind: "url", url } }];
}

function filePart(part: JsonObject, dropped: DroppedFields): HubUserPart[] {
  const filename = asString(part["filename"]);
  const data = asString(part["file_data"]) ?? "";
  const inline = parseDataUrl(data);
  if (inline) return [{ type: "file", ...inline, ...(filename !== undefined ? { filename } : {}) }];
  // The API also takes bare base64 with a filename; PDF is the document type it reads that way.
  if (data !== "" && filename !== undefined)
    return [{ type: "file", mediaType: filename.toLowerCase().endsWith(".pdf") ? "application/pdf" : "application/octet-stream", data, filename }];
  dropped.add(part["file_url"] !== undefined ? "input.input_file.file_url" : "input.input_file.file_id");
  return [];
}

/** Message content and tool outputs: a string, or content parts. */
function contentParts(content: unknown, dropped: DroppedFields): HubUserPart[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  const parts: HubUserPart[] = [];
  for (const raw of asArray(content)) {
    const part = asRecord(raw);
    const type = asString(part?.["type"]);
    if (!part) continue;
    if (type === "input_text" || type === "output_text" || type === "text") parts.push({ type: "text", text: asString(part["text"]) ?? "" });
    else if (type === "refusal") parts.push({ type: "text", text: asString(part["refusal"]) ?? "" });
    else if (type === "input_image") parts.push(...imagePart(part, dropped));
    else if (type === "input_file") parts.push(...filePart(part, dropped));
    else dropped.add(`input.content.${type ?? "unknown"}`);
  }
  return parts;
}

function textOf(parts: HubUserPart[]): string {
  return parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n\n");
}

class InputDecoder {
  readonly messages: HubMessage[] = [];
  private readonly callNames = new Map<string, string>();

  constructor(private readonly dropped: DroppedFields) {}

  item(item: JsonObject): void {
    const type = asString(item["type"]) ?? (typeof item["role"] === "string" ? "message" : undefined);
    switch (type) {
      case "message":
        this.message(item);
        break;
      case "reasoning":
        this.assistant(reasoningPartOf(item));
        break;
      case "function_call":
      case "custom_tool_call": {
        const id = asString(item["call_id"]) ?? asString(item["id"]) ?? "";
        const name = asString(item["name"]) ?? "";
        this.callNames.set(id, name);
        this.assistant(
          type === "function_call"
            ? { type: "tool_call", id, name, arguments: asString(item["arguments"]) ?? "" }
            : { type: "tool_call", id, name, arguments: bridgedArguments(asString(item["input"]) ?? ""), custom: true },
        );
        break;
      }
      case "function_call_output":
      case "custom_tool_call_output": {
        const id = asString(item["call_id"]) ?? "";
        const name = this.callNames.get(id);
        this.messages.push({ role: "tool", toolCallId: id, ...(name !== undefined ? { name } : {}), parts: contentParts(item["output"], this.dropped), isError: false });
        break;
      }
      default:
        this.dropped.add(`input.${type ?? "unknown"}`);
    }
  }

  private message(item: JsonObject): void {
    const parts = contentParts(item["content"], this.dropped);
    switch (item["role"]) {
      case "user":
        this.messages.push({ role: "user", parts });
        break;
      case "system":
      case "developer":
        this.messages.push({ role: "system", text: textOf(parts) });
        break;
      case "assistant": {
        const text = textOf(parts);
        if (text !== "") this.assistant({ type: "text", text });
        break;
      }
      default:
        this.dropped.add(`input.message.${String(item["role"])}`);
    }
  }

  private assistant(part: HubAssistantPart): void {
    const last = this.messages[this.messages.length - 1];
    if (last?.role === "assistant") last.parts.push(part);
    else this.messages.push({ role: "assistant", parts: [part] });
  }
}

function decodeInput(body: Record<string, unknown>, dropped: DroppedFields): HubMessage[] {
  const decoder = new InputDecoder(dropped);
  const instructions = asString(body["instructions"]);
  if (instructions) decoder.messages.push({ role: "system", text: instructions });
  const input = body["input"];
  if (typeof input === "string") decoder.messages.push({ role: "user", parts: [{ type: "text", text: input }] });
  for (const raw of asArray(input)) {
    const item = asRecord(raw);
    if (item) decoder.item(item);
  }
  return decoder.messages;
}

function decodeTools(raw: unknown, dropped: DroppedFields): HubTool[] {
  const tools: HubTool[] = [];
  for (const entry of asArray(raw)) {
    const tool = asRecord(entry);
    const type = asString(tool?.["type"]);
    const name = asString(tool?.["name"]);
    const description = asString(tool?.["description"]);
    if (type === "function" && name !== undefined) {
      tools.push({
        name,
        ...(description !== undefined ? { description } : {}),
        parameters: asRecord(tool?.["parameters"]) ?? { type: "object", properties: {} },
      });
    } else if (type === "custom" && name !== undefined) {
      tools.push(bridgedCustomTool(name, description, asRecord(tool?.["format"])));
    } else {
      // Hosted tools (web_search, file_search, mcp, namespace, tool_search…) run at OpenAI.
      dropped.add(`tools.${type ?? "unknown"}`);
    }
  }
  return tools;
}

function decodeToolChoice(raw: unknown, dropped: DroppedFields): HubToolChoice | undefined {
  if (raw === "auto" || raw === "none" || raw === "required") return { type: raw };
  const choice = asRecord(raw);
  const name = asString(choice?.["name"]);
  if ((choice?.["type"] === "function" || choice?.["type"] === "custom") && name !== undefined) return { type: "function", name };
  if (raw !== undefined) dropped.add("tool_choice");
  return undefined;
}

function decodeOptions(hub: HubRequest, body: Record<string, unknown>, dropped: DroppedFields): void {
  const toolChoice = decodeToolChoice(body["tool_choice"], dropped);
  if (toolChoice) hub.toolChoice = toolChoice;
  if (typeof body["parallel_tool_calls"] === "boolean") hub.parallelToolCalls = body["parallel_tool_calls"];
  const maxTokens = asNumber(body["max_output_tokens"]);
  if (maxTokens !== undefined) hub.maxTokens = maxTokens;
  assignNumber(hub, "temperature", body["temperature"]);
  assignNumber(hub, "topP", body["top_p"]);
  const user = asString(body["safety_identifier"]) ?? asString(body["user"]);
  if (user !== undefined) hub.user = user;
  const reasoning = asRecord(body["reasoning"]);
  if (reasoning) {
    const effort = parseEffort(reasoning["effort"]);
    if (effort === "none") hub.reasoning = { mode: "disabled" };
    else if (effort !== undefined) hub.reasoning = { mode: "enabled", effort };
    else if (reasoning["effort"] === undefined || reasoning["effort"] === null) hub.reasoning = { mode: "adaptive" };
    else dropped.add("reasoning.effort");
  }
  for (const value of asArray(body["include"])) if (value !== ENCRYPTED_REASONING) dropped.add(`include.${String(value)}`);
}

function decodeTextFormat(hub: HubRequest, text: JsonObject | undefined, dropped: DroppedFields): void {
  if (!text) return;
  const format = asRecord(text["format"]);
  if (format?.["type"] === "json_object") hub.responseFormat = { type: "json_object" };
  else if (format?.["type"] === "json_schema") {
    hub.responseFormat = {
      type: "json_schema",
      name: asString(format["name"]) ?? "response",
      schema: asRecord(format["schema"]) ?? {},
      ...(typeof format["strict"] === "boolean" ? { strict: format["strict"] } : {}),
    };
  } else if (format !== undefined && format["type"] !== "text") dropped.add("text.format");
  for (const key of Object.keys(text)) if (key !== "format") dropped.add(`text.${key}`);
}

export function responsesRequestToHub(body: Record<string, unknown>, dropped: DroppedFields): HubRequest {
  for (const key of Object.keys(body)) if (!HANDLED_KEYS.has(key)) dropped.add(key);
  const hub: HubRequest = {
    messages: decodeInput(body, dropped),
    tools: decodeTools(body["tools"], dropped),
    stream: body["stream"] === true,
  };
  decodeOptions(hub, body, dropped);
  decodeTextFormat(hub, asRecord(body["text"]), dropped);
  return hub;
}
