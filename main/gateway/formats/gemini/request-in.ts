// Gemini generateContent request → hub (for completeness: clients normally speak OpenAI or
// Anthropic, but every format is both a source and a target).

import { assignNumber, type HubAssistantPart, type HubMessage, type HubReasoning, type HubRequest, type HubTool, type HubToolChoice, type HubUserPart } from "../hub.js";
import { parseEffort } from "../reasoning.js";
import { asArray, asNumber, asRecord, asString, DroppedFields, isRecord, type JsonObject } from "../values.js";

const HANDLED_KEYS = new Set(["model", "contents", "systemInstruction", "tools", "toolConfig", "generationConfig", "stream"]);
const HANDLED_CONFIG = new Set([
  "maxOutputTokens",
  "temperature",
  "topP",
  "topK",
  "stopSequences",
  "seed",
  "presencePenalty",
  "frequencyPenalty",
  "responseMimeType",
  "responseJsonSchema",
  "responseSchema",
  "thinkingConfig",
]);

/**
 * Gemini's OpenAPI-style schemas spell types in capitals ("OBJECT"); JSON Schema does not. Copies
 * only what changes: a schema already in lower case (as most clients write it) is the client's own
 * object, not a deep copy of every tool's schema on every turn (issue 33).
 */
function lowerCaseTypes(value: unknown): unknown {
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const inner: unknown = value[i];
      const lowered = lowerCaseTypes(inner);
      if (lowered !== inner) (out ??= value.slice())[i] = lowered;
    }
    return out ?? value;
  }
  if (!isRecord(value)) return value;
  let out: JsonObject | null = null;
  for (const key of Object.keys(value)) {
    const inner = value[key];
    const lowered = key === "type" && typeof inner === "string" ? inner.toLowerCase() : lowerCaseTypes(inner);
    if (lowered !== inner) (out ??= { ...value })[key] = lowered;
  }
  return out ?? value;
}

function userPart(part: JsonObject, dropped: DroppedFields): HubUserPart | undefined {
  const text = asString(part["text"]);
  if (text !== undefined) return { type: "text", text };
  const inline = asRecord(part["inlineData"]);
  if (inline) {
    const mediaType = asString(inline["mimeType"]) ?? "application/octet-stream";
    const data = asString(inline["data"]) ?? "";
    return mediaType.startsWith("image/") ? { type: "image", image: { kind: "base64", mediaType, data } } : { type: "file", mediaType, data };
  }
  const file = asRecord(part["fileData"]);
  if (file && (asString(file["mimeType"]) ?? "image/").startsWith("image/")) {
    return { type: "image", image: { kind: "url", url: asString(file["fileUri"]) ?? "" } };
  }
  dropped.add(`contents.parts.${Object.keys(part)[0] ?? "unknown"}`);
  return undefined;
}

function decodeContents(raw: unknown, dropped: DroppedFields): HubMessage[] {
  const messages: HubMessage[] = [];
  // Gemini pairs responses with calls by name and order; ids are minted here to pair them.
  const pending = new Map<string, string[]>();
  let callCount = 0;
  for (const entry of asArray(raw)) {
    const content = asRecord(entry);
    const parts = asArray(content?.["parts"]).filter(isRecord);
    if (content?.["role"] === "model") {
      const out: HubAssistantPart[] = [];
      for (const part of parts) {
        const call = asRecord(part["functionCall"]);
        const signature = asString(part["thoughtSignature"]);
        if (call) {
          const name = asString(call["name"]) ?? "";
          const id = asString(call["id"]) ?? `call_${callCount}`;
          callCount += 1;
          pending.set(name, [...(pending.get(name) ?? []), id]);
          out.push({ type: "tool_call", id, name, arguments: JSON.stringify(asRecord(call["args"]) ?? {}), ...(signature !== undefined ? { thoughtSignature: signature } : {}) });
        } else if (part["thought"] === true) {
          out.push({ type: "reasoning", text: asString(part["text"]) ?? "", origin: "gemini" });
        } else if (typeof part["text"] === "string") {
          out.push({ type: "text", text: part["text"] });
        }
      }
      messages.push({ role: "assistant", parts: out });
      continue;
    }
    const userParts: HubUserPart[] = [];
    for (const part of parts) {
      const response = asRecord(part["functionResponse"]);
      if (!response) {
        const decoded = userPart(part, dropped);
        if (decoded) userParts.push(decoded);
        continue;
      }
      const name = asString(response["name"]) ?? "";
      const queue = pending.get(name) ?? [];
      const id = queue.shift() ?? asString(response["id"]) ?? `call_${name}`;
      const payload = asRecord(response["response"]) ?? {};
      const result = payload["error"] ?? payload["output"] ?? payload;
      messages.push({
        role: "tool",
        toolCallId: id,
        name,
        parts: [{ type: "text", text: typeof result === "string" ? result : JSON.stringify(result) }],
        isError: payload["error"] !== undefined,
      });
    }
    if (userParts.length > 0) messages.push({ role: "user", parts: userParts });
  }
  return messages;
}

