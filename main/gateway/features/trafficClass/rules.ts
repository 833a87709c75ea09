// R20.3: what a request is for — the turn the user waits on, a subagent's turn, background work,
// a compaction or a token count — read from the client's own signals. Every rule below was learned
// from a real capture of that client (tests/fixtures/clients/trafficCaptures.json, written by
// scripts/capture-traffic.mjs; the `what` of the capture is quoted), none guessed from a name.
// It runs on every request: it reads a few headers, the route, and only the first few hundred
// characters of the system prompt and of the last user text — never the whole body.
import type { IncomingHttpHeaders } from "node:http";
import { isRecord } from "../../../../shared/records.js";
import type { ClientKind, TrafficClass, WireFormat } from "../../../../shared/types.js";
import { clientHalf } from "../../formats/index.js";

export interface TrafficInput {
  format: WireFormat;
  /** The request path (a query string, if any, is ignored). */
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  clientKind: ClientKind;
}

/** How much of a prompt is read: every opening matched below is shorter. */
const HEAD = 200;

function headerOf(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  if (typeof value === "string") return value;
  return Array.isArray(value) ? (value[0] ?? "") : "";
}

const head = (text: string) => text.slice(0, HEAD).trimStart();

/** The openings of the system prompt and of the last user text, as the client's format says where they are (R22.5). */
function openings(format: WireFormat, body: Record<string, unknown>): { system: string[]; lastUser: string; lastItemType: string | undefined } {
  const texts = clientHalf(format).trafficTexts(body);
  return { system: texts.system.filter((t) => t !== "").map(head), lastUser: head(texts.lastUser), lastItemType: texts.lastItemType };
}

const startsWithAny = (heads: string[], opening: string) => heads.some((h) => h.startsWith(opening));

// Claude Code 2.1.332.
function claudeCode({ format, headers, body }: TrafficInput): TrafficClass {
  const { system, lastUser: user } = openings(format, body);
  // "session title (claude-haiku-4-5)": sent on ANTHROPIC_SMALL_FAST_MODEL when it is set, else on the main model.
  if (startsWithAny(system, "You are naming a coding session")) return "background";
  // "prompt suggestion after the turn": a fork of the main conversation (same system and tools), its own last user text.
  if (user.startsWith("[SUGGESTION MODE:")) return "background";
  // "/compact summary request": also a fork; the instruction is the last text block, after whatever the user had last.
  if (user.startsWith("CRITICAL: Respond with TEXT ONLY. Do NOT call any tools.")) return "compaction";
  // "Agent tool's subagent turn": the agent-id header, and `cc_is_subagent=true` in the billing block.
  if (headerOf(headers, "x-claude-code-agent-id") !== "" || system.some((h) => h.includes("cc_is_subagent=true"))) return "subagent";
  // No shape marks a side query: "main turn (sdk-cli, claude-sonnet-4-5, 0 tools, thinking off)" has the title request's shape (no tools, no
  // context_management, thinking disabled), and "main turn (sdk-cli, claude-haiku-4-5, 0 tools)" ran on the
  // small-fast model's name. Only the prompts above tell them apart.
  return "main";
}

// Codex CLI 0.171.0: it says what each request is, in headers.
function codex({ format, headers, body }: TrafficInput): TrafficClass {
  const subagent = headerOf(headers, "x-openai-subagent");
  // "memory consolidation (memories feature)": `x-openai-subagent: memory_consolidation` and `x-openai-memgen-request: true`.
  if (subagent === "memory_consolidation" || headerOf(headers, "x-openai-memgen-request") === "true") return "background";
  // Both compactions — local ("CONTEXT CHECKPOINT COMPACTION" prompt, no tools) and remote v2 (a `compaction_trigger`
  // input item, provider named OpenAI) — say `"request_kind":"compaction"` in x-codex-turn-metadata.
  if (headerOf(headers, "x-codex-turn-metadata").includes('"request_kind":"compaction"')) return "compaction";
  // The same without the metadata header (a proxy that drops x-codex-* headers).
  const { lastItemType, lastUser } = openings(format, body);
  if (lastItemType === "compaction_trigger" || lastUser.startsWith("You are performing a CONTEXT CHECKPOINT COMPACTION")) return "compaction";
  // "child thread (collab_spawn)" and "codex exec review": any other x-openai-subagent label is a subagent's thread.
  if (subagent !== "") return "subagent";
  return "main";
}

