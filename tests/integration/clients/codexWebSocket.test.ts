// The real Codex 0.171 (tests/clients, offline) over Switchyard's Responses WebSocket (R26.1,
// R26.2): a custom provider with `supports_websockets = true` opens `GET …/responses` with
// `Upgrade: websocket`, is answered 101, and runs its whole session over the socket — no POST —
// including a tool round trip whose second turn names the first by previous_response_id and
// sends only the tool's output. Once on a key (apply_patch through an Anthropic-format upstream,
// the file edited) and once on a fake ChatGPT login (`requires_openai_auth`, the ChatGPT backend
// path, served on the login by the simulator's ChatGPT account).
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { startGateway, startSim, type TestGateway } from "../harness.js";
import { codexChatgptHome, CODEX_ACCOUNT, CODEX_LOGIN, runCodex as runCodexWithLogin } from "../subscriptions/realClientsHarness.js";
import {
  codexCatalog,
  codexConfigToml,
  describeRun,
  makeTempDir,
  responsesPosts,
  runCodex,
  startCodexProxy,
  startScriptedAnthropic,
  writeCodexHome,
  type CodexProxy,
  type Json,
  type ScriptedAnthropic,
} from "./codexHarness.js";

const RUN_TIMEOUT_MS = 90_000;
const TEST_TIMEOUT_MS = RUN_TIMEOUT_MS + 30_000;
const ANTHROPIC_MODEL = "ws-anthropic/claude-sim";
const CHATGPT_MODEL = "gpt-5.5";
const PATCH = "*** Begin Patch\n*** Update File: hello.txt\n@@\n-hello world\n+hello switchyard\n*** End Patch\n";
const TOOL_USE_ID = "toolu_codex_ws_patch";
const FINAL_TEXT = "Patched hello.txt over the socket.";

let gw: TestGateway;
let sim: Simulator;
let anthropic: ScriptedAnthropic;
let proxy: CodexProxy;
const scratch: string[] = [];

async function created(route: string, body: Json): Promise<void> {
  const r = await gw.api("POST", route, body);
  if (r.status !== 201) throw new Error(`${route} → ${r.status} ${r.text}`);
}

async function rowsSince(since: number): Promise<Json[]> {
  const rows = (await gw.api<Json[]>("GET", "/api/logs?limit=50")).body.filter((r) => r.time >= since);
  return Promise.all(rows.map(async (r) => (await gw.api<Json>("GET", `/api/logs/${r.id}`)).body));
}

beforeAll(async () => {
  sim = await startSim({
    label: "ws-vendor",
    subscriptions: [{ kind: "chatgpt", token: CODEX_LOGIN, chatgptAccountId: CODEX_ACCOUNT, name: "plus-ws", planType: "plus", fiveHourLimit: 1000 }],
  });
  anthropic = await startScriptedAnthropic({ toolNameIncludes: "apply_patch", toolInput: PATCH, toolUseId: TOOL_USE_ID, finalText: FINAL_TEXT });
  gw = await startGateway();
  await created("/api/providers", { id: "ws-anthropic", format: "anthropic", baseUrl: anthropic.url, category: "apikey", models: ["claude-sim"] });
  await created("/api/connections", { id: "ws-anthropic-c1", provider: "ws-anthropic", name: "scripted", apiKey: "ws-anthropic-key" });
  await created("/api/providers", { id: "chatgpt-sub", format: "openai-responses", baseUrl: `${sim.url}/backend-api/codex`, category: "oauth", models: [CHATGPT_MODEL] });
  await created("/api/connections", { id: "plus", provider: "chatgpt-sub", name: "My Plus", credential: "client" });
  await created("/api/providers", { id: "ws-chat", format: "openai", baseUrl: `${sim.url}/v1`, category: "apikey", models: ["gpt-sim"] });
  await created("/api/connections", { id: "ws-chat-c1", provider: "ws-chat", name: "chat key", apiKey: "ws-chat-key" });
  proxy = await startCodexProxy(gw.url);
}, 60_000);

afterEach(() => {
  proxy.exchanges.length = 0;
  sim.clearFaults();
});

