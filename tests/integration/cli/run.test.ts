// `switchyard run <agent> [--url URL] [-- agent args…]` (R23.2, issue 35) with the real agents,
// offline, against a gateway running the demo in this process: each answers through Switchyard
// (its output and the request log's row with its client kind), keeps its login, and has nothing
// written to its config. A stand-in agent shows the exit status, the signals and bad input.
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RequestLogEntry } from "../../../shared/types.js";
import { makeTempDir } from "../../fixtures/clients/clientProcess.js";
import { startRecordingProxy, type RecordingProxy } from "../../fixtures/clients/recordingProxy.js";
import { startGateway, type TestGateway } from "../harness.js";
import { baseEnv, CLI, clientBin, describeRun, runCli, snapshot, TEST_TIMEOUT_MS, type AgentName } from "./agentHarness.js";

const HELLO = /^Hello from simulated provider [AB] \(key demo-[ab]-\d\)$/m;

let gw: TestGateway;
let proxy: RecordingProxy;
const scratch: string[] = [];
const temp = (prefix: string) => makeTempDir(`switchyard-run-${prefix}-`, scratch);

beforeAll(async () => {
  gw = await startGateway();
  const demo = await gw.api("POST", "/api/demo");
  expect(demo.status, demo.text).toBe(200);
  proxy = await startRecordingProxy(gw.url);
});

