// R21.8 "use your subscription" lines and the client-login connection that carries each login: the
// text the Connect page shows and copies, and that tests/integration/subscriptions/realClients.test.ts
// runs the real Claude Code and Codex with.
import { describe, expect, it } from "vitest";
import { buildSubscriptionSnippets, loginCarriers, providerForLogin, takesLogin } from "../../../renderer/src/pages/connect/subscription.js";
import type { Connection, Provider } from "../../../shared/types.js";
import { connection as fixtureConnection, provider as fixtureProvider } from "../engine/fixtures.js";

const origin = "http://127.0.0.1:9123";
const bySnippet = (key: string | null) => Object.fromEntries(buildSubscriptionSnippets({ url: origin, key }).map((s) => [s.kind, s]));

const provider = (id: string, format: Provider["format"], baseUrl: string, priority = 0): Provider =>
  fixtureProvider({ id, format, baseUrl, category: "oauth", models: [], priority });

const connection = (id: string, providerId: string, extra: Partial<Connection> = {}): Connection =>
  fixtureConnection({ id, provider: providerId, name: id, hasSecret: false, credential: "client", ...extra });

describe("R21.8 use your subscription: the lines", () => {
  it("R21.8 Claude Code keeps its login: only ANTHROPIC_BASE_URL, no key variable, and the run line passes no options", () => {
    const { "claude-code": claude } = bySnippet(null);
    expect(claude.text).toBe(`export ANTHROPIC_BASE_URL=${origin}\nexport CLAUDE_CODE_GATEWAY_HINT_HEADERS=1\nclaude`);
    expect(claude.text).not.toMatch(/ANTHROPIC_(API_KEY|AUTH_TOKEN)/);
    expect(claude.run).toBe(`switchyard run claude --url ${origin}`);
  });

  it("R21.8 R21.3 with a required key, Claude Code sends it in X-Switchyard-Key (ANTHROPIC_CUSTOM_HEADERS), leaving Authorization to the login", () => {
    const { "claude-code": claude } = bySnippet("sk-sy-minted");
    expect(claude.text).toBe(
      `export ANTHROPIC_BASE_URL=${origin}\nexport CLAUDE_CODE_GATEWAY_HINT_HEADERS=1\nexport ANTHROPIC_CUSTOM_HEADERS="X-Switchyard-Key: sk-sy-minted"\nclaude`,
    );
    expect(claude.run).toBe(`SWITCHYARD_API_KEY=sk-sy-minted switchyard run claude --url ${origin}`);
  });

  it("R21.8 Codex's provider block speaks ChatGPT's backend path with requires_openai_auth and no env_key", () => {
    const { "codex-cli": codex } = bySnippet(null);
    expect(codex.text.split("\n")).toEqual([
      'model_provider = "switchyard"',
      "",
      "[model_providers.switchyard]",
      'name = "Switchyard"',
      `base_url = "${origin}/backend-api/codex"`,
      'wire_api = "responses"',
      "requires_openai_auth = true",
    ]);
    expect(codex.run).toBe(`switchyard run codex --url ${origin}`);
  });

  it("R21.8 R21.3 with a required key, Codex's block adds http_headers with X-Switchyard-Key", () => {
    const { "codex-cli": codex } = bySnippet('sk-sy-"odd"');
    expect(codex.text.split("\n").at(-1)).toBe('http_headers = { "X-Switchyard-Key" = "sk-sy-\\"odd\\"" }');
    expect(codex.text).not.toContain("env_key");
  });
});

describe("R21.8 R21.1 which connection carries the login", () => {
  const claudeMax = provider("claude-max", "anthropic", "https://api.anthropic.com/v1", 1);
  const claudeKeys = provider("claude-keys", "anthropic", "https://api.anthropic.com/v1", 0);
  const chatgpt = provider("chatgpt", "openai-responses", "https://chatgpt.com/backend-api/codex/");
  const openai = provider("openai", "openai-responses", "https://api.openai.com/v1");

  it("R21.8 a Claude login goes to an Anthropic-format provider, a ChatGPT login only to a Responses provider at the ChatGPT backend", () => {
    expect(takesLogin("claude-code", claudeMax)).toBe(true);
    expect(takesLogin("claude-code", chatgpt)).toBe(false);
    expect(takesLogin("codex-cli", chatgpt)).toBe(true);
    expect(takesLogin("codex-cli", openai)).toBe(false);
  });

  it("R21.8 only client-login connections (not a login's own accounts, not keys) carry it, active first", () => {
    const connections = [
      connection("keyed", "claude-keys", { credential: "key", hasSecret: true }),
      connection("off", "claude-keys", { active: false }),
      connection("max", "claude-max"),
      connection("max~0123456789ab", "claude-max", { accountOf: "max" }),
      connection("plus", "chatgpt"),
      connection("wrong-place", "openai"),
    ];
    const providers = [claudeMax, claudeKeys, chatgpt, openai];
    expect(loginCarriers("claude-code", providers, connections).map((c) => c.connection.id)).toEqual(["max", "off"]);
    expect(loginCarriers("codex-cli", providers, connections).map((c) => `${c.provider.id}/${c.connection.id}`)).toEqual(["chatgpt/plus"]);
  });

  it("R21.8 a new client-login connection goes to the first provider that takes the login, else a new provider is needed", () => {
    expect(providerForLogin("claude-code", [claudeMax, claudeKeys])?.id).toBe("claude-keys");
    expect(providerForLogin("codex-cli", [openai])).toBeNull();
  });
});
