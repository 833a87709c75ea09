// One record per coding agent `switchyard run` and `switchyard connect` know (R23.2): how to point
// one process of it at Switchyard (environment and command-line overrides, its login kept), and
// which of its own config files `connect` edits, and how. Locations were read from each agent's
// installed package (see the notes per record); CLIENTS.md has the measured behaviour.
import { existsSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { isRecord } from "../../shared/records.js";
import { dotenvValue, editJson, getIn, readJsonObject, setDotenv, setIn, setTomlProvider, tomlString } from "./configText.js";
import type { Gateway } from "./gateway.js";
import { makeOverlay } from "./overlay.js";

export const AGENT_NAMES = ["claude", "codex", "gemini", "opencode", "qwen", "pi"] as const;
export type AgentName = (typeof AGENT_NAMES)[number];

export function isAgentName(name: string): name is AgentName {
  return (AGENT_NAMES as readonly string[]).includes(name);
}

/** The provider id `run` and `connect` add where an agent names its providers. */
export const PROVIDER_ID = "switchyard";

export interface RunContext {
  gateway: Gateway;
  /** The user's environment (the agent's starts from it). */
  env: NodeJS.ProcessEnv;
  /** The arguments the user gave the agent (after `--`). */
  args: string[];
  /** A path in a private folder (0700) that is removed when the agent exits. */
  scratch(name: string): string;
}

export interface Launch {
  /** Variables set for the agent's process, over the user's environment. */
  env: Record<string, string>;
  /** Arguments put before the user's. */
  args: string[];
  /** Runs once the agent has exited (before the private folder goes); may give a line for the user. */
  after?(): string | null;
}

export interface ConfigEdit {
  file: string;
  /** The new text from the current one (null: no file yet). */
  edit(current: string | null): string;
}

export interface ConnectContext {
  gateway: Gateway;
  env: NodeJS.ProcessEnv;
}

export interface AgentRecord {
  name: AgentName;
  title: string;
  /** The executable's name on PATH. */
  bin: string;
  launch(ctx: RunContext): Promise<Launch>;
  /** The files `connect` writes, in order. */
  connect(ctx: ConnectContext): Promise<ConfigEdit[]>;
  /** Every file `connect` may have written (where `--undo` looks for backups). */
  configFiles(env: NodeJS.ProcessEnv): string[];
  /** What the user should know after `connect` (its traps), if anything; it may depend on the agent's login. */
  note?: string | ((env: NodeJS.ProcessEnv) => string | undefined);
}

const homeOf = (env: NodeJS.ProcessEnv) => env.HOME || homedir();

function readText(file: string): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return null;
  }
}

/** A JSON(C) file's object, or {} when it is missing or unreadable (for look-ups that must not fail a run). */
function peekJson(file: string): Record<string, unknown> {
  try {
    return readJsonObject(readText(file), file);
  } catch {
    return {};
  }
}

/** Whether the user's arguments already carry one of these options (`--x v` or `--x=v`). */
function hasOption(args: string[], ...names: string[]): boolean {
  return args.some((a) => names.some((n) => a === n || a.startsWith(`${n}=`)));
}

// ---------------------------------------------------------------------------------------------
// Claude Code (@anthropic-ai/claude-code 2.1.332, its native binary): the config folder is
// CLAUDE_CONFIG_DIR or ~/.claude; user settings are <dir>/settings.json, whose `env` object is set
// for every session; a Pro/Max login is <dir>/.credentials.json (Linux) and `oauthAccount` in the
// global config (<CLAUDE_CONFIG_DIR or HOME>/.claude.json, also where macOS keeps the account).

function claudeDir(env: NodeJS.ProcessEnv): string {
  return env.CLAUDE_CONFIG_DIR || path.join(homeOf(env), ".claude");
}

/** True when Claude Code has a login or a key of its own, which `run`/`connect` must keep. */
export function claudeHasLogin(env: NodeJS.ProcessEnv): boolean {
  if (env.ANTHROPIC_API_KEY || env.ANTHROPIC_AUTH_TOKEN || env.CLAUDE_CODE_OAUTH_TOKEN) return true;
  const dir = claudeDir(env);
  if (existsSync(path.join(dir, ".credentials.json"))) return true;
  const global = peekJson(path.join(env.CLAUDE_CONFIG_DIR || homeOf(env), ".claude.json"));
  if (isRecord(global.oauthAccount)) return true;
  const settings = peekJson(path.join(dir, "settings.json"));
  return (
    typeof settings.apiKeyHelper === "string" ||
    typeof getIn(settings, ["env", "ANTHROPIC_API_KEY"]) === "string" ||
    typeof getIn(settings, ["env", "ANTHROPIC_AUTH_TOKEN"]) === "string"
  );
}

