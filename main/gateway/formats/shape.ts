// R1.9 shape checks and session hints that several client formats share.

import { isRecord } from "./values.js";

/** A model string and a non-empty `messages` array of objects with a role (chat and Messages bodies). */
export function messagesShapeProblem(body: Record<string, unknown>): string | null {
  if (typeof body["model"] !== "string" || !body["model"]) return "model: required non-empty string";
  const messages = body["messages"];
  if (!Array.isArray(messages) || messages.length === 0) return "messages: required non-empty array";
  const bad = messages.findIndex((m) => !isRecord(m) || typeof m["role"] !== "string");
  if (bad >= 0) return `messages[${bad}]: must be an object with a string role`;
  return null;
}

/** A prompt_cache_key, or Anthropic-style cache_control marks in the messages or system prompt. */
export function cacheControlHint(body: Record<string, unknown>): boolean {
  if (typeof body["prompt_cache_key"] === "string") return true;
  return JSON.stringify(body["messages"] ?? "").includes('"cache_control"') || JSON.stringify(body["system"] ?? "").includes('"cache_control"');
}

function bodyValue(value: unknown): string | null {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return typeof value === "string" && value.trim() ? value.trim() : null;
}

/** D7's body fields, in its order: metadata.session_id, conversation_id, session_id, prompt_cache_key. */
export function metadataSessionHint(body: Record<string, unknown>): string | null {
  const metadata = isRecord(body["metadata"]) ? body["metadata"] : {};
  return bodyValue(metadata["session_id"]) ?? bodyValue(body["conversation_id"]) ?? bodyValue(body["session_id"]) ?? bodyValue(body["prompt_cache_key"]);
}
