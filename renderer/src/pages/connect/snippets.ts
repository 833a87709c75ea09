// The exact lines each client needs, filled with this instance's address, the chosen model and
// key. Pure, so the page and its tests read the same text the copy buttons copy.
import type { ClientKind } from "../../../../shared/types.js";

export interface SnippetInput {
  /** The gateway origin, e.g. http://127.0.0.1:8642 (no trailing slash). */
  url: string;
  model: string;
  /** The model for Claude Code's small/fast (background) calls. */
  smallModel: string;
  /** A Switchyard client key, or null when loopback clients need none. */
  key: string | null;
}

/** The clients the page has lines for: the request log's kinds, and pi (which the log counts as an OpenAI SDK). */
export type SnippetKind = ClientKind | "pi";

export interface Snippet {
  kind: SnippetKind;
  title: string;
  /**
   * For a coding agent: the one line that starts it pointed at this instance, for that process only
   * (`switchyard run`, R23.2); the page shows it before the lines that set the agent up by hand.
   */
  run?: string;
  /** One sentence: where these lines go. */
  where: string;
  language: "sh" | "toml" | "json" | "ts" | "python";
  text: string;
}

/** The address `switchyard run` uses when given none (with no instance running in its home). */
const CLI_DEFAULT_URL = "http://127.0.0.1:8642";

/** A word as a POSIX shell reads it: bare when it is safe, else single-quoted. */
const sh = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/**
 * `switchyard run <agent> [--url …] [-- <the agent's own options>]`: --url only where the
 * instance is not at the CLI's default address (the CLI also finds the running instance itself), and
 * the key in front where the instance requires one.
 */
export function runLine(agent: string, url: string, agentArgs: string[], key: string | null): string {
  const target = url === CLI_DEFAULT_URL ? "" : ` --url ${sh(url)}`;
  const own = agentArgs.length > 0 ? ` -- ${agentArgs.map(sh).join(" ")}` : "";
  return `${key === null ? "" : `SWITCHYARD_API_KEY=${sh(key)} `}switchyard run ${agent}${target}${own}`;
}

/** Any non-empty value passes when the instance does not require a client key. */
const NO_KEY = "switchyard";

/** A string literal for TOML, JSON and TypeScript alike (their basic strings share JSON's escapes). */
const q = (value: string) => JSON.stringify(value);

/** Every kind of client, in the order the Connect page and the request log list them. */
export const CLIENT_LABELS: Record<ClientKind, string> = {
  "claude-code": "Claude Code",
  "codex-cli": "Codex CLI",
  "gemini-cli": "Gemini CLI",
  opencode: "opencode",
  "qwen-code": "Qwen Code",
  aider: "aider",
  "ai-sdk": "Vercel AI SDK",
  "openai-sdk": "OpenAI SDK",
  "anthropic-sdk": "Anthropic SDK",
  "genai-sdk": "Google GenAI SDK",
  curl: "curl",
  other: "Other clients",
};

