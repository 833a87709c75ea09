import type { WireFormat } from "./types.js";
import { isRecord } from "./records.js";

/** The first tool a request offers, reduced to what a simulated call needs. */
export interface ToolOffer {
  name: string;
  /** Required parameters typed as strings; the simulated call fills each with "sim". */
  requiredStrings: string[];
  /** A Responses `custom` tool: called with raw text (Codex's apply_patch), not JSON arguments. */
  freeform?: true;
}

export type LastTurn =
  | { kind: "user"; text: string }
  | { kind: "tool_result"; text: string }
  /** The request ends with the start of the assistant's answer: continue it (prefill). */
  | { kind: "assistant_prefix"; text: string }
  | { kind: "other" };

export interface Conversation {
  lastTurn: LastTurn;
  firstTool: ToolOffer | null;
  /** Characters of prompt text (messages and system), for a plausible input token count. */
  promptChars: number;
}

type Obj = Record<string, unknown>;

function lastOf(value: unknown): unknown {
  return Array.isArray(value) && value.length > 0 ? value[value.length - 1] : undefined;
}

/** Sum of the lengths of every string inside a JSON value, without serialising it. */
export function stringChars(value: unknown, depth = 0): number {
  if (typeof value === "string") return value.length;
  if (depth > 12 || typeof value !== "object" || value === null) return 0;
  let total = 0;
  if (Array.isArray(value)) {
    for (const item of value) total += stringChars(item, depth + 1);
  } else {
    for (const item of Object.values(value)) total += stringChars(item, depth + 1);
  }
  return total;
}

/** Text of a message content in any format: a string, or the `text` of its parts/blocks. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const part of content) {
    if (typeof part === "string") text += part;
    else if (isRecord(part) && typeof part.text === "string") text += part.text;
  }
  return text;
}

function requiredStrings(schema: unknown): string[] {
  if (!isRecord(schema) || !Array.isArray(schema.required)) return [];
  const props = isRecord(schema.properties) ? schema.properties : {};
  const names: string[] = [];
  for (const name of schema.required) {
    if (typeof name !== "string") continue;
    const prop = props[name];
    const type = isRecord(prop) ? prop.type : undefined;
    const types = Array.isArray(type) ? type : [type];
    if (types.some((t) => typeof t === "string" && t.toLowerCase() === "string")) names.push(name);
  }
  return names;
}

function offer(name: unknown, schema: unknown): ToolOffer | null {
  return typeof name === "string" && name.length > 0 ? { name, requiredStrings: requiredStrings(schema) } : null;
}

function readOpenAI(body: Obj): Conversation {
  const last = lastOf(body.messages);
  let lastTurn: LastTurn = { kind: "other" };
  if (isRecord(last)) {
    if (last.role === "tool" || last.role === "function") lastTurn = { kind: "tool_result", text: contentText(last.content) };
    else if (last.role === "user") lastTurn = { kind: "user", text: contentText(last.content) };
    else if (last.role === "assistant") lastTurn = { kind: "assistant_prefix", text: contentText(last.content) };
  }
  const first = Array.isArray(body.tools) ? body.tools[0] : undefined;
  const fn = isRecord(first) && isRecord(first.function) ? first.function : undefined;
  return {
    lastTurn,
    firstTool: fn ? offer(fn.name, fn.parameters) : null,
    promptChars: stringChars(body.messages),
  };
}

function readAnthropic(body: Obj): Conversation {
  const last = lastOf(body.messages);
  let lastTurn: LastTurn = { kind: "other" };
  if (isRecord(last) && last.role === "user") {
    const result = Array.isArray(last.content) ? last.content.find((block): block is Obj => isRecord(block) && block.type === "tool_result") : undefined;
    lastTurn = result ? { kind: "tool_result", text: contentText(result.content) } : { kind: "user", text: contentText(last.content) };
  } else if (isRecord(last) && last.role === "assistant") {
    lastTurn = { kind: "assistant_prefix", text: contentText(last.content) };
  }
  const first = Array.isArray(body.tools) ? body.tools[0] : undefined;
  return {
    lastTurn,
    firstTool: isRecord(first) ? offer(first.name, first.input_schema) : null,
    promptChars: stringChars(body.messages) + stringChars(body.system),
  };
}

function functionResponseText(response: unknown): string {
  if (typeof response === "string") return response;
  if (isRecord(response)) {
    for (const field of ["content", "result", "output"]) {
      const value = response[field];
      if (typeof value === "string") return value;
    }
  }
  return JSON.stringify(response ?? null);
}

function readGemini(body: Obj): Conversation {
  const last = lastOf(body.contents);
  let lastTurn: LastTurn = { kind: "other" };
  if (isRecord(last) && Array.isArray(last.parts)) {
    const result = last.parts.find((p): p is { functionResponse: Obj } => isRecord(p) && isRecord(p.functionResponse));
    if (result) {
      lastTurn = { kind: "tool_result", text: functionResponseText(result.functionResponse.response) };
    } else if (last.role === undefined || last.role === "user") {
      lastTurn = { kind: "user", text: contentText(last.parts) };
    }
  }
  let firstTool: ToolOffer | null = null;
  if (Array.isArray(body.tools)) {
    for (const tool of body.tools) {
      const decl = isRecord(tool) && Array.isArray(tool.functionDeclarations) ? tool.functionDeclarations[0] : undefined;
      if (isRecord(decl)) {
        firstTool = offer(decl.name, decl.parameters ?? decl.parametersJsonSchema);
        break;
      }
    }
  }
  return {
    lastTurn,
    firstTool,
    promptChars: stringChars(body.contents) + stringChars(body.systemInstruction),
  };
}

function responsesTurn(input: unknown): LastTurn {
  if (typeof input === "string") return { kind: "user", text: input };
  const last = lastOf(input);
  if (!isRecord(last)) return { kind: "other" };
  if (last.type === "function_call_output" || last.type === "custom_tool_call_output") {
    return { kind: "tool_result", text: contentText(last.output) };
  }
  // The easy form of a message item leaves out `type`.
  if (last.type !== undefined && last.type !== "message") return { kind: "other" };
  if (last.role === "user") return { kind: "user", text: contentText(last.content) };
  if (last.role === "assistant") return { kind: "assistant_prefix", text: contentText(last.content) };
  return { kind: "other" };
}

/**
 * The first tool the simulated model can call. Hosted tools (web_search, namespace, ...) are
 * skipped: they never reach a non-Responses upstream, so skipping them keeps the choice the same
 * whichever format the gateway translated the request into.
 */
function responsesTool(tools: unknown): ToolOffer | null {
  if (!Array.isArray(tools)) return null;
  for (const tool of tools) {
    if (!isRecord(tool)) continue;
    if (tool.type === "function") return offer(tool.name, tool.parameters);
    if (tool.type === "custom" && typeof tool.name === "string" && tool.name.length > 0) {
      return { name: tool.name, requiredStrings: [], freeform: true };
    }
  }
  return null;
}

function readResponses(body: Obj): Conversation {
  return {
    lastTurn: responsesTurn(body.input),
    firstTool: responsesTool(body.tools),
    promptChars: stringChars(body.input) + stringChars(body.instructions),
  };
}

export function readConversation(format: WireFormat, body: unknown): Conversation {
  if (!isRecord(body)) return { lastTurn: { kind: "other" }, firstTool: null, promptChars: 0 };
  if (format === "openai-responses") return readResponses(body);
  if (format === "anthropic") return readAnthropic(body);
  if (format === "gemini") return readGemini(body);
  return readOpenAI(body);
}
