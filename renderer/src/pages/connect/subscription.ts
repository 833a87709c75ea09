// "Use your subscription" (R21.8): the lines that point Claude Code on a Pro/Max plan and Codex on a
// ChatGPT plan at this instance while each keeps its own login, and which provider and client-login
// connection (R21.1) will carry that login upstream. Pure, so the page, its tests and the real-client
// tests read the same text the copy buttons copy.
import type { Connection, Provider } from "../../../../shared/types.js";
import { runLine } from "./snippets.js";

export type SubscriptionKind = "claude-code" | "codex-cli";

export interface SubscriptionInput {
  /** The gateway origin, e.g. http://127.0.0.1:8642 (no trailing slash). */
  url: string;
  /** A Switchyard client key, or null when the instance requires none. */
  key: string | null;
}

/** Where a login of this kind goes upstream: the provider a client-login connection belongs to. */
export interface LoginUpstream {
  format: Provider["format"];
  /** The vendor's own base URL, in API.md's convention for the format. */
  baseUrl: string;
  /** The provider id the page suggests when none fits yet. */
  suggestedId: string;
  /** Whose login it is, as a sentence names it. */
  login: string;
}

export interface SubscriptionSnippet {
  kind: SubscriptionKind;
  /** The card's heading (it names the plan, not the client: the client's own card keeps that name). */
  title: string;
  /** `switchyard run <agent>`: with a login, run keeps it (R23.2, R21.8). */
  run: string;
  where: string;
  language: "sh" | "toml";
  text: string;
  upstream: LoginUpstream;
}

/** The path Codex's ChatGPT login speaks to (ChatGPT's Codex backend), which Switchyard serves too. */
export const CODEX_BACKEND_PATH = "/backend-api/codex";

export const LOGIN_UPSTREAMS: Record<SubscriptionKind, LoginUpstream> = {
  "claude-code": { format: "anthropic", baseUrl: "https://api.anthropic.com/v1", suggestedId: "claude-login", login: "your Claude login" },
  "codex-cli": { format: "openai-responses", baseUrl: `https://chatgpt.com${CODEX_BACKEND_PATH}`, suggestedId: "chatgpt-login", login: "your ChatGPT login" },
};

/** A TOML basic string (JSON's escapes are TOML's). */
const q = (value: string) => JSON.stringify(value);

/** A value in double quotes for a POSIX shell. */
const dq = (value: string) => `"${value.replace(/["\\$`]/g, (c) => `\\${c}`)}"`;

export function buildSubscriptionSnippets({ url, key }: SubscriptionInput): SubscriptionSnippet[] {
  // R25.5: Claude Code then tells Switchyard what each request is for (main turn, subagent, compaction…).
  const claudeLines = [`export ANTHROPIC_BASE_URL=${url}`, `export CLAUDE_CODE_GATEWAY_HINT_HEADERS=1`];
  // R21.3: the Switchyard key rides in a header of its own, so Authorization stays the login's.
  if (key !== null) claudeLines.push(`export ANTHROPIC_CUSTOM_HEADERS=${dq(`X-Switchyard-Key: ${key}`)}`);
  claudeLines.push(`claude`);
  const codexLines = [
    `model_provider = "switchyard"`,
    ``,
    `[model_providers.switchyard]`,
    `name = "Switchyard"`,
    `base_url = ${q(`${url}${CODEX_BACKEND_PATH}`)}`,
    `wire_api = "responses"`,
    `requires_openai_auth = true`,
  ];
  if (key !== null) codexLines.push(`http_headers = { "X-Switchyard-Key" = ${q(key)} }`);
  return [
    {
      kind: "claude-code",
      title: "Claude Pro or Max plan",
      run: runLine("claude", url, [], key),
      where: "Claude Code keeps its own login: set only the address (no ANTHROPIC_API_KEY, which would take the login's place). Run in the shell you start claude from.",
      language: "sh",
      text: claudeLines.join("\n"),
      upstream: LOGIN_UPSTREAMS["claude-code"],
    },
    {
      kind: "codex-cli",
      title: "ChatGPT plan (Codex)",
      run: runLine("codex", url, [], key),
      // Codex sends its ChatGPT tokens (and chatgpt-account-id) only to a provider with
      // requires_openai_auth, and only ChatGPT's Codex backend serves them: hence its path, no env_key.
      where:
        "Codex keeps its ChatGPT login: put in ~/.codex/config.toml, the first line at the top (above any [table]). Switchyard serves ChatGPT's Codex backend paths at this address.",
      language: "toml",
      text: codexLines.join("\n"),
      upstream: LOGIN_UPSTREAMS["codex-cli"],
    },
  ];
}

/** Whether a provider can take this kind of login: the login's own format (and, for ChatGPT, its backend). */
export function takesLogin(kind: SubscriptionKind, provider: Provider): boolean {
  const upstream = LOGIN_UPSTREAMS[kind];
  if (provider.format !== upstream.format) return false;
  return kind !== "codex-cli" || provider.baseUrl.replace(/\/+$/, "").endsWith(CODEX_BACKEND_PATH);
}

export interface LoginCarrier {
  provider: Provider;
  connection: Connection;
}

/**
 * The client-login connections (not a login's own accounts) that will carry this kind of login,
 * active ones first, then as the gateway orders providers and connections (priority, lower first).
 */
export function loginCarriers(kind: SubscriptionKind, providers: Provider[], connections: Connection[]): LoginCarrier[] {
  const byId = new Map(providers.filter((p) => takesLogin(kind, p)).map((p) => [p.id, p]));
  return connections
    .filter((c) => c.credential === "client" && !c.accountOf && byId.has(c.provider))
    .map((connection) => ({ provider: byId.get(connection.provider)!, connection }))
    .sort((a, b) => Number(b.connection.active) - Number(a.connection.active) || a.provider.priority - b.provider.priority || a.connection.priority - b.connection.priority);
}

/** The provider a new client-login connection for this kind goes to: an existing one that takes the login, else null (one must be added). */
export function providerForLogin(kind: SubscriptionKind, providers: Provider[]): Provider | null {
  return providers.filter((p) => takesLogin(kind, p)).sort((a, b) => a.priority - b.priority)[0] ?? null;
}
