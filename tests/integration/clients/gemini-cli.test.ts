// The Gemini CLI itself (the pinned npm build, @google/gemini-cli 0.61.0, run offline in `-p`
// mode) talking to Switchyard's Gemini-native routes (issue 23; R17.1, R17.3, R17.4), served once
// from an OpenAI-format and once from an Anthropic-format upstream (the simulator).
//
// Measured with Gemini CLI 0.61.0 against Switchyard (see the assertions):
// - `GOOGLE_GEMINI_BASE_URL=<origin>` plus `security.auth.selectedType: "gemini-api-key"` in
//   `$HOME/.gemini/settings.json` (without it: "Invalid auth method selected.", exit 41).
// - One `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` per turn, the key in
//   `x-goog-api-key`, and no other request (no countTokens, no model list, no side model).
// - Its user-agent is `GeminiCLI-tui/0.61.0/<model> (linux; x64; terminal)` — "GeminiCLI-tui",
//   not "GeminiCLI", even in `-p` mode — and its GenAI SDK adds
//   `x-goog-api-client: google-genai-sdk/1.30.0 gl-node/v20.x`.
// - A `provider/model` name goes into the path with its slash literal; an alias or a combo name
//   goes as is.
// - It offers update_topic, list_directory, read_file, grep_search, glob, google_web_search,
//   enter_plan_mode and invoke_agent (update_topic first); `tools.core` in the settings
//   restricts the list, which the tool round trip uses to make read_file the first tool
//   (the simulator calls the first one with every required string set to "sim").
// - A Gemini-shaped 429 with RetryInfo makes it wait the given delay and try again.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { clientBin } from "../../clients/locate.js";
import { makeTempDir, runClientProcess, type ClientRun } from "../../fixtures/clients/clientProcess.js";
import { startRecordingProxy, type RecordedExchange, type RecordingProxy } from "../../fixtures/clients/recordingProxy.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../harness.js";

type Json = Record<string, any>;

const GEMINI = clientBin("gemini");
const GEMINI_VERSION = "0.61.0";
const RUN_TIMEOUT_MS = 90_000;
const TEST_TIMEOUT_MS = RUN_TIMEOUT_MS + 30_000;
const LABEL = "gemini-cli-upstream";
const CLIENT_KEY = "gemini-cli-client-key";
const AUTH_SETTINGS = { security: { auth: { selectedType: "gemini-api-key" } } };
/** The tools Gemini CLI 0.61.0 declares by default in a fresh, trusted workspace (measured). */
const DEFAULT_TOOLS = ["update_topic", "list_directory", "read_file", "grep_search", "glob", "google_web_search", "enter_plan_mode", "invoke_agent"];

interface Upstream {
  format: "openai" | "anthropic";
  /** The upstream route the simulator sees. */
  route: string;
  /** Its model id behind Switchyard. */
  model: string;
  a: string;
  b: string;
  combo: string;
  /** A Gemini model name the CLI knows, aliased in Switchyard to target a. */
  alias: string;
}

const UPSTREAMS: Upstream[] = [
  { format: "openai", route: "/v1/chat/completions", model: "gpt-sim", a: "gc-oa-a", b: "gc-oa-b", combo: "gc-combo-openai", alias: "gemini-2.5-pro" },
  { format: "anthropic", route: "/v1/messages", model: "claude-sim", a: "gc-an-a", b: "gc-an-b", combo: "gc-combo-anthropic", alias: "gemini-2.5-flash" },
];

const keyOf = (provider: string) => `${provider}-key`;

type GeminiRun = ClientRun;

let gw: TestGateway;
let sim: Simulator;
let proxy: RecordingProxy;
const scratch: string[] = [];

const tempDir = (prefix: string) => makeTempDir(prefix, scratch);

/** A temporary HOME whose `.gemini/settings.json` selects API-key auth (plus the test's extras). */
function geminiHome(extra: Json = {}): string {
  const home = tempDir("switchyard-gemini-home-");
  mkdirSync(path.join(home, ".gemini"));
  writeFileSync(path.join(home, ".gemini", "settings.json"), JSON.stringify({ ...AUTH_SETTINGS, ...extra }));
  return home;
}

