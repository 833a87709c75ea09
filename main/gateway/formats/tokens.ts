// count_tokens for non-Anthropic upstreams, which cannot count with Claude's tokenizer.
// Heuristic: one token per four characters of every text the model reads (system,
// messages, tool calls and results, tool definitions), plus a flat cost per image or
// document, since their real cost depends on pixel size and page count we do not decode.

import type { HubRequest } from "./hub.js";
import { asArray, asRecord, asString, isRecord } from "./values.js";

const CHARS_PER_TOKEN = 4;
/** Anthropic's cost of a ~1.15 megapixel image, its recommended maximum size. */
const TOKENS_PER_MEDIA_BLOCK = 1600;

interface Tally {
  chars: number;
  media: number;
}

function countContent(content: unknown, tally: Tally): void {
  if (typeof content === "string") {
    tally.chars += content.length;
    return;
  }
  for (const raw of asArray(content)) {
    const block = asRecord(raw);
    if (!block) continue;
    switch (block["type"]) {
      case "image":
      case "document":
        if (asRecord(block["source"])?.["type"] === "text") tally.chars += (asString(asRecord(block["source"])?.["data"]) ?? "").length;
        else tally.media += 1;
        break;
      case "tool_use":
        tally.chars += (asString(block["name"]) ?? "").length + JSON.stringify(block["input"] ?? {}).length;
        break;
      case "tool_result":
        countContent(block["content"] ?? "", tally);
        break;
      case "thinking":
        tally.chars += (asString(block["thinking"]) ?? "").length;
        break;
      default:
        tally.chars += (asString(block["text"]) ?? "").length;
    }
  }
}

export function estimateInputTokens(anthropicBody: Record<string, unknown>): { input_tokens: number } {
  const tally: Tally = { chars: 0, media: 0 };
  countContent(anthropicBody["system"] ?? "", tally);
  for (const message of asArray(anthropicBody["messages"])) {
    if (isRecord(message)) countContent(message["content"] ?? "", tally);
  }
  for (const raw of asArray(anthropicBody["tools"])) {
    const tool = asRecord(raw);
    if (!tool) continue;
    tally.chars += (asString(tool["name"]) ?? "").length + (asString(tool["description"]) ?? "").length;
    if (tool["input_schema"] !== undefined) tally.chars += JSON.stringify(tool["input_schema"]).length;
  }
  return { input_tokens: Math.max(1, Math.ceil(tally.chars / CHARS_PER_TOKEN) + tally.media * TOKENS_PER_MEDIA_BLOCK) };
}

/** The same estimate from the hub shape, for client formats other than Anthropic's. */
export function estimateHubInputTokens(hub: HubRequest): number {
  const tally: Tally = { chars: 0, media: 0 };
  for (const message of hub.messages) {
    if (message.role === "system") {
      tally.chars += message.text.length;
      continue;
    }
    for (const part of message.parts) {
      if (part.type === "text" || part.type === "reasoning") tally.chars += part.text.length;
      else if (part.type === "tool_call") tally.chars += part.name.length + part.arguments.length;
      else tally.media += 1;
    }
  }
  for (const tool of hub.tools) tally.chars += tool.name.length + (tool.description ?? "").length + JSON.stringify(tool.parameters).length;
  return Math.max(1, Math.ceil(tally.chars / CHARS_PER_TOKEN) + tally.media * TOKENS_PER_MEDIA_BLOCK);
}