afterAll(async () => {
  await proxy?.close();
  await gw?.close();
  const { rmSync } = await import("node:fs");
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** The env of a run: the agent found through SWITCHYARD_AGENT_BIN_<NAME> (claude: on PATH, as a user has it). */
function agentEnv(agent: AgentName, home: string, extra: Record<string, string> = {}): Record<string, string> {
  const bin = clientBin(agent)!;
  const env = baseEnv(home, { SWITCHYARD_HOME: path.join(home, ".switchyard"), ...extra });
  if (agent === "claude") env.PATH = `${path.dirname(bin)}${path.delimiter}${env.PATH}`;
  else env[`SWITCHYARD_AGENT_BIN_${agent.toUpperCase()}`] = bin;
  return env;
}

async function logRows(since: number): Promise<RequestLogEntry[]> {
  const logs = await gw.api<RequestLogEntry[]>("GET", "/api/logs?limit=200");
  expect(logs.status).toBe(200);
  return logs.body.filter((r) => r.time >= since);
}

interface RealCase {
  agent: AgentName;
  args: string[];
  kind: RequestLogEntry["clientKind"];
  format: RequestLogEntry["clientFormat"];
  /** The agent's config files that `run` must not create. */
  config: string[];
}

const REAL: RealCase[] = [
  { agent: "claude", args: ["-p", "Say hello", "--model", "demo"], kind: "claude-code", format: "anthropic", config: [".claude/settings.json"] },
  { agent: "codex", args: ["exec", "--skip-git-repo-check", "-m", "demo", "Say hello"], kind: "codex-cli", format: "openai-responses", config: [".codex/config.toml"] },
  { agent: "gemini", args: ["-m", "demo", "-p", "Say hello"], kind: "gemini-cli", format: "gemini", config: [".gemini/settings.json", ".gemini/.env"] },
  {
    agent: "opencode",
    args: ["run", "Say hello"],
    kind: "opencode",
    format: "openai",
    config: [".config/opencode/opencode.json", ".config/opencode/opencode.jsonc", ".config/opencode/config.json"],
  },
  { agent: "qwen", args: ["-p", "Say hello"], kind: "qwen-code", format: "openai", config: [".qwen/settings.json"] },
  // pi talks through the OpenAI SDK and is logged as such.
  { agent: "pi", args: ["--offline", "--no-session", "-p", "Say hello"], kind: "openai-sdk", format: "openai", config: [".pi/agent/models.json", ".pi/agent/settings.json"] },
];

describe("switchyard run with the real agents (R23.2)", () => {
  for (const c of REAL) {
    // All six come with the pinned test clients (tests/clients), which `npm test` installs: none may be missing.
    it(`R23.2 switchyard run ${c.agent} -- ${c.args.join(" ")} is answered through Switchyard, with nothing written to its config`, { timeout: TEST_TIMEOUT_MS }, async () => {
      expect(clientBin(c.agent), `${c.agent} is not installed`).not.toBeNull();
      const home = temp(`${c.agent}-home`);
      const since = Date.now();
      const run = await runCli(["run", c.agent, "--", ...c.args], { cwd: temp(`${c.agent}-cwd`), env: agentEnv(c.agent, home, { SWITCHYARD_URL: gw.url }) });
      expect(run.timedOut, describeRun(run)).toBe(false);
      expect(run.code, describeRun(run)).toBe(0);
      expect(run.stdout, describeRun(run)).toMatch(HELLO);
      const rows = (await logRows(since)).filter((r) => r.clientKind === c.kind);
      expect(rows.length, JSON.stringify(await logRows(since))).toBeGreaterThan(0);
      expect(
        rows.map((r) => [r.clientFormat, r.combo]),
        JSON.stringify(rows),
      ).toEqual(rows.map(() => [c.format, "demo"]));
      // The answer the agent printed; a side request (a title, say) may have been shed meanwhile (R20.3).
      expect(rows.some((r) => r.status === 200 && r.trafficClass === "main")).toBe(true);
      for (const file of c.config) expect(existsSync(path.join(home, file)), file).toBe(false);
    });
  }

  it("R21.8 Claude Code keeps its Pro/Max login: only ANTHROPIC_BASE_URL is set, and its OAuth token reaches Switchyard", { timeout: TEST_TIMEOUT_MS }, async () => {
    const home = temp("claude-login");
    mkdirSync(path.join(home, ".claude"));
    const credentials = path.join(home, ".claude", ".credentials.json");
    const login = {
      claudeAiOauth: {
        accessToken: "sk-ant-oat01-run-test",
        refreshToken: "sk-ant-ort01-run-test",
        expiresAt: Date.now() + 86_400_000,
        scopes: ["user:inference", "user:profile"],
        subscriptionType: "max",
      },
    };
    writeFileSync(credentials, JSON.stringify(login), { mode: 0o600 });
    const before = snapshot(path.join(home, ".claude"));
    proxy.exchanges.length = 0;
    const run = await runCli(["run", "claude", "--url", proxy.url, "--", "-p", "Say hello", "--model", "demo"], { cwd: temp("claude-login-cwd"), env: agentEnv("claude", home) });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stdout).toMatch(HELLO);
    const posts = proxy.exchanges.filter((x) => x.method === "POST" && x.url.startsWith("/v1/messages"));
    expect(posts.length).toBeGreaterThan(0);
    for (const x of posts) {
      expect(x.headers.authorization).toBe("Bearer sk-ant-oat01-run-test");
      expect(x.headers["x-api-key"]).toBeUndefined();
    }
    expect(readFileSync(credentials, "utf8")).toBe(JSON.stringify(login));
    expect(snapshot(path.join(home, ".claude"))[".credentials.json"]).toBe(before[".credentials.json"]);
  });

  it(
    "R21.8 Codex keeps its ChatGPT login: it speaks ChatGPT's backend paths to Switchyard (/backend-api/codex), requires_openai_auth sends its token and account id, and no config.toml is written",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const home = temp("codex-login");
      mkdirSync(path.join(home, ".codex"));
      const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
      const jwt = `${b64({ alg: "none", typ: "JWT" })}.${b64({ exp: Math.floor(Date.now() / 1000) + 86_400, "https://api.openai.com/auth": { chatgpt_account_id: "acct-run-test", chatgpt_plan_type: "plus" } })}.sig`;
      const auth = {
        auth_mode: "chatgpt",
        OPENAI_API_KEY: null,
        tokens: { id_token: jwt, access_token: jwt, refresh_token: "rt-run-test", account_id: "acct-run-test" },
        last_refresh: new Date().toISOString(),
      };
      writeFileSync(path.join(home, ".codex", "auth.json"), JSON.stringify(auth), { mode: 0o600 });
      proxy.exchanges.length = 0;
      const run = await runCli(["run", "codex", "--url", proxy.url, "--", "exec", "--skip-git-repo-check", "-m", "demo", "Say hello"], {
        cwd: temp("codex-login-cwd"),
        env: agentEnv("codex", home),
      });
      expect(run.code, describeRun(run)).toBe(0);
      expect(run.stdout).toMatch(HELLO);
      const posts = proxy.exchanges.filter((x) => x.method === "POST" && x.url === "/backend-api/codex/responses");
      expect(posts.length, JSON.stringify(proxy.exchanges.map((x) => `${x.method} ${x.url}`))).toBeGreaterThan(0);
      // (The CLI itself reads /v1/models to find the instance; Codex sends nothing to /v1.)
      expect(proxy.exchanges.filter((x) => x.url.startsWith("/v1/") && x.headers["user-agent"] !== "node").map((x) => `${x.method} ${x.url}`)).toEqual([]);
      for (const x of posts) {
        expect(x.headers.authorization).toBe(`Bearer ${jwt}`);
        expect(x.headers["chatgpt-account-id"]).toBe("acct-run-test");
      }
      expect(existsSync(path.join(home, ".codex", "config.toml"))).toBe(false);
    },
  );

  it("R1.7 with requireClientKey on, run makes the CLI a Switchyard key once (with the admin token) and the agent presents it", { timeout: TEST_TIMEOUT_MS }, async () => {
    const home = temp("key-home");
    const cliHome = path.join(home, ".switchyard");
    mkdirSync(cliHome);
    expect((await gw.api("PATCH", "/api/settings", { requireClientKey: true })).status).toBe(200);
    try {
      // Without the key or the admin token: refused before the agent starts, with what to do.
      const refused = await runCli(["run", "gemini", "--url", gw.url, "--", "-m", "demo", "-p", "Say hello"], { cwd: temp("key-cwd"), env: agentEnv("gemini", home) });
      expect(refused.code, describeRun(refused)).toBe(1);
      expect(refused.stderr.trim().split("\n")).toHaveLength(1);
      expect(refused.stderr).toContain("requires a client key: set SWITCHYARD_API_KEY");

      const since = Date.now();
      const env = agentEnv("gemini", home, { SWITCHYARD_ADMIN_TOKEN: gw.token });
      const run = await runCli(["run", "gemini", "--url", gw.url, "--", "-m", "demo", "-p", "Say hello"], { cwd: temp("key-cwd"), env });
      expect(run.code, describeRun(run)).toBe(0);
      expect(run.stdout).toMatch(HELLO);
      const stored = JSON.parse(readFileSync(path.join(cliHome, "cli-client-key.json"), "utf8"));
      expect(stored).toMatchObject({ url: gw.url, key: expect.stringMatching(/^sk-sy-/) });
      const rows = (await logRows(since)).filter((r) => r.clientKind === "gemini-cli");
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((r) => r.apiKeyId === stored.id)).toBe(true);
      // A second run reuses the key: still one key for the CLI.
      const again = await runCli(["run", "gemini", "--url", gw.url, "--", "-m", "demo", "-p", "Say hello"], { cwd: temp("key-cwd"), env });
      expect(again.code, describeRun(again)).toBe(0);
      const keys = await gw.api<{ id: string; name: string }[]>("GET", "/api/keys");
      expect(keys.body.filter((k) => k.name.startsWith("switchyard run/connect"))).toHaveLength(1);
    } finally {
      expect((await gw.api("PATCH", "/api/settings", { requireClientKey: false })).status).toBe(200);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// A stand-in agent: reports its arguments and the variables run set, exits with FAKE_CODE, or
// waits for a signal and exits with FAKE_CODE once it gets one.

const FAKE = `#!/usr/bin/env node
const fs = require("fs");
const report = process.env.FAKE_REPORT;
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => /^(ANTHROPIC_|CLAUDE_CODE_GATEWAY_HINT_HEADERS|OPENAI_|GEMINI_API_KEY|GEMINI_CLI_HOME|GOOGLE_GEMINI|SWITCHYARD_API_KEY|OPENCODE_CONFIG_CONTENT|CODEX_HOME)/.test(k)));
fs.writeFileSync(report, JSON.stringify({ argv: process.argv.slice(2), env }));
if (process.env.FAKE_SELF_KILL) process.kill(process.pid, "SIGKILL");
if (process.env.FAKE_WAIT) {
  for (const s of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(s, () => { fs.appendFileSync(report + ".signals", s + "\\n"); process.exit(Number(process.env.FAKE_CODE)); });
  process.stdout.write("ready\\n");
  setInterval(() => undefined, 1000);
} else process.exit(Number(process.env.FAKE_CODE || 0));
`;

function fakeAgent(): string {
  const dir = temp("fake");
  const file = path.join(dir, "fake-agent");
  writeFileSync(file, FAKE);
  chmodSync(file, 0o755);
  return file;
}

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The CLI with the stand-in as `agent`; `whenReady` runs once it printed "ready" (given the CLI's pid). */
function runFake(agent: AgentName, args: string[], env: Record<string, string>, whenReady?: (pid: number) => void): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, "run", agent, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.stdout.on("data", (b: Buffer) => {
      stdout += b.toString();
      if (whenReady && stdout.includes("ready\n")) {
        const fire = whenReady;
        whenReady = undefined;
        fire(child.pid!);
      }
    });
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

describe("switchyard run: the agent's exit status, signals and environment; bad input (R23.2)", () => {
  const report = () => path.join(temp("report"), "report.json");
  const fakeEnv = (agent: AgentName, file: string, extra: Record<string, string> = {}) => {
    const home = temp("fake-home");
    return { home, env: baseEnv(home, { SWITCHYARD_URL: gw.url, [`SWITCHYARD_AGENT_BIN_${agent.toUpperCase()}`]: fakeAgent(), FAKE_REPORT: file, ...extra }) };
  };

  it("R23.2 the exit status is the agent's, the agent's arguments follow --, and only the process's environment changes", async () => {
    const file = report();
    const { home, env } = fakeEnv("claude", file, { FAKE_CODE: "3" });
    const ended = await runFake("claude", ["--", "-p", "hi", "--model", "demo"], env);
    expect(ended.code, ended.stderr).toBe(3);
    const seen = JSON.parse(readFileSync(file, "utf8"));
    expect(seen.argv).toEqual(["-p", "hi", "--model", "demo"]);
    // No login here: a placeholder key, since this instance needs none.
    // R25.5: and Claude Code's gateway hints on.
    expect(seen.env).toEqual({ ANTHROPIC_BASE_URL: gw.url, ANTHROPIC_API_KEY: "switchyard", CLAUDE_CODE_GATEWAY_HINT_HEADERS: "1" });
    expect(snapshot(home)).toEqual({});
  });

  it("R23.2 each agent's per-process overrides: Codex -c, Qwen --auth-type, opencode's inline config, pi's extension", async () => {
    const codexReport = report();
    const codex = fakeEnv("codex", codexReport);
    expect((await runFake("codex", ["--", "exec", "hi"], codex.env)).code).toBe(0);
    const c = JSON.parse(readFileSync(codexReport, "utf8"));
    expect(c.argv).toEqual([
      "-c",
      'model_provider="switchyard"',
      "-c",
      'model_providers.switchyard.name="Switchyard"',
      "-c",
      `model_providers.switchyard.base_url="${gw.url}/v1"`,
      "-c",
      'model_providers.switchyard.wire_api="responses"',
      "-c",
      "model_providers.switchyard.supports_websockets=true",
      "-c",
      'model_providers.switchyard.env_key="SWITCHYARD_API_KEY"',
      "exec",
      "hi",
    ]);
    expect(c.env).toEqual({ SWITCHYARD_API_KEY: "switchyard" });

    const qwenReport = report();
    expect((await runFake("qwen", ["--", "-m", "sim-b/demo-model", "-p", "hi"], fakeEnv("qwen", qwenReport).env)).code).toBe(0);
    const q = JSON.parse(readFileSync(qwenReport, "utf8"));
    expect(q.argv).toEqual(["--auth-type", "openai", "-m", "sim-b/demo-model", "-p", "hi"]);
    expect(q.env).toEqual({ OPENAI_BASE_URL: `${gw.url}/v1`, OPENAI_API_KEY: "switchyard" });

    const openReport = report();
    expect((await runFake("opencode", ["--", "run", "hi"], fakeEnv("opencode", openReport).env)).code).toBe(0);
    const inline = JSON.parse(JSON.parse(readFileSync(openReport, "utf8")).env.OPENCODE_CONFIG_CONTENT);
    expect(inline).toEqual({
      provider: {
        switchyard: {
          npm: "@ai-sdk/openai-compatible",
          name: "Switchyard",
          options: { baseURL: `${gw.url}/v1`, apiKey: "switchyard" },
          models: { demo: {}, "sim-a/demo-model": {}, "sim-b/demo-model": {} },
        },
      },
      model: "switchyard/demo",
    });

    const piReport = report();
    expect((await runFake("pi", ["--", "-p", "hi"], fakeEnv("pi", piReport).env)).code).toBe(0);
    const p = JSON.parse(readFileSync(piReport, "utf8"));
    expect(p.argv[0]).toBe("-e");
    expect(p.argv.slice(2)).toEqual(["--provider", "switchyard", "--model", "demo", "-p", "hi"]);
    // The extension lived in a private folder that went with the agent.
    expect(existsSync(p.argv[1])).toBe(false);
  });

  it("R21.8 R26.1 R26.4 Codex's login decides its provider block: a ChatGPT login speaks /backend-api/codex with requires_openai_auth and points chatgpt_base_url at Switchyard, an API key /v1; the WebSocket is on for both; a key rides in X-Switchyard-Key", async () => {
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const jwt = `${b64({ alg: "none" })}.${b64({ exp: 4_102_444_800, "https://api.openai.com/auth": { chatgpt_account_id: "acct-fake" } })}.sig`;
    const logins: Array<[string, Record<string, unknown>, string]> = [
      [
        "chatgpt",
        { auth_mode: "chatgpt", OPENAI_API_KEY: null, tokens: { id_token: jwt, access_token: jwt, refresh_token: "rt", account_id: "acct-fake" } },
        `${gw.url}/backend-api/codex`,
      ],
      // Files written before auth_mode existed: tokens alone are a ChatGPT login.
      [
        "chatgpt (no auth_mode)",
        { OPENAI_API_KEY: null, tokens: { id_token: jwt, access_token: jwt, refresh_token: "rt", account_id: "acct-fake" } },
        `${gw.url}/backend-api/codex`,
      ],
      ["apikey", { auth_mode: "apikey", OPENAI_API_KEY: "sk-fake-openai-key" }, `${gw.url}/v1`],
    ];
    for (const [label, auth, baseUrl] of logins) {
      for (const key of [null, "sk-sy-fake-client-key"]) {
        const file = report();
        const { home, env } = fakeEnv("codex", file, key ? { SWITCHYARD_API_KEY: key } : {});
        mkdirSync(path.join(home, ".codex"));
        writeFileSync(path.join(home, ".codex", "auth.json"), JSON.stringify(auth), { mode: 0o600 });
        const ended = await runFake("codex", ["--", "exec", "hi"], env);
        expect(ended.code, `${label}: ${ended.stderr}`).toBe(0);
        const seen = JSON.parse(readFileSync(file, "utf8"));
        expect(seen.argv, label).toEqual([
          "-c",
          'model_provider="switchyard"',
          ...(label.startsWith("chatgpt") ? ["-c", `chatgpt_base_url="${gw.url}/backend-api/"`] : []),
          "-c",
          'model_providers.switchyard.name="Switchyard"',
          "-c",
          `model_providers.switchyard.base_url="${baseUrl}"`,
          "-c",
          'model_providers.switchyard.wire_api="responses"',
          "-c",
          "model_providers.switchyard.supports_websockets=true",
          "-c",
          "model_providers.switchyard.requires_openai_auth=true",
          // The key travels in a variable, never on the command line.
          ...(key ? ["-c", 'model_providers.switchyard.env_http_headers={ "X-Switchyard-Key" = "SWITCHYARD_API_KEY" }'] : []),
          "exec",
          "hi",
        ]);
        expect(seen.env, label).toEqual({ SWITCHYARD_API_KEY: key ?? "switchyard" });
      }
    }
  });

  it("R23.2 SIGTERM and SIGINT reach the agent, and the agent's status after it is ours", async () => {
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      const file = report();
      const { env } = fakeEnv("gemini", file, { FAKE_WAIT: "1", FAKE_CODE: "7" });
      const ended = await runFake("gemini", [], env, (pid) => process.kill(pid, signal));
      expect(ended.code, ended.stderr).toBe(7);
      expect(readFileSync(file + ".signals", "utf8")).toBe(`${signal}\n`);
    }
  });

  it("R23.2 an agent killed by a signal ends run by the same signal", async () => {
    const { env } = fakeEnv("qwen", report(), { FAKE_SELF_KILL: "1" });
    const ended = await runFake("qwen", ["--", "-m", "demo"], env);
    expect(ended.signal).toBe("SIGKILL");
  });

  it("R23.2 bad input is one line and exit 2, with nothing written: an unknown agent, a missing binary, agent options before --", async () => {
    for (const [args, message] of [
      [["run", "cursor"], "switchyard: unknown agent: cursor (known: claude, codex, gemini, opencode, qwen, pi)"],
      [["run", "claude", "-p", "hi"], /^switchyard: Unknown option '-p'\..* \(the agent's own arguments go after --\)$/],
      [["run"], "switchyard: run needs an agent: switchyard run <claude|codex|gemini|opencode|qwen|pi>"],
      [["run", "claude", "--url", "not a url"], "switchyard: not a URL: not a url (expected e.g. http://127.0.0.1:8642)"],
      [["connect", "nope"], "switchyard: unknown agent: nope (known: claude, codex, gemini, opencode, qwen, pi)"],
    ] as const) {
      const home = temp("bad");
      const run = await runCli([...args], { cwd: home, env: baseEnv(home, { SWITCHYARD_ADMIN_TOKEN: gw.token, SWITCHYARD_URL: gw.url }) });
      expect(run.code, describeRun(run)).toBe(2);
      expect(run.stderr.endsWith("\n") && run.stderr.split("\n")).toHaveLength(2);
      if (typeof message === "string") expect(run.stderr).toBe(message + "\n");
      else expect(run.stderr.trim()).toMatch(message);
      expect(snapshot(home)).toEqual({});
    }
    // No `claude` on PATH (PATH has only node and the system's folders here).
    const home = temp("missing");
    const missing = await runCli(["run", "claude", "--", "-p", "hi"], { cwd: home, env: baseEnv(home, { SWITCHYARD_ADMIN_TOKEN: gw.token, SWITCHYARD_URL: gw.url }) });
    expect(missing.code, describeRun(missing)).toBe(2);
    expect(missing.stderr).toBe("switchyard: Claude Code is not installed here: no `claude` on PATH (install it, or set SWITCHYARD_AGENT_BIN_CLAUDE to its executable)\n");
    expect(snapshot(home)).toEqual({});
  });
});
