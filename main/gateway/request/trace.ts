// What the request log keeps beyond the attempts (issue 14's timeline): which kind of client sent
// the request, what selection passed over before dispatch and why, and the prompt text, only
// when the operator turned prompt logging on.
import type { IncomingHttpHeaders } from "node:http";
import type { ClientKind, RequestLogEntry, SkipRecord } from "../../../shared/types.js";
import type { SelectionLog } from "./select.js";

/** A logged prompt is cut here: the log is for "why did it go there", not an archive. */
export const PROMPT_TEXT_MAX_CHARS = 16_000;

function header(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  return (Array.isArray(value) ? value.join(" ") : value ?? "").toLowerCase();
}

/**
 * The client's kind from its user-agent. aider talks through litellm and the OpenAI SDK, so its
 * own mark is the `X-Title: Aider` / aider.chat referer it adds; Codex CLI names itself as
 * `codex_cli_rs` in the user-agent or the `originator` header.
 */
export function clientKindOf(headers: IncomingHttpHeaders): ClientKind {
  const ua = header(headers, "user-agent");
  if (ua.includes("claude-cli") || ua.includes("claude-code")) return "claude-code";
  if (ua.includes("aider") || header(headers, "x-title") === "aider" || header(headers, "http-referer").includes("aider.chat")) return "aider";
  if (ua.includes("codex") || header(headers, "originator").includes("codex")) return "codex-cli";
  if (ua.startsWith("openai/") || ua.includes("openai-python") || ua.includes("openai-node")) return "openai-sdk";
  if (ua.startsWith("anthropic/") || ua.includes("anthropic-sdk")) return "anthropic-sdk";
  if (ua.startsWith("curl/")) return "curl";
  return "other";
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => (part && typeof part === "object" && typeof (part as { text?: unknown }).text === "string" ? (part as { text: string }).text : ""))
    .filter(Boolean)
    .join("\n");
}

/** The prompt as "role: text" lines, from any of the three wire formats; images and tools are left out. */
export function promptTextOf(body: Record<string, unknown>): string {
  const lines: string[] = [];
  const system = textOf(body.system) || textOf((body.systemInstruction as { parts?: unknown } | undefined)?.parts);
  if (system) lines.push(`system: ${system}`);
  const turns = Array.isArray(body.messages) ? body.messages : Array.isArray(body.contents) ? body.contents : [];
  for (const turn of turns as Array<Record<string, unknown>>) {
    if (!turn || typeof turn !== "object") continue;
    const text = textOf(turn.content ?? turn.parts);
    if (text) lines.push(`${String(turn.role ?? "user")}: ${text}`);
  }
  const all = lines.join("\n");
  return all.length > PROMPT_TEXT_MAX_CHARS ? `${all.slice(0, PROMPT_TEXT_MAX_CHARS)}…` : all;
}

/** What selection passed over before dispatch, pass by pass, connection by connection where it knows which. */
export function skipRecordsOf(selection: SelectionLog): SkipRecord[] {
  // The usual request skipped nothing in its one pass.
  if (selection.earlier.length === 0 && selection.exclusions.length === 0 && selection.leased.length === 0) return [];
  return [...selection.earlier, selection].flatMap((pass) => [
    ...pass.exclusions.map((e) => ({ provider: e.provider, target: e.target, connectionId: e.connectionId ?? null, reason: e.reason, remainingMs: e.remainingMs })),
    ...pass.leased.map((l) => ({ ...l, reason: "leased", remainingMs: null })),
  ]);
}

/** The log fields of a request that are known when it arrives. */
export function arrivalFields(headers: IncomingHttpHeaders, body: Record<string, unknown>, logPrompt: boolean): Pick<RequestLogEntry, "clientKind" | "promptText"> {
  return { clientKind: clientKindOf(headers), promptText: logPrompt ? promptTextOf(body) : null };
}
