// `switchyard connect <agent>` and `--undo` (R23.2, issue 35): each agent's own config files get
// Switchyard's lines, the originals kept beside them; undo leaves the folder byte for byte as it
// was, whether a config existed before or not; and the real agent, started plainly after connect,
// reaches Switchyard (its answer and the request log's row).
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RequestLogEntry } from "../../../shared/types.js";
import { makeTempDir, runClientProcess } from "../../fixtures/clients/clientProcess.js";
import { startGateway, type TestGateway } from "../harness.js";
import { baseEnv, clientBin, describeRun, fileBytes, runCli, RUN_TIMEOUT_MS, snapshot, TEST_TIMEOUT_MS, type AgentName } from "./agentHarness.js";

const HELLO = /^Hello from simulated provider [AB] \(key demo-[ab]-\d\)$/m;

let gw: TestGateway;
const scratch: string[] = [];
const temp = (prefix: string) => makeTempDir(`switchyard-connect-${prefix}-`, scratch);

beforeAll(async () => {
  gw = await startGateway();
  const demo = await gw.api("POST", "/api/demo");
  expect(demo.status, demo.text).toBe(200);
});

afterAll(async () => {
  await gw?.close();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

interface AgentCase {
  agent: AgentName;
  /** The config files connect writes (relative to HOME), and what each must then contain. */
  expect: (home: string, url: string) => void;
  /** A config the user already had: files (relative to HOME) with deliberately odd bytes. */
  existing: Record<string, string>;
  /** What must survive connect in those files. */
  kept: (home: string) => void;
  /** The plain agent run after connect: its arguments. */
  plainArgs: string[];
  kind: RequestLogEntry["clientKind"];
}

const read = (home: string, rel: string) => readFileSync(path.join(home, rel), "utf8");
const json = (home: string, rel: string) => JSON.parse(read(home, rel));

const CASES: AgentCase[] = [
  {
    agent: "claude",
    expect: (home, url) =>
      expect(json(home, ".claude/settings.json").env).toMatchObject({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: "switchyard", CLAUDE_CODE_GATEWAY_HINT_HEADERS: "1" }),
    existing: { ".claude/settings.json": '{"model":"opus",  "env":{"FOO":"1"},\r\n "permissions":{"allow":["Bash(ls)"]}}' },
    kept: (home) => expect(json(home, ".claude/settings.json")).toMatchObject({ model: "opus", env: { FOO: "1" }, permissions: { allow: ["Bash(ls)"] } }),
    plainArgs: ["-p", "Say hello", "--model", "demo"],
    kind: "claude-code",
  },
  {
    agent: "codex",
    expect: (home, url) => {
      const toml = read(home, ".codex/config.toml");
      expect(toml).toMatch(/^model_provider = "switchyard"$/m);
      expect(toml.match(/^\[model_providers\.switchyard\]$/gm)).toHaveLength(1);
      expect(toml).toContain(`base_url = "${url}/v1"`);
      expect(toml).toContain('wire_api = "responses"');
      // R26.1: on a key too, Codex speaks the Responses WebSocket; no chatgpt_base_url without a ChatGPT login.
      expect(toml).toContain("supports_websockets = true");
      expect(toml).not.toContain("chatgpt_base_url");
    },
    existing: {
      ".codex/config.toml": [
        "# my codex config",
        'model = "gpt-5.5"',
        'model_provider = "other"',
        "",
        "[model_providers.other]",
        'name = "Other"',
        'base_url = "http://other.invalid/v1"',
        "",
        "[model_providers.switchyard]",
        'base_url = "http://127.0.0.1:1/v1"',
        "",
        "[model_providers.switchyard.http_headers]",
        'X-Old = "1"',
        "",
        "[profiles.fast]",
        'model = "gpt-5.5-mini"',
        "",
      ].join("\n"),
    },
    kept: (home) => {
      const toml = read(home, ".codex/config.toml");
      for (const line of ["# my codex config", 'model = "gpt-5.5"', "[model_providers.other]", 'base_url = "http://other.invalid/v1"', "[profiles.fast]"])
        expect(toml).toContain(line);
      expect(toml).not.toContain('model_provider = "other"');
      expect(toml).not.toContain("X-Old");
      expect(toml).not.toContain("127.0.0.1:1/");
    },
    plainArgs: ["exec", "--skip-git-repo-check", "-m", "demo", "Say hello"],
    kind: "codex-cli",
  },
  {
    agent: "gemini",
    expect: (home, url) => {
      expect(json(home, ".gemini/settings.json").security.auth.selectedType).toBe("gemini-api-key");
      expect(read(home, ".gemini/.env")).toContain(`GOOGLE_GEMINI_BASE_URL=${url}\n`);
      expect(read(home, ".gemini/.env")).toMatch(/^GEMINI_API_KEY=\S+$/m);
    },
    existing: {
      ".gemini/settings.json": '{\n  // theme I like\n  "ui": { "theme": "GitHub" },\n  "security": { "auth": { "selectedType": "oauth-personal" } },\n}\n',
      ".gemini/.env": "# mine\nGEMINI_API_KEY=my-own-key\nGOOGLE_GEMINI_BASE_URL=http://old.invalid\n",
    },
    kept: (home) => {
      expect(json(home, ".gemini/settings.json").ui).toEqual({ theme: "GitHub" });
      expect(read(home, ".gemini/.env")).toContain("# mine\nGEMINI_API_KEY=my-own-key\n");
      expect(read(home, ".gemini/.env")).not.toContain("old.invalid");
    },
    plainArgs: ["-m", "demo", "-p", "Say hello"],
    kind: "gemini-cli",
  },
  {
    agent: "opencode",
    expect: (home, url) => {
      const file = [".config/opencode/opencode.jsonc", ".config/opencode/opencode.json"].find((f) => existsSync(path.join(home, f)))!;
      const config = json(home, file);
      expect(config.provider.switchyard).toMatchObject({ npm: "@ai-sdk/openai-compatible", options: { baseURL: `${url}/v1` }, models: { demo: {} } });
      expect(config.model).toBe("switchyard/demo");
    },
    existing: {
      ".config/opencode/opencode.jsonc":
        '{\n  // mine\n  "theme": "tokyonight",\n  "provider": { "ollama": { "npm": "@ai-sdk/openai-compatible", "options": { "baseURL": "http://x.invalid/v1" }, "models": { "m": {} } } },\n}\n',
    },
    kept: (home) => expect(json(home, ".config/opencode/opencode.jsonc")).toMatchObject({ theme: "tokyonight", provider: { ollama: { models: { m: {} } } } }),
    plainArgs: ["run", "Say hello"],
    kind: "opencode",
  },
  {
    agent: "qwen",
    expect: (home, url) => expect(json(home, ".qwen/settings.json").security.auth).toMatchObject({ selectedType: "openai", baseUrl: `${url}/v1`, apiKey: "switchyard" }),
    existing: { ".qwen/settings.json": '{"model":{"name":"demo"},"ui":{"theme":"Qwen Dark"}}\n' },
    kept: (home) => expect(json(home, ".qwen/settings.json")).toMatchObject({ model: { name: "demo" }, ui: { theme: "Qwen Dark" } }),
    plainArgs: ["-p", "Say hello"],
    kind: "qwen-code",
  },
  {
    agent: "pi",
    expect: (home, url) => {
      expect(json(home, ".pi/agent/models.json").providers.switchyard).toMatchObject({ baseUrl: `${url}/v1`, api: "openai-completions", apiKey: "switchyard" });
      expect(json(home, ".pi/agent/settings.json")).toMatchObject({ defaultProvider: "switchyard", defaultModel: "demo" });
    },
    existing: {
      ".pi/agent/models.json": '{ "providers": { "ollama": { "baseUrl": "http://x.invalid/v1", "api": "openai-completions", "apiKey": "o", "models": [{ "id": "m" }] } } }',
    },
    kept: (home) => expect(json(home, ".pi/agent/models.json").providers.ollama.models).toEqual([{ id: "m" }]),
    plainArgs: ["--offline", "--no-session", "-p", "Say hello"],
    kind: "openai-sdk",
  },
];

/** Every config file connect may write, per agent (relative to HOME). */
const CONFIGS: Record<AgentName, string[]> = {
  claude: [".claude/settings.json"],
  codex: [".codex/config.toml"],
  gemini: [".gemini/settings.json", ".gemini/.env"],
  opencode: [".config/opencode/opencode.jsonc", ".config/opencode/opencode.json", ".config/opencode/config.json"],
  qwen: [".qwen/settings.json"],
  pi: [".pi/agent/models.json", ".pi/agent/settings.json"],
};

function cliEnv(home: string): Record<string, string> {
  return baseEnv(home, { SWITCHYARD_URL: gw.url });
}

async function connect(agent: AgentName, home: string, undo = false): Promise<string> {
  const run = await runCli(["connect", agent, ...(undo ? ["--undo"] : [])], { cwd: home, env: cliEnv(home), timeoutMs: 30_000 });
  expect(run.code, describeRun(run)).toBe(0);
  return run.stdout;
}

describe("switchyard connect / --undo (R23.2)", () => {
  for (const c of CASES) {
    it(`R23.2 ${c.agent}: with no config before, connect writes one and --undo leaves the home exactly as it was`, { timeout: 60_000 }, async () => {
      const home = temp(`${c.agent}-none`);
      expect(snapshot(home)).toEqual({});
      const out = await connect(c.agent, home);
      expect(out).toContain("a new file: undo removes it");
      c.expect(home, gw.url);
      await connect(c.agent, home, true);
      expect(snapshot(home)).toEqual({});
    });

    it(`R23.2 ${c.agent}: an existing config keeps its own settings, survives a second connect, and --undo restores it byte for byte`, { timeout: 60_000 }, async () => {
      const home = temp(`${c.agent}-existing`);
      for (const [rel, text] of Object.entries(c.existing)) {
        mkdirSync(path.dirname(path.join(home, rel)), { recursive: true });
        writeFileSync(path.join(home, rel), text);
        chmodSync(path.join(home, rel), 0o640);
      }
      const before = snapshot(home);
      const out = await connect(c.agent, home);
      expect(out).toContain("the original is kept as");
      c.expect(home, gw.url);
      c.kept(home);
      for (const rel of Object.keys(c.existing)) expect(readFileSync(path.join(home, rel + ".switchyard-backup"), "utf8")).toBe(c.existing[rel]);
      // Connected twice (say, to another address): undo still goes back to the user's own file.
      await connect(c.agent, home);
      await connect(c.agent, home, true);
      expect(snapshot(home)).toEqual(before);
    });
  }

  it(
    "R21.8 R26.1 R26.4 codex logged in with ChatGPT: connect writes the subscription block (/backend-api/codex, requires_openai_auth, no env_key, the WebSocket on) and chatgpt_base_url, and --undo restores the home",
    { timeout: 60_000 },
    async () => {
      const home = temp("codex-chatgpt");
      mkdirSync(path.join(home, ".codex"));
      const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
      const jwt = `${b64({ alg: "none" })}.${b64({ exp: 4_102_444_800, "https://api.openai.com/auth": { chatgpt_account_id: "acct-fake" } })}.sig`;
      const auth = { auth_mode: "chatgpt", OPENAI_API_KEY: null, tokens: { id_token: jwt, access_token: jwt, refresh_token: "rt", account_id: "acct-fake" } };
      writeFileSync(path.join(home, ".codex", "auth.json"), JSON.stringify(auth), { mode: 0o600 });
      const before = snapshot(home);
      const out = await connect("codex", home);
      expect(out).toContain("Note: Codex is logged in with ChatGPT: it now sends its login to Switchyard on ChatGPT's Codex backend paths (/backend-api/codex)");
      const toml = read(home, ".codex/config.toml");
      expect(toml).toMatch(/^model_provider = "switchyard"$/m);
      // R26.4: Codex's own ChatGPT calls (its usage view) go to Switchyard too.
      expect(toml).toMatch(new RegExp(`^chatgpt_base_url = "${gw.url}/backend-api/"$`, "m"));
      expect(toml.indexOf("chatgpt_base_url")).toBeLessThan(toml.indexOf("[model_providers.switchyard]"));
      const block = toml.slice(toml.indexOf("[model_providers.switchyard]"));
      expect(block.trim().split("\n")).toEqual([
        "[model_providers.switchyard]",
        'name = "Switchyard"',
        `base_url = "${gw.url}/backend-api/codex"`,
        'wire_api = "responses"',
        "supports_websockets = true",
        "requires_openai_auth = true",
      ]);
      // The login itself is Codex's alone: connect reads its mode and leaves the file as it was.
      expect(snapshot(home)[".codex/auth.json"]).toBe(before[".codex/auth.json"]);
      await connect("codex", home, true);
      expect(snapshot(home)).toEqual(before);
    },
  );

  it("R23.2 undo with nothing to undo says so (exit 1) and changes nothing", async () => {
    const home = temp("nothing");
    const run = await runCli(["connect", "claude", "--undo"], { cwd: home, env: cliEnv(home), timeoutMs: 30_000 });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^switchyard: nothing to undo: /);
    expect(snapshot(home)).toEqual({});
  });

  it("R23.2 a config that is not valid JSON is refused (exit 1) and left as it is", async () => {
    const home = temp("broken");
    mkdirSync(path.join(home, ".gemini"));
    writeFileSync(path.join(home, ".gemini", "settings.json"), "{ not json");
    const before = snapshot(home);
    const run = await runCli(["connect", "gemini"], { cwd: home, env: cliEnv(home), timeoutMs: 30_000 });
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.stderr).toContain("settings.json is not valid JSON");
    expect(snapshot(home)).toEqual(before);
  });
});