export function buildSnippets({ url, model, smallModel, key }: SnippetInput): Snippet[] {
  const k = key ?? NO_KEY;
  return [
    {
      kind: "claude-code",
      title: "Claude Code",
      run: runLine("claude", url, ["--model", model], key),
      where: "Run in the shell you start claude from (or put the lines in your shell profile).",
      language: "sh",
      text: [
        `export ANTHROPIC_BASE_URL=${url}`,
        // R25.5: Claude Code then tells Switchyard what each request is for (main turn, subagent, compaction…).
        `export CLAUDE_CODE_GATEWAY_HINT_HEADERS=1`,
        `export ANTHROPIC_API_KEY=${k}`,
        `export ANTHROPIC_MODEL=${model}`,
        `export ANTHROPIC_SMALL_FAST_MODEL=${smallModel}`,
        `claude --model ${model}`,
      ].join("\n"),
    },
    {
      kind: "aider",
      title: "aider",
      where: "aider speaks OpenAI to Switchyard: the model takes the openai/ prefix.",
      language: "sh",
      text: [`export OPENAI_API_BASE=${url}/v1`, `export OPENAI_API_KEY=${k}`, `aider --model openai/${model}`].join("\n"),
    },
    {
      kind: "codex-cli",
      title: "Codex CLI",
      run: runLine("codex", url, ["-m", model], key),
      // Codex 0.171 speaks only the Responses API and refuses wire_api = "chat" when it loads the
      // config. A custom provider needs no OpenAI login and never tries the WebSocket (both off by
      // default); a name other than "OpenAI" keeps compaction local, so it works with any upstream.
      // Top-level keys after a [table] header would belong to that table, hence "at the top".
      where: "Put in ~/.codex/config.toml, the first two lines at the top (above any [table]); then export SWITCHYARD_API_KEY in your shell.",
      language: "toml",
      text: [
        `model = ${q(model)}`,
        `model_provider = "switchyard"`,
        ``,
        `[model_providers.switchyard]`,
        `name = "Switchyard"`,
        `base_url = ${q(`${url}/v1`)}`,
        `env_key = "SWITCHYARD_API_KEY"`,
        `wire_api = "responses"`,
        ``,
        `# in your shell: export SWITCHYARD_API_KEY=${k}`,
      ].join("\n"),
    },
    {
      kind: "gemini-cli",
      title: "Gemini CLI",
      run: runLine("gemini", url, ["-m", model], key),
      // CLIENTS.md: with only the base-URL variable the CLI picks an auth type that -p refuses
      // ("Invalid auth method selected", exit 41); the settings line selects API-key auth.
      where: 'Run in your shell. ~/.gemini/settings.json must select API-key auth: the line below creates it; if you have one already, add its "security" key to it.',
      language: "sh",
      text: [
        `export GOOGLE_GEMINI_BASE_URL=${url}`,
        `export GEMINI_API_KEY=${k}`,
        `mkdir -p ~/.gemini && [ -f ~/.gemini/settings.json ] || echo '{"security":{"auth":{"selectedType":"gemini-api-key"}}}' > ~/.gemini/settings.json`,
        `grep -q gemini-api-key ~/.gemini/settings.json || echo 'add "security":{"auth":{"selectedType":"gemini-api-key"}} to ~/.gemini/settings.json'`,
        `gemini -m ${q(model)}`,
      ].join("\n"),
    },
    {
      kind: "opencode",
      title: "opencode",
      run: runLine("opencode", url, ["-m", `switchyard/${model}`], key),
      where:
        'Save as opencode.json in your project (or ~/.config/opencode/opencode.json), then run opencode. This speaks Chat Completions; "npm": "@ai-sdk/openai" speaks the Responses API instead.',
      language: "json",
      text: JSON.stringify(
        {
          $schema: "https://opencode.ai/config.json",
          provider: {
            switchyard: { npm: "@ai-sdk/openai-compatible", name: "Switchyard", options: { baseURL: `${url}/v1`, apiKey: k }, models: { [model]: {} } },
          },
          model: `switchyard/${model}`,
        },
        null,
        2,
      ),
    },
    {
      kind: "qwen-code",
      title: "Qwen Code",
      run: runLine("qwen", url, ["-m", model], key),
      where: "Qwen Code needs all three variables; it speaks Chat Completions to Switchyard.",
      language: "sh",
      text: [`export OPENAI_BASE_URL=${url}/v1`, `export OPENAI_API_KEY=${k}`, `export OPENAI_MODEL=${model}`, `qwen`].join("\n"),
    },
    {
      kind: "pi",
      title: "pi",
      run: runLine("pi", url, ["--model", model], key),
      where: 'Save as ~/.pi/agent/models.json (if you have one, add "switchyard" to its "providers"); then run pi --provider switchyard.',
      language: "json",
      text: JSON.stringify({ providers: { switchyard: { baseUrl: `${url}/v1`, api: "openai-completions", apiKey: k, models: [{ id: model }] } } }, null, 2),
    },
    {
      kind: "ai-sdk",
      title: "Vercel AI SDK (TypeScript)",
      where: "Both providers take /v1: @ai-sdk/anthropic appends /messages to its base URL.",
      language: "ts",
      text: [
        `import { createAnthropic } from "@ai-sdk/anthropic";`,
        `import { createOpenAI } from "@ai-sdk/openai";`,
        `import { generateText } from "ai";`,
        ``,
        `const openai = createOpenAI({ baseURL: ${q(`${url}/v1`)}, apiKey: ${q(k)} });`,
        `const anthropic = createAnthropic({ baseURL: ${q(`${url}/v1`)}, apiKey: ${q(k)} });`,
        ``,
        `// openai(model) speaks the Responses API, openai.chat(model) Chat Completions, anthropic(model) Messages.`,
        `const { text } = await generateText({ model: openai(${q(model)}), prompt: "hello" });`,
        `console.log(text);`,
      ].join("\n"),
    },
    {
      kind: "other",
      title: "Other OpenAI-compatible tools",
      where: "Most tools read these variables, or have a base URL and API key field.",
      language: "sh",
      text: [`export OPENAI_BASE_URL=${url}/v1`, `export OPENAI_API_KEY=${k}`, `# model: ${model}`].join("\n"),
    },
    {
      kind: "openai-sdk",
      title: "OpenAI SDK (Python)",
      where: "Point the client at /v1; everything else stays as it is.",
      language: "python",
      text: [
        `from openai import OpenAI`,
        ``,
        `client = OpenAI(base_url="${url}/v1", api_key="${k}")`,
        `reply = client.chat.completions.create(model="${model}", messages=[{"role": "user", "content": "hello"}])`,
        `print(reply.choices[0].message.content)`,
      ].join("\n"),
    },
    {
      kind: "anthropic-sdk",
      title: "Anthropic SDK (Python)",
      where: "The Anthropic SDK takes the origin, without /v1.",
      language: "python",
      text: [
        `import anthropic`,
        ``,
        `client = anthropic.Anthropic(base_url="${url}", api_key="${k}")`,
        `reply = client.messages.create(model="${model}", max_tokens=1024, messages=[{"role": "user", "content": "hello"}])`,
        `print(reply.content[0].text)`,
      ].join("\n"),
    },
    {
      kind: "genai-sdk",
      title: "Google GenAI SDK (TypeScript)",
      where: "The SDK takes the origin: it appends /v1beta/models/… itself.",
      language: "ts",
      text: [
        `import { GoogleGenAI } from "@google/genai";`,
        ``,
        `const ai = new GoogleGenAI({ apiKey: ${q(k)}, httpOptions: { baseUrl: ${q(url)} } });`,
        `const reply = await ai.models.generateContent({ model: ${q(model)}, contents: "hello" });`,
        `console.log(reply.text);`,
      ].join("\n"),
    },
    {
      kind: "curl",
      title: "curl",
      where: "A first request by hand: it shows up below and in the request log.",
      language: "sh",
      text: [
        `curl -s ${url}/v1/chat/completions \\`,
        `  -H 'content-type: application/json' -H 'authorization: Bearer ${k}' \\`,
        `  -d '{"model":"${model}","messages":[{"role":"user","content":"hello"}]}'`,
      ].join("\n"),
    },
  ];
}
