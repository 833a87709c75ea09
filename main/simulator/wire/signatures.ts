// Reasoning signatures bound to the account that issued them (issue 27, R20.1). Anthropic signs
// each thinking block and Gemini each thought signature for the account that produced it, and both
// refuse one another account issued; the simulator seals them with the request's API key
// (artifacts.ts), so a gateway that carries them across accounts meets the refusals real upstreams give.
import { isRecord } from "../records.js";
import { opens } from "./artifacts.js";

type Obj = Record<string, unknown>;

/** Anthropic `thinking: {type: "enabled", budget_tokens}` or `{type: "adaptive"}`. */
export function anthropicThinking(body: unknown): boolean {
  return isRecord(body) && isRecord(body.thinking) && (body.thinking.type === "enabled" || body.thinking.type === "adaptive");
}

/** Gemini `generationConfig.thinkingConfig`: present at all, and asking for thought parts. */
export function geminiThinking(body: unknown): { configured: boolean; includeThoughts: boolean } {
  const config = isRecord(body) && isRecord(body.generationConfig) ? body.generationConfig.thinkingConfig : undefined;
  return { configured: isRecord(config), includeThoughts: isRecord(config) && config.includeThoughts === true };
}

function sealedBy(key: string | null, value: unknown): boolean {
  return typeof value === "string" && opens(key, value);
}

function blocksOf(message: unknown): Obj[] {
  return isRecord(message) && Array.isArray(message.content) ? message.content.filter(isRecord) : [];
}

/** The real API's wording (typo included), from its 400 when a tool loop lost its thinking block. */
const TOOL_LOOP_RULE =
  "When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`.";

/** The block type opening the assistant message of an active tool loop that lacks its thinking block, or null. */
function toolLoopBreak(messages: unknown[]): { index: number; found: string } | null {
  const last = messages[messages.length - 1];
  const assistant = messages[messages.length - 2];
  if (!isRecord(last) || last.role !== "user" || !blocksOf(last).some((b) => b.type === "tool_result")) return null;
  if (!isRecord(assistant) || assistant.role !== "assistant" || !blocksOf(assistant).some((b) => b.type === "tool_use")) return null;
  const first = Array.isArray(assistant.content) ? assistant.content[0] : undefined;
  const found = isRecord(first) && typeof first.type === "string" ? first.type : "text";
  return found === "thinking" || found === "redacted_thinking" ? null : { index: messages.length - 2, found };
}

/**
 * The message of Anthropic's 400 for this request, or null: a thinking (or redacted_thinking)
 * block in any assistant message whose signature (data) this key did not issue — checked whether
 * or not the request enables thinking, as the real API does — then, with thinking enabled, an
 * active tool loop whose assistant message does not start with a thinking block.
 */
export function anthropicSignatureRefusal(body: unknown, key: string | null): string | null {
  if (!isRecord(body) || !Array.isArray(body.messages)) return null;
  const messages: unknown[] = body.messages;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (!isRecord(message) || message.role !== "assistant" || !Array.isArray(message.content)) continue;
    for (let j = 0; j < message.content.length; j++) {
      const block: unknown = message.content[j];
      if (!isRecord(block)) continue;
      if (block.type === "thinking" && !sealedBy(key, block.signature)) return `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`;
      if (block.type === "redacted_thinking" && !sealedBy(key, block.data)) return `messages.${i}.content.${j}: Invalid \`data\` in \`redacted_thinking\` block`;
    }
  }
  const broken = anthropicThinking(body) ? toolLoopBreak(messages) : null;
  return broken ? `messages.${broken.index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${broken.found}\`. ${TOOL_LOOP_RULE}` : null;
}

/** Values Google documents for skipping the check on history it did not produce (function calls injected or moved across models). */
const GEMINI_BYPASS = new Set(["skip_thought_signature_validator", "context_engineering_is_the_way_to_go"]);

/** "Corrupted thought signature." when a model part carries a signature this key did not issue and no bypass value; a missing one passes. */
export function geminiSignatureRefusal(body: unknown, key: string | null): string | null {
  if (!isRecord(body) || !Array.isArray(body.contents)) return null;
  for (const content of body.contents) {
    if (!isRecord(content) || content.role !== "model" || !Array.isArray(content.parts)) continue;
    for (const part of content.parts) {
      if (!isRecord(part) || part.thoughtSignature === undefined) continue;
      const signature = part.thoughtSignature;
      if (!(typeof signature === "string" && GEMINI_BYPASS.has(signature)) && !sealedBy(key, signature)) return "Corrupted thought signature.";
    }
  }
  return null;
}