afterAll(async () => {
  await proxy?.close();
  await gw?.close();
  await sim?.close();
  await anthropic?.close();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** The upgrade Codex made and the answer it got; no generation went over HTTP. */
function expectSocketOnly(run: { stderr: string }, pathName: string): void {
  const upgrades = proxy.exchanges.filter((x) => x.upgrade);
  expect(upgrades.length, describeRun(run as never)).toBeGreaterThanOrEqual(1);
  expect(upgrades[0].url).toBe(pathName);
  expect(upgrades.map((x) => x.status)).toEqual(upgrades.map(() => 101));
  expect(run.stderr).not.toMatch(/failed to connect to Responses WebSocket|Falling back from WebSockets|Reconnecting/);
  expect(proxy.exchanges.filter((x) => !x.upgrade && x.method === "POST" && x.url.split("?")[0].endsWith("/responses"))).toEqual([]);
}

describe("Codex 0.171 over the Responses WebSocket (R26.1, R26.2)", () => {
  it(
    "R26.1 R26.2 on a key: Codex upgrades (101), edits a file with apply_patch through an Anthropic upstream, and the tool round trip is two socket turns",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const since = Date.now();
      const repo = makeTempDir("switchyard-codex-ws-repo-", scratch);
      const git = (...args: string[]) =>
        execFileSync("git", ["-c", "user.name=Switchyard Test", "-c", "user.email=test@switchyard.invalid", ...args], { cwd: repo, stdio: "pipe" });
      git("init", "-q");
      writeFileSync(path.join(repo, "hello.txt"), "hello world\n");
      git("add", "hello.txt");
      git("commit", "-qm", "start");
      const home = makeTempDir("switchyard-codex-ws-home-", scratch);
      const catalog = path.join(home, "catalog.json");
      const toml = codexConfigToml({
        baseUrl: `${proxy.url}/v1`,
        model: ANTHROPIC_MODEL,
        providerLines: ["supports_websockets = true"],
        topLines: [`model_catalog_json = ${JSON.stringify(catalog)}`],
      });
      writeCodexHome(home, toml, { "catalog.json": JSON.stringify(codexCatalog(ANTHROPIC_MODEL, { prefer_websockets: true })) });
      const run = await runCodex(["-s", "workspace-write", "Change hello world to hello switchyard in hello.txt"], { home, cwd: repo, timeoutMs: RUN_TIMEOUT_MS });
      expect(run.code, describeRun(run)).toBe(0);
      expect(readFileSync(path.join(repo, "hello.txt"), "utf8")).toBe("hello switchyard\n");
      expect(run.stdout.trim()).toBe(FINAL_TEXT);
      expectSocketOnly(run, "/v1/responses");
      expect(responsesPosts(proxy.exchanges)).toEqual([]);

      // Upstream: the tool_use went out and its tool_result came back, over HTTP to Anthropic's format.
      const upstream = anthropic.requests.filter((r) => r.path.split("?")[0] === "/v1/messages").slice(-2);
      expect(upstream).toHaveLength(2);
      const blocks = (upstream[1].body.messages as Json[]).flatMap((m) => (Array.isArray(m.content) ? m.content : []));
      expect(blocks.find((b: Json) => b.type === "tool_use")).toMatchObject({ id: TOOL_USE_ID, name: "apply_patch" });
      expect(JSON.stringify(blocks.find((b: Json) => b.type === "tool_result"))).toContain("Success. Updated the following files");
      // Both turns are rows of the socket.
      const turns = (await rowsSince(since)).filter((r) => r.clientFormat === "openai-responses" && r.status === 200);
      expect(turns.length).toBeGreaterThanOrEqual(2);
      for (const r of turns) expect(r.transport).toBe("websocket");
    },
  );

  it(
    "R26.1 R26.3 Codex with a 3 s stream idle timeout survives a 7 s wait for the upstream's first byte over the socket: keep-alive frames, one turn, no reconnect",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      sim.addFault("ws-chat-key", { latencyMs: 7_000, times: 1 });
      const home = makeTempDir("switchyard-codex-ws-slow-", scratch);
      writeCodexHome(
        home,
        codexConfigToml({ baseUrl: `${proxy.url}/v1`, model: "ws-chat/gpt-sim", providerLines: ["supports_websockets = true", "stream_idle_timeout_ms = 3000"] }),
      );
      const before = sim.requests.filter((r) => r.path === "/v1/chat/completions").length;
      const run = await runCodex(["Say hello after a slow start"], { home, cwd: makeTempDir("switchyard-codex-ws-slow-cwd-", scratch), timeoutMs: RUN_TIMEOUT_MS });
      expect(run.code, describeRun(run)).toBe(0);
      expect(run.stdout.trim()).toMatch(/^Hello from ws-vendor/);
      expect(run.stderr).not.toMatch(/idle timeout/);
      expectSocketOnly(run, "/v1/responses");
      expect(proxy.exchanges.filter((x) => x.upgrade)).toHaveLength(1);
      expect(sim.requests.filter((r) => r.path === "/v1/chat/completions").length - before).toBe(1);
    },
  );

  it(
    "R26.1 R21.1 on a fake ChatGPT login: Codex upgrades at /backend-api/codex/responses (101) and its tool round trip is served on the login over the socket",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const since = Date.now();
      const home = makeTempDir("switchyard-codex-ws-login-", scratch);
      const toml = [
        `model_provider = "switchyard"`,
        `model = ${JSON.stringify(CHATGPT_MODEL)}`,
        ``,
        `[model_providers.switchyard]`,
        `name = "Switchyard"`,
        `base_url = ${JSON.stringify(`${proxy.url}/backend-api/codex`)}`,
        `wire_api = "responses"`,
        `requires_openai_auth = true`,
        `supports_websockets = true`,
      ].join("\n");
      codexChatgptHome(home, toml);
      const cwd = makeTempDir("switchyard-codex-ws-login-cwd-", scratch);
      const before = sim.requests.length;
      const run = await runCodexWithLogin(home, cwd, "Please use tool exec_command to look around");
      expect(run.code, describeRun(run)).toBe(0);
      expect(run.stdout).toContain("Tool result received");
      expectSocketOnly(run, "/backend-api/codex/responses");
      const upgrade = proxy.exchanges.find((x) => x.upgrade)!;
      expect(upgrade.headers.authorization).toBe(`Bearer ${CODEX_LOGIN}`);
      expect(upgrade.headers["chatgpt-account-id"]).toBe(CODEX_ACCOUNT);
      // The simulator's ChatGPT account served both turns on the login, over HTTP.
      const served = sim.requests.slice(before).filter((r) => r.path === "/backend-api/codex/responses");
      expect(served.length).toBeGreaterThanOrEqual(2);
      for (const r of served) expect(r.login).toBe("plus-ws");
      const second = served.at(-1)!.body as Json;
      expect((second.input as Json[]).some((i) => i.type === "function_call_output")).toBe(true);
      expect((second.input as Json[]).some((i) => i.type === "function_call")).toBe(true);
      const turns = (await rowsSince(since)).filter((r) => r.connectionId !== null && r.status === 200);
      expect(turns.length).toBeGreaterThanOrEqual(2);
      for (const r of turns) expect(r.transport).toBe("websocket");
    },
  );
});
