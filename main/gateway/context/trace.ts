// What the request log keeps beyond the attempts (issue 14's timeline): which kind of client sent
// the request, what selection passed over before dispatch and why, and the prompt text, only
// when the operator turned prompt logging on.
import type { IncomingHttpHeaders } from "node:http";
import type { ClientKind, RequestLogEntry, SkipRecord } from "../../../shared/types.js";
import type { SelectionLog } from "./attempt.js";

function header(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  return (Array.isArray(value) ? value.join(" ") : (value ?? "")).toLowerCase();
}

/**
 * Claude Code's own marks, on every request its API client sends: its session header and the
 * browser-access header its SDK client adds (dangerouslyAllowBrowser), and its `claude-code-…` beta.
 */
function hasClaudeCodeMarks(headers: IncomingHttpHeaders): boolean {
  return (
    header(headers, "x-claude-code-session-id") !== "" ||
    header(headers, "anthropic-dangerous-direct-browser-access") !== "" ||
    header(headers, "anthropic-beta").includes("claude-code-")
  );
}

/**
 * The client's kind from its user-agent and the headers only that client sends (measured with the
 * real clients: tests/fixtures/clients/clientHeaders.json). Order matters where clients borrow
 * another's name:
 * - Qwen Code in Anthropic mode poses as Claude Code: `claude-cli/<its own version> (external, cli)`
 *   plus `x-app: cli`, but none of Claude Code's own marks. A bare claude-cli user-agent without
 *   `x-app` stays Claude Code, as it was before Qwen Code borrowed the name.
 * - opencode runs on the AI SDK and keeps its `ai-sdk/…` suffix, so it is checked before the AI SDK.
 * - aider talks through litellm and the OpenAI SDK: its mark is the `X-Title: Aider` / aider.chat
 *   referer it adds.
 * - Codex names itself (`codex_exec`, `codex_cli_rs`, `codex-tui`, `codex_vscode`) at the head of
 *   the user-agent and in the `originator` header.
 * - The AI SDK appends `ai/<v>` (its core), `ai-sdk-provider-utils/<v>` (v5 providers) or
 *   `ai-sdk/provider-utils/<v>` (v4 providers) to whatever user-agent the caller set.
 */
export function clientKindOf(headers: IncomingHttpHeaders): ClientKind {
  const ua = header(headers, "user-agent");
  const claudeCli = ua.includes("claude-cli") || ua.includes("claude-code");
  if (ua.startsWith("qwencode/") || (claudeCli && header(headers, "x-app") !== "" && !hasClaudeCodeMarks(headers))) return "qwen-code";
  if (claudeCli) return "claude-code";
  if (ua.includes("aider") || header(headers, "x-title") === "aider" || header(headers, "http-referer").includes("aider.chat")) return "aider";
  if (/^codex[_-]/.test(ua) || header(headers, "originator").startsWith("codex")) return "codex-cli";
  // The Gemini CLI talks through the GenAI SDK, whose mark it carries too: its own name comes first
  // (measured with 0.61: `GeminiCLI-tui/0.61.0/<model> (…)`, plain `GeminiCLI/…` without a client name).
  if (/^geminicli(-[a-z0-9_-]+)?\//.test(ua)) return "gemini-cli";
  if (ua.startsWith("opencode/")) return "opencode";
  if (/(^|\s)(ai\/\d|ai-sdk[/-])/.test(ua)) return "ai-sdk";
  if (ua.startsWith("openai/") || ua.includes("openai-python") || ua.includes("openai-node")) return "openai-sdk";
  if (ua.startsWith("anthropic/") || ua.includes("anthropic-sdk")) return "anthropic-sdk";
  if (ua.includes("google-genai-sdk/") || header(headers, "x-goog-api-client").includes("google-genai-sdk/")) return "genai-sdk";
  if (ua.startsWith("curl/")) return "curl";
  return "other";
}

/** What selection passed over before dispatch, pass by pass, connection by connection where it knows which. */
export function skipRecordsOf(selection: SelectionLog): SkipRecord[] {
  // The usual request skipped nothing in its one pass.
  if (selection.earlier.length === 0 && selection.exclusions.length === 0 && selection.leased.length === 0 && selection.quotaCutoff.length === 0) return [];
  return [...selection.earlier, selection].flatMap((pass) => [
    ...pass.exclusions.map((e) => ({ provider: e.provider, target: e.target, connectionId: e.connectionId ?? null, reason: e.reason, remainingMs: e.remainingMs })),
    ...pass.leased.map((l) => ({ ...l, reason: "leased", remainingMs: null })),
    ...pass.quotaCutoff.map((q) => ({ ...q, reason: "quota_cutoff" })),
  ]);
}

/** The request-log fields known when a request arrives. */
export type ArrivalFields = Pick<RequestLogEntry, "clientKind" | "promptText">;

/**
 * The log fields of a request that are known when it arrives. `promptText` reads the prompt (the
 * client half's promptText): it runs only when prompt logging is on.
 */
export function arrivalFields(headers: IncomingHttpHeaders, promptText: () => string, logPrompt: boolean): ArrivalFields {
  return { clientKind: clientKindOf(headers), promptText: logPrompt ? promptText() : null };
}