/**
 * Runs `gemini -m <model> -p <prompt>` through the recording proxy with only PATH, HOME and the
 * Gemini variables in its environment. Asynchronous: the gateway and simulator live in this process.
 */
function runGemini(model: string, prompt: string, opts: { cwd?: string; settings?: Json } = {}): Promise<GeminiRun> {
  return runClientProcess(GEMINI, ["-m", model, "-p", prompt], {
    cwd: opts.cwd ?? tempDir("switchyard-gemini-cwd-"),
    timeoutMs: RUN_TIMEOUT_MS,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: geminiHome(opts.settings),
      GOOGLE_GEMINI_BASE_URL: proxy.url,
      GEMINI_API_KEY: CLIENT_KEY,
      GEMINI_CLI_TRUST_WORKSPACE: "true",
    },
  });
}

function describeRun(run: GeminiRun): string {
  const traffic = proxy.exchanges.map((x) => `${x.method} ${x.url} → ${x.status} ${x.response.slice(0, 300)}`).join("\n");
  return `exit ${run.code}${run.timedOut ? " (timed out)" : ""} after ${run.ms} ms\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr.slice(-3000)}\n--- traffic\n${traffic}`;
}

function expectSuccess(run: GeminiRun): void {
  expect(run.timedOut, describeRun(run)).toBe(false);
  expect(run.code, describeRun(run)).toBe(0);
}

/** The generation requests the CLI sent, each checked for the route, key and user-agent it uses. */
function generationPosts(model: string): Array<RecordedExchange & { json: Json }> {
  expect(proxy.exchanges.length).toBeGreaterThan(0);
  for (const x of proxy.exchanges) {
    expect(`${x.method} ${x.url}`).toBe(`POST /v1beta/models/${model}:streamGenerateContent?alt=sse`);
    expect(x.headers["x-goog-api-key"]).toBe(CLIENT_KEY);
    expect(x.headers["user-agent"]).toBe(`GeminiCLI-tui/${GEMINI_VERSION}/${model} (${process.platform}; ${process.arch}; terminal)`);
    expect(String(x.headers["x-goog-api-client"])).toMatch(/^google-genai-sdk\/\d+\.\d+\.\d+ gl-node\/v\d+/);
  }
  return proxy.exchanges.map((x) => ({ ...x, json: JSON.parse(x.body) as Json }));
}

function declaredTools(body: Json): string[] {
  return ((body.tools ?? []) as Json[]).flatMap((t) => ((t.functionDeclarations ?? []) as Json[]).map((d) => d.name as string));
}

/** The text of an upstream request's last message, whatever its format. */
function upstreamMessages(body: Json): Json[] {
  return body.messages as Json[];
}

beforeAll(async () => {
  sim = await startSim({ label: LABEL });
  gw = await startGateway();
  const aliases: Record<string, string> = {};
  for (const u of UPSTREAMS) {
    for (const p of [u.a, u.b]) await addProvider(gw, p, sim, u.format, [keyOf(p)], { models: [u.model] });
    const combo = await gw.api("POST", "/api/combos", { name: u.combo, targets: [{ model: `${u.a}/${u.model}` }, { model: `${u.b}/${u.model}` }] });
    expect(combo.status, combo.text).toBe(201);
    aliases[u.alias] = `${u.a}/${u.model}`;
  }
  const settings = await gw.api("PATCH", "/api/settings", { aliases });
  expect(settings.status, settings.text).toBe(200);
  proxy = await startRecordingProxy(gw.url);
});

afterEach(async () => {
  proxy.exchanges.length = 0;
  sim.requests.length = 0;
  sim.clearFaults();
  // A target failed on purpose cools for a few seconds (D4); the next test must not meet its cooldown.
  expect((await gw.api("POST", "/api/resilience/cooldowns", { all: true })).status).toBe(200);
});