/** `X-Switchyard-Key: …` added to whatever custom headers the user already sends (one per line). */
function withSwitchyardHeader(existing: string | undefined, key: string): string {
  const kept = (existing ?? "").split("\n").filter((l) => l.trim() !== "" && !/^\s*x-switchyard-key\s*:/i.test(l));
  return [...kept, `X-Switchyard-Key: ${key}`].join("\n");
}

const claude: AgentRecord = {
  name: "claude",
  title: "Claude Code",
  bin: "claude",
  launch({ gateway, env }) {
    const vars: Record<string, string> = { ANTHROPIC_BASE_URL: gateway.url };
    if (!claudeHasLogin(env)) vars.ANTHROPIC_API_KEY = gateway.key;
    else if (gateway.keyRequired) vars.ANTHROPIC_CUSTOM_HEADERS = withSwitchyardHeader(env.ANTHROPIC_CUSTOM_HEADERS, gateway.key);
    return Promise.resolve({ env: vars, args: [] });
  },
  connect({ gateway, env }) {
    const file = path.join(claudeDir(env), "settings.json");
    const login = claudeHasLogin(env);
    return Promise.resolve([
      {
        file,
        edit: (text) =>
          editJson(text, file, (obj) => {
            setIn(obj, ["env", "ANTHROPIC_BASE_URL"], gateway.url);
            if (!login) setIn(obj, ["env", "ANTHROPIC_API_KEY"], gateway.key);
            else if (gateway.keyRequired) {
              const current = getIn(obj, ["env", "ANTHROPIC_CUSTOM_HEADERS"]);
              setIn(obj, ["env", "ANTHROPIC_CUSTOM_HEADERS"], withSwitchyardHeader(typeof current === "string" ? current : undefined, gateway.key));
            }
          }),
      },
    ]);
  },
  configFiles: (env) => [path.join(claudeDir(env), "settings.json")],
};

// ---------------------------------------------------------------------------------------------
// Codex CLI (@openai/codex 0.171.0, its Rust binary): CODEX_HOME or ~/.codex holds config.toml and
// the login, auth.json. `-c key=value` (a TOML value) overrides the config for one run. A custom
// provider speaks only the Responses API; `requires_openai_auth = true` makes it send the login
// (API key or ChatGPT tokens, with `chatgpt-account-id`); `env_key` names the variable of a key;
// `env_http_headers` maps a header to a variable (so no secret goes on the command line).

function codexHome(env: NodeJS.ProcessEnv): string {
  return env.CODEX_HOME || path.join(homeOf(env), ".codex");
}

/** Codex's own login, if any: an OpenAI API key, or a ChatGPT plan's tokens (auth.json `auth_mode`). */
export type CodexLogin = "apikey" | "chatgpt" | null;

export function codexLogin(env: NodeJS.ProcessEnv): CodexLogin {
  const auth = peekJson(path.join(codexHome(env), "auth.json"));
  const apiKey = typeof auth.OPENAI_API_KEY === "string" && auth.OPENAI_API_KEY !== "";
  // auth.json names its mode ("chatgpt", "apikey"); older files have tokens only for a ChatGPT login.
  if (auth.auth_mode === "chatgpt" || (auth.auth_mode === undefined && isRecord(auth.tokens) && !apiKey)) return "chatgpt";
  return apiKey || isRecord(auth.tokens) ? "apikey" : null;
}

/**
 * Where Codex's requests go. A ChatGPT login is a subscription that only ChatGPT's Codex backend
 * serves, so Codex keeps speaking that backend's paths (`<base>/responses`, `<base>/models`) to
 * Switchyard, which forwards them with the login to a client-login connection (R21.1, R21.8); an
 * API key or no login speaks the OpenAI API's /v1.
 */
export function codexBaseUrl(origin: string, login: CodexLogin): string {
  return login === "chatgpt" ? `${origin}/backend-api/codex` : `${origin}/v1`;
}

/** The variable the key travels in (Codex reads it through env_key / env_http_headers). */
const KEY_VAR = "SWITCHYARD_API_KEY";