describe("after switchyard connect, the real agent started plainly reaches Switchyard (R23.2)", () => {
  for (const c of CASES) {
    const bin = clientBin(c.agent);
    it(`R23.2 ${c.agent} ${c.plainArgs.join(" ")}`, { timeout: TEST_TIMEOUT_MS }, async () => {
      expect(bin, `${c.agent} is not installed`).not.toBeNull();
      const home = temp(`${c.agent}-plain`);
      for (const [rel, text] of Object.entries(c.existing)) {
        mkdirSync(path.dirname(path.join(home, rel)), { recursive: true });
        writeFileSync(path.join(home, rel), text);
      }
      const files = CONFIGS[c.agent].map((f) => path.join(home, f));
      const before = fileBytes(files);
      await connect(c.agent, home);
      const since = Date.now();
      // The agent itself, with nothing of Switchyard's in its environment: only its config points it there.
      const run = await runClientProcess(bin!, c.plainArgs, { cwd: temp(`${c.agent}-plain-cwd`), env: baseEnv(home), timeoutMs: RUN_TIMEOUT_MS });
      expect(run.timedOut, describeRun(run)).toBe(false);
      expect(run.code, describeRun(run)).toBe(0);
      expect(run.stdout, describeRun(run)).toMatch(HELLO);
      const logs = await gw.api<RequestLogEntry[]>("GET", "/api/logs?limit=200");
      const rows = logs.body.filter((r) => r.time >= since && r.clientKind === c.kind);
      expect(rows.length, JSON.stringify(logs.body.slice(0, 5))).toBeGreaterThan(0);
      // The answer the agent printed; a side request (a title, say) may have been shed meanwhile (R20.3).
      expect(rows.some((r) => r.status === 200 && r.trafficClass === "main")).toBe(true);
      await connect(c.agent, home, true);
      expect(fileBytes(files)).toEqual(before);
    });
  }
});