afterAll(async () => {
  await proxy?.close();
  await gw?.close();
  await sim?.close();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

describe.each(UPSTREAMS)("Gemini CLI through Switchyard to an $format-format upstream", (u) => {
  it(
    `R17.3 a prompt through a combo whose first target fails (${u.format === "openai" ? "429" : "503"}) prints the second target's answer: one client request, two attempts`,
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      sim.addFault(keyOf(u.a), u.format === "openai" ? { status: 429, retryAfter: 1, times: 1 } : { status: 503, times: 1 });
      const run = await runGemini(u.combo, "Say hello through the combo");
      expectSuccess(run);
      expect(run.stdout.trim()).toBe(`Hello from ${LABEL} (key ${keyOf(u.b)})`);

      const posts = generationPosts(u.combo);
      expect(posts).toHaveLength(1);
      expect(posts[0].status).toBe(200);
      expect(String(posts[0].responseHeaders["content-type"])).toMatch(/^text\/event-stream/);
      expect(posts[0].responseHeaders["x-switchyard-attempts"]).toBe("2");
      // The model is in the path, not the body.
      expect(posts[0].json).not.toHaveProperty("model");
      expect(declaredTools(posts[0].json)).toEqual(DEFAULT_TOOLS);
      const last = (posts[0].json.contents as Json[]).at(-1)!;
      expect(last.role).toBe("user");
      expect(last.parts.at(-1)).toEqual({ text: "Say hello through the combo" });

      const upstream = sim.requests.filter((r) => r.path === u.route);
      expect(upstream.map((r) => r.key)).toEqual([keyOf(u.a), keyOf(u.b)]);
      for (const r of upstream) expect(r.body).toMatchObject({ model: u.model, stream: true });
      const sent = upstream[1].body as Json;
      const tools = (sent.tools as Json[]).map((t) => (u.format === "openai" ? t.function.name : t.name));
      expect(tools).toEqual(DEFAULT_TOOLS);
      // The CLI's systemInstruction went up as the upstream's system prompt.
      if (u.format === "openai") expect(upstreamMessages(sent)[0].role).toBe("system");
      else expect(JSON.stringify(sent.system)).toContain("Gemini CLI");
    },
  );

  it(
    `R17.1 a tool round trip: the CLI's read_file runs on the upstream's call, its result reaches the ${u.format} upstream, and the answer is printed (model by alias)`,
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const cwd = tempDir("switchyard-gemini-cwd-");
      writeFileSync(path.join(cwd, "sim"), "a file for the simulated model to read\n");
      const run = await runGemini(u.alias, "Please use tool read_file on the file", { cwd, settings: { tools: { core: ["read_file"] } } });
      expectSuccess(run);
      expect(run.stdout.trim()).toBe("Tool result received: a file for the simulated model to read");

      const posts = generationPosts(u.alias);
      expect(posts).toHaveLength(2);
      for (const p of posts) {
        expect(p.status).toBe(200);
        expect(declaredTools(p.json)).toEqual(["read_file"]);
      }
      // The first answer carried the call as a Gemini functionCall …
      expect(posts[0].response).toContain('"functionCall"');
      // … and the CLI sent it back with its functionResponse.
      const parts: Json[] = (posts[1].json.contents as Json[]).flatMap((c) => c.parts as Json[]);
      const call = parts.find((p) => p.functionCall)!.functionCall;
      const response = parts.find((p) => p.functionResponse)!.functionResponse;
      expect(call).toMatchObject({ name: "read_file", args: { file_path: "sim" } });
      expect(response).toMatchObject({ name: "read_file", response: { output: "a file for the simulated model to read\n" } });
      if (call.id !== undefined) expect(response.id).toBe(call.id);

      const upstream = sim.requests.filter((r) => r.path === u.route).map((r) => r.body as Json);
      expect(upstream).toHaveLength(2);
      expect(upstream.every((b) => b.model === u.model)).toBe(true);
      const messages = upstreamMessages(upstream[1]);
      if (u.format === "openai") {
        const assistant = messages.find((m) => m.role === "assistant")!;
        const tool = messages.find((m) => m.role === "tool")!;
        expect(assistant.tool_calls[0]).toMatchObject({ function: { name: "read_file", arguments: JSON.stringify({ file_path: "sim" }) } });
        expect(tool.tool_call_id).toBe(assistant.tool_calls[0].id);
        expect(tool.content).toContain("a file for the simulated model to read");
      } else {
        const blocks = messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as Json[]) : []));
        const toolUse = blocks.find((b) => b.type === "tool_use")!;
        const toolResult = blocks.find((b) => b.type === "tool_result")!;
        expect(toolUse).toMatchObject({ name: "read_file", input: { file_path: "sim" } });
        expect(toolResult.tool_use_id).toBe(toolUse.id);
        expect(JSON.stringify(toolResult.content)).toContain("a file for the simulated model to read");
      }
    },
  );
});