/** The provider block's settings, as [key, TOML value] pairs. */
function codexProvider(gateway: Gateway, login: CodexLogin, keyFrom: "env" | "file"): [string, string][] {
  const pairs: [string, string][] = [
    ["name", tomlString("Switchyard")],
    ["base_url", tomlString(codexBaseUrl(gateway.url, login))],
    ["wire_api", tomlString("responses")],
  ];
  if (login) {
    // The agent's login goes to Switchyard as it would to OpenAI; a required Switchyard key rides beside it.
    pairs.push(["requires_openai_auth", "true"]);
    if (gateway.keyRequired)
      pairs.push(
        keyFrom === "env" ? ["env_http_headers", `{ "X-Switchyard-Key" = ${tomlString(KEY_VAR)} }`] : ["http_headers", `{ "X-Switchyard-Key" = ${tomlString(gateway.key)} }`],
      );
  } else if (keyFrom === "env") pairs.push(["env_key", tomlString(KEY_VAR)]);
  else pairs.push(["experimental_bearer_token", tomlString(gateway.key)]);
  return pairs;
}

const codex: AgentRecord = {
  name: "codex",
  title: "Codex CLI",
  bin: "codex",
  launch({ gateway, env }) {
    const pairs = codexProvider(gateway, codexLogin(env), "env");
    const args = [`model_provider=${tomlString(PROVIDER_ID)}`, ...pairs.map(([k, v]) => `model_providers.${PROVIDER_ID}.${k}=${v}`)].flatMap((c) => ["-c", c]);
    return Promise.resolve({ env: { [KEY_VAR]: gateway.key }, args });
  },
  connect({ gateway, env }) {
    const file = path.join(codexHome(env), "config.toml");
    const lines = codexProvider(gateway, codexLogin(env), "file").map(([k, v]) => `${k} = ${v}`);
    return Promise.resolve([{ file, edit: (text) => setTomlProvider(text, PROVIDER_ID, lines) }]);
  },
  configFiles: (env) => [path.join(codexHome(env), "config.toml")],
  note: (env) =>
    codexLogin(env) === "chatgpt"
      ? "Codex is logged in with ChatGPT: it now sends its login to Switchyard on ChatGPT's Codex backend paths (/backend-api/codex), which a provider at https://chatgpt.com/backend-api/codex with a client-login connection serves (Connect page: Use your subscription)."
      : undefined,
};

// ---------------------------------------------------------------------------------------------
// Gemini CLI (@google/gemini-cli 0.61.0, bundle/): its folder is <GEMINI_CLI_HOME or HOME>/.gemini
// with settings.json (JSON with comments) and .env. GOOGLE_GEMINI_BASE_URL alone selects the
// "gateway" auth type that -p refuses, so `security.auth.selectedType` must be "gemini-api-key"
// (CLIENTS.md), and that auth wants GEMINI_API_KEY. No variable or flag sets the auth type, and
// system settings (which override the user's) are read only from root-owned folders; so where the
// user's settings select another type, `run` gives this one process a stand-in folder
// (GEMINI_CLI_HOME, overlay.ts) whose settings.json is the user's with that one line changed.
// ~/.gemini/.env is read only in trusted folders, and only when the project has no .env.

function geminiHome(env: NodeJS.ProcessEnv): string {
  return env.GEMINI_CLI_HOME || homeOf(env);
}

const API_KEY_AUTH = "gemini-api-key";

