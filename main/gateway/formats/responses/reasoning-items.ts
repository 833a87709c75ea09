// Reasoning items carry their replayable state in `encrypted_content`, which Responses clients
// (Codex with include: ["reasoning.encrypted_content"]) send back on the next turn. Reasoning a
// Responses upstream produced keeps its real blob; reasoning from elsewhere travels in the same
// field under a Switchyard prefix: an Anthropic signature or redacted payload (so signed thinking
// survives a Codex turn and Anthropic keeps thinking on with tool use), or the marker naming the
// origin, as Anthropic clients get it in their signatures (reasoning.ts).

import type { HubAssistantPart } from "../hub.js";
import { markerSignature, originOfSignature } from "../reasoning.js";
import { asArray, asRecord, asString, type JsonObject } from "../values.js";

type ReasoningPart = Extract<HubAssistantPart, { type: "reasoning" }>;

const ANTHROPIC_SIGNATURE = "switchyard.anthropic.signature:";
const ANTHROPIC_REDACTED = "switchyard.anthropic.redacted:";

/** What goes into a reasoning item's encrypted_content for this part, if anything. */
export function encryptedContentOf(part: ReasoningPart): string | undefined {
  switch (part.origin) {
    case "openai-responses":
      return part.encryptedContent;
    case "anthropic":
      if (part.redactedData !== undefined) return `${ANTHROPIC_REDACTED}${part.redactedData}`;
      return part.signature ? `${ANTHROPIC_SIGNATURE}${part.signature}` : undefined;
    default:
      return markerSignature(part.origin);
  }
}

/** The same wrapping for a streamed Anthropic signature or redacted block. */
export function wrappedAnthropicSignature(signature: string): string {
  return `${ANTHROPIC_SIGNATURE}${signature}`;
}

export function wrappedAnthropicRedacted(data: string): string {
  return `${ANTHROPIC_REDACTED}${data}`;
}

/** Summary texts, or the raw reasoning text some servers (gpt-oss) send instead. */
function reasoningItemText(item: JsonObject): string {
  const texts = (items: unknown): string[] => asArray(items).flatMap((entry) => asString(asRecord(entry)?.["text"]) ?? []);
  const summary = texts(item["summary"]);
  return (summary.length > 0 ? summary : texts(item["content"])).join("\n\n");
}

export function reasoningPartOf(item: JsonObject): ReasoningPart {
  const text = reasoningItemText(item);
  const encrypted = asString(item["encrypted_content"]);
  if (encrypted?.startsWith(ANTHROPIC_SIGNATURE)) {
    return { type: "reasoning", text, origin: "anthropic", signature: encrypted.slice(ANTHROPIC_SIGNATURE.length) };
  }
  if (encrypted?.startsWith(ANTHROPIC_REDACTED)) {
    return { type: "reasoning", text: "", origin: "anthropic", redactedData: encrypted.slice(ANTHROPIC_REDACTED.length) };
  }
  const marked = originOfSignature(encrypted);
  if (marked !== undefined && marked !== "anthropic") return { type: "reasoning", text, origin: marked };
  return { type: "reasoning", text, origin: "openai-responses", ...(encrypted ? { encryptedContent: encrypted } : {}) };
}