describe("Gemini CLI and Switchyard: names, detection, back-off", () => {
  it("R17.1 a provider/model name goes into the path with its slash literal and is served", { timeout: TEST_TIMEOUT_MS }, async () => {
    const model = "gc-an-b/claude-sim";
    const run = await runGemini(model, "Say hello by provider and model");
    expectSuccess(run);
    expect(run.stdout.trim()).toBe(`Hello from ${LABEL} (key ${keyOf("gc-an-b")})`);
    const posts = generationPosts(model);
    expect(posts).toHaveLength(1);
    expect(posts[0].responseHeaders["x-switchyard-attempts"]).toBe("1");
  });

  it("R17.1 the request log names the client gemini-cli (client detection on the CLI's real headers)", { timeout: TEST_TIMEOUT_MS }, async () => {
    const run = await runGemini(UPSTREAMS[0].alias, "Say hello for the log");
    expectSuccess(run);
    const posts = generationPosts(UPSTREAMS[0].alias);
    expect(posts).toHaveLength(1);
    const logs = await gw.api("GET", "/api/logs?limit=5");
    expect(logs.status).toBe(200);
    expect(logs.body[0]).toMatchObject({ clientFormat: "gemini", model: UPSTREAMS[0].alias, status: 200, clientKind: "gemini-cli" });
  });

  it(
    "R17.3 when the only target answers 429 the CLI gets Google's error with RetryInfo, waits that long and tries again, then prints the answer",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      // One target (no combo, so no combo cooldown wait inside Switchyard): the 429 is final for
      // the first request and reaches the client.
      const model = "gc-oa-b/gpt-sim";
      // The CLI waits max(its own 5 s first back-off, RetryInfo) plus up to 20 % jitter: a delay
      // above 5 s shows that the RetryInfo, not its default, set the wait.
      sim.addFault(keyOf("gc-oa-b"), { status: 429, retryAfter: 7, times: 1 });
      const run = await runGemini(model, "Say hello after the rate limit");
      expectSuccess(run);
      expect(run.stdout.trim()).toBe(`Hello from ${LABEL} (key ${keyOf("gc-oa-b")})`);

      const posts = generationPosts(model);
      expect(posts.map((p) => p.status)).toEqual([429, 200]);
      const error = JSON.parse(posts[0].response) as Json;
      expect(error.error).toMatchObject({ code: 429, status: "RESOURCE_EXHAUSTED" });
      const retry = (error.error.details as Json[]).find((d) => d["@type"] === "type.googleapis.com/google.rpc.RetryInfo");
      expect(retry).toBeDefined();
      expect(retry!.retryDelay).toBe("7s");
      const delay = 7;
      expect((error.error.details as Json[]).find((d) => d["@type"] === "type.googleapis.com/google.rpc.ErrorInfo")?.reason).toEqual(expect.any(String));
      // The CLI followed the RetryInfo: its second request came no sooner than the delay.
      expect(posts[1].at - posts[0].at).toBeGreaterThanOrEqual(delay * 1000 - 100);
      expect(posts[1].responseHeaders["x-switchyard-attempts"]).toBe("1");
    },
  );
});