const gemini: AgentRecord = {
  name: "gemini",
  title: "Gemini CLI",
  bin: "gemini",
  launch({ gateway, env, scratch }) {
    const vars: Record<string, string> = {
      GOOGLE_GEMINI_BASE_URL: gateway.url,
      GEMINI_API_KEY: gateway.keyRequired ? gateway.key : env.GEMINI_API_KEY || gateway.key,
    };
    const realDir = path.join(geminiHome(env), ".gemini");
    const settings = peekJson(path.join(realDir, "settings.json"));
    if (getIn(settings, ["security", "auth", "selectedType"]) === API_KEY_AUTH) return Promise.resolve({ env: vars, args: [] });
    setIn(settings, ["security", "auth", "selectedType"], API_KEY_AUTH);
    const home = scratch("gemini-home");
    const overlay = makeOverlay(realDir, path.join(home, ".gemini"), { "settings.json": JSON.stringify(settings, null, 2) + "\n" });
    // The home's own .env, which the CLI falls back to, stays visible.
    const dotenv = path.join(geminiHome(env), ".env");
    if (existsSync(dotenv)) symlinkSync(dotenv, path.join(home, ".env"));
    return Promise.resolve({
      env: { ...vars, GEMINI_CLI_HOME: home },
      args: [],
      after: () =>
        overlay.settle().length > 0 ? `settings changed during this run were not kept: Gemini CLI ran with a stand-in of ${path.join(realDir, "settings.json")}` : null,
    });
  },
  connect({ gateway, env }) {
    const settings = path.join(geminiHome(env), ".gemini", "settings.json");
    const dotenv = path.join(geminiHome(env), ".gemini", ".env");
    return Promise.resolve([
      { file: settings, edit: (text) => editJson(text, settings, (obj) => setIn(obj, ["security", "auth", "selectedType"], API_KEY_AUTH)) },
      {
        file: dotenv,
        edit: (text) => {
          const values: Record<string, string> = { GOOGLE_GEMINI_BASE_URL: gateway.url };
          if (gateway.keyRequired || !dotenvValue(text, "GEMINI_API_KEY")) values.GEMINI_API_KEY = gateway.key;
          return setDotenv(text, values);
        },
      },
    ]);
  },
  configFiles: (env) => [path.join(geminiHome(env), ".gemini", "settings.json"), path.join(geminiHome(env), ".gemini", ".env")],
  note: "The Gemini CLI reads ~/.gemini/.env in trusted folders only, and not where the project has a .env of its own; GOOGLE_GEMINI_BASE_URL or GEMINI_API_KEY set in your shell win over it.",
};

// ---------------------------------------------------------------------------------------------
// opencode (opencode-ai 1.18.33, its native binary): the global config is the first of
// opencode.jsonc, opencode.json, config.json in <XDG_CONFIG_HOME or ~/.config>/opencode (JSON with
// comments); OPENCODE_CONFIG_CONTENT is a config merged over all the others, for one process (and
// with it set opencode writes no global config of its own). A provider names an AI SDK package:
// @ai-sdk/openai-compatible speaks chat completions at <origin>/v1.

function opencodeDir(env: NodeJS.ProcessEnv): string {
  return path.join(env.XDG_CONFIG_HOME || path.join(homeOf(env), ".config"), "opencode");
}

const OPENCODE_FILES = ["opencode.jsonc", "opencode.json", "config.json"];

function opencodeProvider(gateway: Gateway, models: string[]): Record<string, unknown> {
  return {
    npm: "@ai-sdk/openai-compatible",
    name: "Switchyard",
    options: { baseURL: `${gateway.url}/v1`, apiKey: gateway.key },
    models: Object.fromEntries(models.map((m) => [m, {}])),
  };
}

const opencode: AgentRecord = {
  name: "opencode",
  title: "opencode",
  bin: "opencode",
  async launch({ gateway, env }) {
    const models = await gateway.models();
    const inline = peekJsonText(env.OPENCODE_CONFIG_CONTENT);
    setIn(inline, ["provider", PROVIDER_ID], opencodeProvider(gateway, models));
    inline.model = `${PROVIDER_ID}/${models[0]}`;
    return { env: { OPENCODE_CONFIG_CONTENT: JSON.stringify(inline) }, args: [] };
  },
  async connect({ gateway, env }) {
    const models = await gateway.models();
    const dir = opencodeDir(env);
    const file = OPENCODE_FILES.map((f) => path.join(dir, f)).find((f) => existsSync(f)) ?? path.join(dir, "opencode.json");
    return [
      {
        file,
        edit: (text) =>
          editJson(text, file, (obj) => {
            if (text === null) obj.$schema = "https://opencode.ai/config.json";
            setIn(obj, ["provider", PROVIDER_ID], opencodeProvider(gateway, models));
            obj.model = `${PROVIDER_ID}/${models[0]}`;
          }),
      },
    ];
  },
  configFiles: (env) => OPENCODE_FILES.map((f) => path.join(opencodeDir(env), f)),
};

function peekJsonText(text: string | undefined): Record<string, unknown> {
  try {
    return text ? readJsonObject(text, "OPENCODE_CONFIG_CONTENT") : {};
  } catch {
    return {};
  }
}

// ---------------------------------------------------------------------------------------------
// Qwen Code (@qwen-code/qwen-code 0.24.4, chunks/): its folder is QWEN_HOME or ~/.qwen, with
// settings.json (`security.auth.selectedType`, `.baseUrl`, `.apiKey`, `model.name`). `--auth-type`
// beats the settings' type; for the OpenAI type the model, key and base URL come from the CLI
// flags, then OPENAI_MODEL / OPENAI_API_KEY / OPENAI_BASE_URL, then the settings.