function decodeTools(raw: unknown, dropped: DroppedFields): HubTool[] {
  const tools: HubTool[] = [];
  for (const entry of asArray(raw)) {
    const tool = asRecord(entry) ?? {};
    for (const key of Object.keys(tool)) if (key !== "functionDeclarations") dropped.add(`tools.${key}`);
    for (const rawDeclaration of asArray(tool["functionDeclarations"])) {
      const declaration = asRecord(rawDeclaration);
      if (!declaration) continue;
      const schema = asRecord(declaration["parametersJsonSchema"]) ?? asRecord(lowerCaseTypes(declaration["parameters"]));
      const description = asString(declaration["description"]);
      tools.push({
        name: asString(declaration["name"]) ?? "",
        ...(description !== undefined ? { description } : {}),
        parameters: schema ?? { type: "object", properties: {} },
      });
    }
  }
  return tools;
}

function decodeToolChoice(raw: unknown): HubToolChoice | undefined {
  const config = asRecord(asRecord(raw)?.["functionCallingConfig"]);
  const allowed = asArray(config?.["allowedFunctionNames"]).filter((name): name is string => typeof name === "string");
  switch (config?.["mode"]) {
    case "AUTO":
      return { type: "auto" };
    case "NONE":
      return { type: "none" };
    case "ANY":
      return allowed.length === 1 && allowed[0] !== undefined ? { type: "function", name: allowed[0] } : { type: "required" };
    default:
      return undefined;
  }
}

function decodeReasoning(raw: unknown): HubReasoning | undefined {
  const config = asRecord(raw);
  if (!config) return undefined;
  const budget = asNumber(config["thinkingBudget"]);
  if (budget === 0) return { mode: "disabled" };
  if (budget === -1) return { mode: "adaptive" };
  if (budget !== undefined) return { mode: "enabled", budgetTokens: budget };
  const effort = parseEffort(asString(config["thinkingLevel"])?.toLowerCase());
  return effort !== undefined ? { mode: "enabled", effort } : undefined;
}

export function geminiRequestToHub(body: Record<string, unknown>, dropped: DroppedFields): HubRequest {
  for (const key of Object.keys(body)) if (!HANDLED_KEYS.has(key)) dropped.add(key);
  const hub: HubRequest = { messages: [], tools: decodeTools(body["tools"], dropped), stream: body["stream"] === true };
  const system = asArray(asRecord(body["systemInstruction"])?.["parts"])
    .map((part) => asString(asRecord(part)?.["text"]) ?? "")
    .filter((text) => text !== "")
    .join("\n\n");
  if (system !== "") hub.messages.push({ role: "system", text: system });
  hub.messages.push(...decodeContents(body["contents"], dropped));
  const toolChoice = decodeToolChoice(body["toolConfig"]);
  if (toolChoice) hub.toolChoice = toolChoice;
  const config = asRecord(body["generationConfig"]) ?? {};
  for (const key of Object.keys(config)) {
    if (!HANDLED_CONFIG.has(key) && !(key === "candidateCount" && config[key] === 1)) dropped.add(`generationConfig.${key}`);
  }
  const maxTokens = asNumber(config["maxOutputTokens"]);
  if (maxTokens !== undefined) hub.maxTokens = maxTokens;
  assignNumber(hub, "temperature", config["temperature"]);
  assignNumber(hub, "topP", config["topP"]);
  assignNumber(hub, "topK", config["topK"]);
  assignNumber(hub, "seed", config["seed"]);
  assignNumber(hub, "presencePenalty", config["presencePenalty"]);
  assignNumber(hub, "frequencyPenalty", config["frequencyPenalty"]);
  const stop = asArray(config["stopSequences"]).filter((s): s is string => typeof s === "string");
  if (stop.length > 0) hub.stop = stop;
  const schema = asRecord(config["responseJsonSchema"]) ?? asRecord(lowerCaseTypes(config["responseSchema"]));
  if (schema) hub.responseFormat = { type: "json_schema", name: "response", schema };
  else if (config["responseMimeType"] === "application/json") hub.responseFormat = { type: "json_object" };
  const reasoning = decodeReasoning(config["thinkingConfig"]);
  if (reasoning) hub.reasoning = reasoning;
  return hub;
}
