// Identifiers the formats disagree on.

const ANTHROPIC_ID = /^[A-Za-z0-9_-]+$/;

function idSafe(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, "_");
}

/**
 * Gemini gives function calls no id (or one only on some backends). A synthesised id is
 * derived from the request id and the call's position, so the JSON and streaming paths of
 * one response agree and ids never collide across turns.
 */
export function syntheticToolId(requestId: string, position: number): string {
  return `call_${idSafe(requestId)}_${position}`;
}

/**
 * Anthropic rejects tool ids outside [A-Za-z0-9_-]; some OpenAI-compatible upstreams mint
 * ids like `functions.read:0`. Rewriting is deterministic, so tool_use and tool_result
 * still pair up; valid ids pass unchanged.
 */
export function anthropicToolId(id: string): string {
  if (ANTHROPIC_ID.test(id)) return id;
  const safe = idSafe(id);
  return safe === "" ? "toolu_missing" : safe;
}

export function messageId(prefix: "msg_" | "chatcmpl-", requestId: string): string {
  return `${prefix}${idSafe(requestId)}`;
}