function qwenSettings(env: NodeJS.ProcessEnv): string {
  return path.join(env.QWEN_HOME || path.join(homeOf(env), ".qwen"), "settings.json");
}

const qwen: AgentRecord = {
  name: "qwen",
  title: "Qwen Code",
  bin: "qwen",
  async launch({ gateway, env, args }) {
    const vars: Record<string, string> = { OPENAI_BASE_URL: `${gateway.url}/v1`, OPENAI_API_KEY: gateway.key };
    // Without a model of the user's, the first one Switchyard serves (Qwen's own default is not one).
    const hasModel = hasOption(args, "-m", "--model") || env.OPENAI_MODEL || env.QWEN_MODEL || typeof getIn(peekJson(qwenSettings(env)), ["model", "name"]) === "string";
    if (!hasModel) vars.OPENAI_MODEL = (await gateway.models())[0];
    return { env: vars, args: hasOption(args, "--auth-type") ? [] : ["--auth-type", "openai"] };
  },
  async connect({ gateway, env }) {
    const file = qwenSettings(env);
    const models = await gateway.models();
    return [
      {
        file,
        edit: (text) =>
          editJson(text, file, (obj) => {
            setIn(obj, ["security", "auth", "selectedType"], "openai");
            setIn(obj, ["security", "auth", "baseUrl"], `${gateway.url}/v1`);
            setIn(obj, ["security", "auth", "apiKey"], gateway.key);
            if (typeof getIn(obj, ["model", "name"]) !== "string") setIn(obj, ["model", "name"], models[0]);
          }),
      },
    ];
  },
  configFiles: (env) => [qwenSettings(env)],
  note: "OPENAI_BASE_URL or OPENAI_API_KEY set in your shell win over Qwen Code's settings.",
};

// ---------------------------------------------------------------------------------------------
// pi (@mariozechner/pi-coding-agent 0.73.1, dist/config.js): its folder is PI_CODING_AGENT_DIR or
// ~/.pi/agent, with models.json (custom providers: baseUrl, api, apiKey, models) and settings.json
// (defaultProvider, defaultModel). `-e <file>` loads an extension for one run, which may register
// a provider (`pi.registerProvider`); an apiKey naming a set variable is read from it.

function piDir(env: NodeJS.ProcessEnv): string {
  return env.PI_CODING_AGENT_DIR || path.join(homeOf(env), ".pi", "agent");
}

function piProvider(gateway: Gateway, models: string[], apiKey: string): Record<string, unknown> {
  return {
    name: "Switchyard",
    baseUrl: `${gateway.url}/v1`,
    api: "openai-completions",
    apiKey,
    models: models.map((id) => ({
      id,
      name: id,
      reasoning: false,
      input: ["text"],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      contextWindow: 128000,
      maxTokens: 16384,
    })),
  };
}

const pi: AgentRecord = {
  name: "pi",
  title: "pi",
  bin: "pi",
  async launch({ gateway, args, scratch }) {
    const models = await gateway.models();
    const provider = JSON.stringify(piProvider(gateway, models, KEY_VAR));
    const extension = scratch("switchyard-provider.mjs");
    writeFileSync(
      extension,
      `// Written by switchyard run for this pi process only.\nexport default function (pi) {\n  pi.registerProvider(${JSON.stringify(PROVIDER_ID)}, ${provider});\n}\n`,
      { mode: 0o600 },
    );
    const chosen = hasOption(args, "--provider") ? [] : ["--provider", PROVIDER_ID, ...(hasOption(args, "--model") ? [] : ["--model", models[0]])];
    return { env: { [KEY_VAR]: gateway.key }, args: ["-e", extension, ...chosen] };
  },
  async connect({ gateway, env }) {
    const models = await gateway.models();
    const modelsFile = path.join(piDir(env), "models.json");
    const settingsFile = path.join(piDir(env), "settings.json");
    return [
      { file: modelsFile, edit: (text) => editJson(text, modelsFile, (obj) => setIn(obj, ["providers", PROVIDER_ID], piProvider(gateway, models, gateway.key))) },
      {
        file: settingsFile,
        edit: (text) =>
          editJson(text, settingsFile, (obj) => {
            obj.defaultProvider = PROVIDER_ID;
            obj.defaultModel = models[0];
          }),
      },
    ];
  },
  configFiles: (env) => [path.join(piDir(env), "models.json"), path.join(piDir(env), "settings.json")],
};

export const AGENTS: Record<AgentName, AgentRecord> = { claude, codex, gemini, opencode, qwen, pi };