// Gemini CLI 0.61.0: its utility calls are non-streaming generateContent; its turns stream.
function geminiCli({ format, path, body }: TrafficInput): TrafficClass {
  const { system } = openings(format, body);
  // "/compress, the <state_snapshot> summary" and "its self-check pass" share this system prompt.
  if (startsWithAny(system, "You are a specialized system component responsible for distilling chat history")) return "compaction";
  // "model router's complexity classifier (-m auto)", on its flash-lite model.
  if (startsWithAny(system, "You are a specialized Task Routing AI")) return "background";
  // "next-speaker check" (model.skipNextSpeakerCheck: false), on its flash model.
  if (openings(format, body).lastUser.startsWith("Analyze *only* the content and structure of your immediately preceding response")) return "background";
  // Both side checks above ask for JSON of a schema (responseJsonSchema) without streaming; so does any other of its
  // JSON utility calls. A turn never does.
  const config = body.generationConfig;
  if (path.includes(":generateContent") && isRecord(config) && (config.responseJsonSchema !== undefined || config.responseSchema !== undefined)) return "background";
  return "main";
}

// opencode 1.18.33 (on the OpenAI-compatible provider; the prompts are its own whatever the provider).
function opencode({ format, headers, body }: TrafficInput): TrafficClass {
  const { system } = openings(format, body);
  // "session title": the first of the two requests each prompt sends.
  if (startsWithAny(system, "You are a title generator")) return "background";
  // "session compaction summary".
  if (startsWithAny(system, "You are a context summarization agent")) return "compaction";
  // "task tool's subagent session": the child session names its parent.
  if (headerOf(headers, "x-parent-session-id") !== "") return "subagent";
  return "main";
}

// Qwen Code 0.24.4, in OpenAI and in Anthropic mode alike: no header tells its requests apart, the system prompt does.
function qwenCode({ format, body }: TrafficInput): TrafficClass {
  const { system } = openings(format, body);
  // "memory extraction after the turn".
  if (startsWithAny(system, "You are now acting as the managed memory extraction subagent")) return "background";
  // "auto-compaction summary".
  if (startsWithAny(system, "You are the component that summarizes a conversation")) return "compaction";
  // "agent tool's subagent" (the built-in general-purpose agent; a custom agent's own prompt is not recognised).
  if (startsWithAny(system, "You are a general-purpose subagent")) return "subagent";
  return "main";
}

/**
 * R25.5: Claude Code's gateway hint (`CLAUDE_CODE_GATEWAY_HINT_HEADERS=1`, 2.1.273+): the class it
 * names comes ahead of every body signal. 2.1.332 also sends `side_reply`, which no class here
 * matches: like any value not listed, it leaves the decision to the rules below.
 */
export const REQUEST_CLASS_HEADER = "x-claude-code-request-class";
const HINTED_CLASS: Readonly<Record<string, TrafficClass>> = {
  main: "main",
  subagent: "subagent",
  workflow: "subagent",
  compaction: "compaction",
  auxiliary: "background",
};

function hintedClass(headers: IncomingHttpHeaders): TrafficClass | null {
  const value = headerOf(headers, REQUEST_CLASS_HEADER).trim().toLowerCase();
  return Object.hasOwn(HINTED_CLASS, value) ? HINTED_CLASS[value] : null;
}

const BY_CLIENT: Partial<Record<ClientKind, (input: TrafficInput) => TrafficClass>> = {
  "claude-code": claudeCode,
  "codex-cli": codex,
  "gemini-cli": geminiCli,
  opencode,
  "qwen-code": qwenCode,
};

/** R20.3: the traffic class of one request; `main` when nothing says otherwise. */
export function trafficClassOf(input: TrafficInput): TrafficClass {
  const query = input.path.indexOf("?");
  const path = query >= 0 ? input.path.slice(0, query) : input.path;
  // The count routes of every wire (Claude Code's /context sends one per prompt section and tool).
  if (path.endsWith("/messages/count_tokens") || path.endsWith("/responses/input_tokens") || path.endsWith(":countTokens")) return "count";
  // Remote compaction's own route (Codex 0.171 no longer calls it: it compacts through /v1/responses, above).
  if (path.endsWith("/responses/compact")) return "compaction";
  const hinted = hintedClass(input.headers);
  if (hinted) return hinted;
  const rules = BY_CLIENT[input.clientKind];
  return rules ? rules({ ...input, path }) : "main";
}
