// Codex CLI itself (the pinned npm build, 0.171.0, run offline with `codex exec`) talking to
// Switchyard's Responses API (issue 22; R16.3, R16.5, R16.6).
//
// Measured with Codex 0.171.0 against a recording server and against Switchyard (see the
// assertions): a custom provider with `wire_api = "responses"` POSTs `/v1/responses` with
// `stream: true`, `store: false`, `include: ["reasoning.encrypted_content"]`, a
// `prompt_cache_key` equal to its `session-id` header, and its base instructions as the first
// `developer` input message (no `instructions` field). It never tries the WebSocket transport
// unless `supports_websockets = true`, and never calls `/v1/models` unless the provider has
// `model_catalog_url`. It shows only what `response.output_item.done` carries and needs
// `response.completed`; without it, it retries the whole request five times. Its own
// compaction for non-OpenAI providers is a plain `POST /v1/responses` with `tools: []`, the
// header field `request_kind: "compaction"` and a "CONTEXT CHECKPOINT COMPACTION" prompt; Codex
// 0.171 never calls `/v1/responses/compact`. The custom tool `apply_patch` (a lark grammar) is
// offered only when the model's metadata says `apply_patch_tool_type: "freeform"`, so the edit
// test gives Codex a model catalog (`model_catalog_json`).
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../harness.js";
import {
  CODEX_KEY,
  CODEX_VERSION,
  codexCatalog,
  codexConfigToml,
  describeRun,
  inputTexts,
  makeTempDir,
  responsesPosts,
  runCodex,
  singleStringField,
  startCodexProxy,
  startScriptedAnthropic,
  turnMetadata,
  writeCodexHome,
  type CodexProxy,
  type CodexRun,
  type Json,
  type ScriptedAnthropic,
} from "./codexHarness.js";

const RUN_TIMEOUT_MS = 90_000;
const TEST_TIMEOUT_MS = RUN_TIMEOUT_MS + 30_000;
const LABEL = "codex-upstream";
const COMBO = "codex-combo";
/** Served through an OpenAI chat-completions upstream (the simulator). */
const CHAT_MODEL = "cx-chat/gpt-sim";
const CHAT_CONTEXT_WINDOW = 32_000;
/** Served through the scripted Anthropic-format upstream. */
const ANTHROPIC_MODEL = "cx-anthropic/claude-sim";
/** A model Codex 0.171 ships metadata for (`prefer_websockets: true`), aliased in Switchyard. */
const BUNDLED_MODEL = "gpt-5.5";
const PATCH = "*** Begin Patch\n*** Update File: hello.txt\n@@\n-hello world\n+hello switchyard\n*** End Patch\n";
const TOOL_USE_ID = "toolu_codex_patch_1";
const FINAL_TEXT = "Patched hello.txt through Switchyard.";

let gw: TestGateway;
let sim: Simulator;
let anthropic: ScriptedAnthropic;
let proxy: CodexProxy;
const scratch: string[] = [];
/** Setup steps that failed, by name: a test that needs one fails with the gateway's answer. */
const setupErrors: Record<string, string> = {};

async function step(name: string, fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    setupErrors[name] = err instanceof Error ? err.message : String(err);
  }
}

function needs(...names: string[]): void {
  const missing = names.filter((n) => setupErrors[n]).map((n) => `${n}: ${setupErrors[n]}`);
  expect(missing, "gateway setup failed").toEqual([]);
}

async function created(res: Promise<{ status: number; text: string }>, what: string): Promise<void> {
  const r = await res;
  if (r.status !== 201) throw new Error(`${what} → ${r.status} ${r.text}`);
}

async function addResponsesProvider(id: string, key: string): Promise<void> {
  await created(gw.api("POST", "/api/providers", { id, format: "openai-responses", baseUrl: `${sim.url}/v1`, category: "apikey", models: ["gpt-sim"] }), `provider ${id}`);
  await created(gw.api("POST", "/api/connections", { id: `${id}-c1`, provider: id, name: `${id} key`, apiKey: key, priority: 0 }), `connection ${id}`);
}

/** A fresh CODEX_HOME with the Connect page's config (through the recording proxy) and extras. */
function codexHome(model: string, extra: { providerLines?: string[]; topLines?: (home: string) => string[]; files?: Record<string, string> } = {}): string {
  const home = makeTempDir("switchyard-codex-home-", scratch);
  const toml = codexConfigToml({ baseUrl: `${proxy.url}/v1`, model, providerLines: extra.providerLines, topLines: extra.topLines?.(home) });
  writeCodexHome(home, toml, extra.files);
  return home;
}

function catalogFile(home: string): string {
  return path.join(home, "catalog.json");
}

function expectSuccess(run: CodexRun): void {
  expect(run.timedOut, describeRun(run)).toBe(false);
  expect(run.code, describeRun(run)).toBe(0);
}

/** Every request Codex made got a 2xx (or a 101 answer to a WebSocket upgrade, R26.1). */
function expectCleanTraffic(): void {
  for (const x of proxy.exchanges) {
    if (x.upgrade) expect(x.status, `${x.method} ${x.url} (upgrade)`).toBe(101);
    else expect(x.status, `${x.method} ${x.url}: ${x.response.slice(0, 500)}`).toBeLessThan(400);
  }
}

/** The headers and body fields every Codex turn request carries (measured on 0.171.0). */
function expectCodexShape(post: { headers: Json; json: Json }, model: string): void {
  expect(post.headers.authorization).toBe(`Bearer ${CODEX_KEY}`);
  expect(post.headers.originator).toBe("codex_exec");
  expect(String(post.headers["user-agent"])).toMatch(new RegExp(`^codex_exec/${CODEX_VERSION.replace(/\./g, "\\.")} `));
  expect(post.headers.accept).toBe("text/event-stream");
  expect(post.headers["session-id"]).toEqual(expect.any(String));
  expect(post.json).toMatchObject({ model, stream: true, store: false, include: ["reasoning.encrypted_content"], prompt_cache_key: post.headers["session-id"] });
  expect(post.json).not.toHaveProperty("instructions");
  expect(post.json.input[0]).toMatchObject({ type: "message", role: "developer" });
}

beforeAll(async () => {
  sim = await startSim({ label: LABEL });
  anthropic = await startScriptedAnthropic({ toolNameIncludes: "apply_patch", toolInput: PATCH, toolUseId: TOOL_USE_ID, finalText: FINAL_TEXT });
  gw = await startGateway();
  await step("combo", async () => {
    await addResponsesProvider("cx-a", "cx-a-key");
    await addResponsesProvider("cx-b", "cx-b-key");
    await created(gw.api("POST", "/api/combos", { name: COMBO, targets: [{ model: "cx-a/gpt-sim" }, { model: "cx-b/gpt-sim" }] }), `combo ${COMBO}`);
  });
  await step("chat", () => addProvider(gw, "cx-chat", sim, "openai", ["cx-chat-key"], { models: ["gpt-sim"], modelInfo: { "gpt-sim": { contextWindow: CHAT_CONTEXT_WINDOW } } }));
  await step("anthropic", async () => {
    await created(
      gw.api("POST", "/api/providers", { id: "cx-anthropic", format: "anthropic", baseUrl: anthropic.url, category: "apikey", models: ["claude-sim"] }),
      "provider cx-anthropic",
    );
    await created(
      gw.api("POST", "/api/connections", { id: "cx-anthropic-c1", provider: "cx-anthropic", name: "scripted", apiKey: "cx-anthropic-key", priority: 0 }),
      "connection cx-anthropic",
    );
  });
  await step("alias", async () => {
    const r = await gw.api("PATCH", "/api/settings", { aliases: { [BUNDLED_MODEL]: CHAT_MODEL } });
    if (r.status !== 200) throw new Error(`aliases → ${r.status} ${r.text}`);
  });
  proxy = await startCodexProxy(gw.url);
});

afterEach(() => {
  proxy.exchanges.length = 0;
  sim.requests.length = 0;
  sim.clearFaults();
  anthropic.requests.length = 0;
});

afterAll(async () => {
  await proxy?.close();
  await gw?.close();
  await sim?.close();
  await anthropic?.close();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

describe("Codex CLI through Switchyard's Responses API", () => {
  it(
    "R16.3 Codex: a prompt through a combo whose first connection answers 429 is one client request, two upstream attempts, and the answer is printed",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      needs("combo");
      sim.addFault("cx-a-key", { status: 429, retryAfter: 1, times: 1 });
      const run = await runCodex(["Say hello through the combo"], { home: codexHome(COMBO), cwd: makeTempDir("switchyard-codex-cwd-", scratch), timeoutMs: RUN_TIMEOUT_MS });
      expectSuccess(run);
      expect(run.stdout.trim()).toBe(`Hello from ${LABEL} (key cx-b-key)`);
      // Failover before content is invisible: Codex saw no error and did not retry.
      expect(run.stderr).not.toMatch(/Reconnecting|ERROR/);

      expectCleanTraffic();
      expect(proxy.exchanges.filter((x) => x.upgrade)).toEqual([]);
      const posts = responsesPosts(proxy.exchanges);
      expect(posts).toHaveLength(1);
      expect(posts[0].status).toBe(200);
      expect(String(posts[0].headers["content-type"])).toBe("application/json");
      expectCodexShape(posts[0], COMBO);

      const upstream = sim.requests.filter((r) => r.format === "openai-responses");
      expect(upstream.map((r) => r.key)).toEqual(["cx-a-key", "cx-b-key"]);
      for (const r of upstream) expect(r.body).toMatchObject({ model: "gpt-sim", stream: true });
      // Pass-through: only the model is replaced.
      const sent = upstream[1].body as Json;
      expect(sent.input).toEqual(posts[0].json.input);
      expect(sent.tools).toEqual(posts[0].json.tools);
    },
  );

  it(
    "R16.6 Codex edits a file in a git repository through an Anthropic-format upstream: apply_patch crosses as a one-string tool and comes back as custom_tool_call",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      needs("anthropic");
      const repo = makeTempDir("switchyard-codex-repo-", scratch);
      const git = (...args: string[]) =>
        execFileSync("git", ["-c", "user.name=Switchyard Test", "-c", "user.email=test@switchyard.invalid", ...args], { cwd: repo, stdio: "pipe" });
      git("init", "-q");
      writeFileSync(path.join(repo, "hello.txt"), "hello world\n");
      git("add", "hello.txt");
      git("commit", "-qm", "start");
      // The catalog tells Codex the model takes the freeform apply_patch (else it offers none).
      const home = codexHome(ANTHROPIC_MODEL, {
        topLines: (h) => [`model_catalog_json = ${JSON.stringify(catalogFile(h))}`],
        files: { "catalog.json": JSON.stringify(codexCatalog(ANTHROPIC_MODEL)) },
      });
      const run = await runCodex(["-s", "workspace-write", "Change hello world to hello switchyard in hello.txt"], { home, cwd: repo, timeoutMs: RUN_TIMEOUT_MS });
      expectSuccess(run);
      expect(readFileSync(path.join(repo, "hello.txt"), "utf8")).toBe("hello switchyard\n");
      expect(run.stdout.trim()).toBe(FINAL_TEXT);
      expect(run.stderr).not.toContain("Model metadata for");

      expectCleanTraffic();
      const posts = responsesPosts(proxy.exchanges);
      expect(posts).toHaveLength(2);
      expectCodexShape(posts[0], ANTHROPIC_MODEL);
      const offered = (posts[0].json.tools as Json[]).find((t) => t.name === "apply_patch");
      expect(offered).toMatchObject({ type: "custom", format: { type: "grammar", syntax: "lark" } });
      // Codex got a custom_tool_call with the patch text, applied it, and sent the result back.
      const back = posts[1].json.input as Json[];
      const call = back.find((i) => i.type === "custom_tool_call");
      const output = back.find((i) => i.type === "custom_tool_call_output");
      expect(call).toMatchObject({ name: "apply_patch", input: PATCH });
      expect(output).toMatchObject({ call_id: call!.call_id });
      expect(String(output!.output)).toContain("Success. Updated the following files");

      // Upstream side: a function tool with one string field, a tool_use answered by a tool_result.
      const upstream = anthropic.requests.filter((r) => r.path.split("?")[0] === "/v1/messages");
      expect(upstream).toHaveLength(2);
      const bridged = (upstream[0].body.tools as Json[]).find((t) => t.name === "apply_patch");
      expect(bridged, JSON.stringify(upstream[0].body.tools?.map((t: Json) => t.name))).toBeDefined();
      const field = singleStringField(bridged!);
      expect(field, JSON.stringify(bridged)).toBeDefined();
      const blocks = (upstream[1].body.messages as Json[]).flatMap((m) => (Array.isArray(m.content) ? m.content : []));
      expect(blocks.find((b: Json) => b.type === "tool_use")).toMatchObject({ id: TOOL_USE_ID, name: "apply_patch", input: { [field!]: PATCH } });
      const result = blocks.find((b: Json) => b.type === "tool_result");
      expect(result).toMatchObject({ tool_use_id: TOOL_USE_ID });
      expect(JSON.stringify(result.content)).toContain("Success. Updated the following files");
    },
  );

  it("R16.5 Codex compacts a long session through Switchyard and the session goes on", { timeout: TEST_TIMEOUT_MS }, async () => {
    needs("chat");
    // A low auto-compact limit: the simulator reports ~prompt/4 input tokens (Codex's first
    // request is ~40 KB), so after the first answer (a tool call) Codex compacts before it
    // sends the tool result on.
    const home = codexHome(CHAT_MODEL, { topLines: () => ["model_auto_compact_token_limit = 2000"] });
    const run = await runCodex(["Please use tool exec_command to look around"], { home, cwd: makeTempDir("switchyard-codex-cwd-", scratch), timeoutMs: RUN_TIMEOUT_MS });
    expectSuccess(run);
    expect(run.stderr).toContain("context compacted");
    expect(run.stdout.trim()).toMatch(new RegExp(`^Hello from ${LABEL}`));

    expectCleanTraffic();
    const posts = responsesPosts(proxy.exchanges);
    const kinds = posts.map((p) => turnMetadata(p).request_kind);
    expect(kinds).toEqual(["turn", "compaction", "turn"]);
    const [first, compaction, after] = posts as [(typeof posts)[0], (typeof posts)[0], (typeof posts)[0]];
    expectCodexShape(first, CHAT_MODEL);
    expect(compaction.json.tools).toEqual([]);
    expect(inputTexts(compaction.json.input, "user").at(-1)).toContain("CONTEXT CHECKPOINT COMPACTION");
    expect(compaction.json.input.some((i: Json) => i.type === "function_call_output")).toBe(true);
    // The summary Switchyard returned is what the next turn starts from.
    const summary = inputTexts(after.json.input, "user").find((t) => t.startsWith("Another language model started to solve this problem"));
    expect(summary).toContain(`Hello from ${LABEL}`);
    expect(after.json.input.some((i: Json) => i.type === "function_call_output")).toBe(false);

    // The compaction request reached the upstream as an ordinary chat call.
    const upstream = sim.requests.filter((r) => r.path === "/v1/chat/completions");
    expect(upstream).toHaveLength(3);
    const compactionUp = upstream[1].body as Json;
    expect(JSON.stringify(compactionUp.messages.at(-1))).toContain("CONTEXT CHECKPOINT COMPACTION");
  });

  it("R26.1 Codex with supports_websockets opens GET /v1/responses as a WebSocket (101) and runs the turn over it (no POST)", { timeout: TEST_TIMEOUT_MS }, async () => {
    needs("chat");
    const home = codexHome(CHAT_MODEL, {
      providerLines: ["supports_websockets = true"],
      topLines: (h) => [`model_catalog_json = ${JSON.stringify(catalogFile(h))}`],
      files: { "catalog.json": JSON.stringify(codexCatalog(CHAT_MODEL, { prefer_websockets: true })) },
    });
    const run = await runCodex(["Say hello over whichever transport works"], { home, cwd: makeTempDir("switchyard-codex-cwd-", scratch), timeoutMs: RUN_TIMEOUT_MS });
    expectSuccess(run);
    expect(run.stdout.trim()).toBe(`Hello from ${LABEL} (key cx-chat-key)`);
    expect(run.stderr).not.toMatch(/Reconnecting|Falling back from WebSockets/);

    expectCleanTraffic();
    const upgrades = proxy.exchanges.filter((x) => x.upgrade);
    expect(upgrades).toHaveLength(1);
    expect(upgrades[0].url).toBe("/v1/responses");
    expect(String(upgrades[0].headers.upgrade).toLowerCase()).toBe("websocket");
    // R26.1 (replacing R16.3's 426): accepted, and the whole turn goes over the socket.
    expect(upgrades[0].status).toBe(101);
    expect(responsesPosts(proxy.exchanges)).toEqual([]);
    expect(sim.requests.filter((r) => r.path === "/v1/chat/completions")).toHaveLength(1);
  });

  it("R26.1 Codex's built-in OpenAI provider pointed at Switchyard (openai_base_url) runs over the WebSocket", { timeout: TEST_TIMEOUT_MS }, async () => {
    needs("chat", "alias");
    // What a user gets who only sets `openai_base_url`: the built-in provider has
    // `supports_websockets: true` and gpt-5.5's bundled metadata prefers websockets.
    const home = makeTempDir("switchyard-codex-home-", scratch);
    writeCodexHome(home, [`model = ${JSON.stringify(BUNDLED_MODEL)}`, `openai_base_url = ${JSON.stringify(`${proxy.url}/v1`)}`, ""].join("\n"));
    const run = await runCodex(["Say hello to the built-in provider"], {
      home,
      cwd: makeTempDir("switchyard-codex-cwd-", scratch),
      timeoutMs: RUN_TIMEOUT_MS,
      env: { OPENAI_API_KEY: CODEX_KEY },
    });
    expectSuccess(run);
    expect(run.stdout.trim()).toBe(`Hello from ${LABEL} (key cx-chat-key)`);
    expect(run.stderr).not.toMatch(/Reconnecting|Falling back from WebSockets/);
    expectCleanTraffic();
    const upgrades = proxy.exchanges.filter((x) => x.upgrade);
    expect(upgrades).toHaveLength(1);
    expect(upgrades[0].headers["openai-beta"]).toBe("responses_websockets=2026-02-06");
    expect(upgrades[0].status).toBe(101);
    expect(responsesPosts(proxy.exchanges)).toEqual([]);
    expect(sim.requests.filter((r) => r.path === "/v1/chat/completions").map((r) => r.model)).toEqual(["gpt-sim"]);
  });

  it("R16.3 Codex with a 3 s stream idle timeout survives a 7 s wait for the upstream's first byte (one request, no reconnect)", { timeout: TEST_TIMEOUT_MS }, async () => {
    needs("chat");
    // Measured on 0.171: Codex's idle timer runs from the response head and is reset only by
    // SSE events with data (`response.created`, `response.in_progress`, …); `: keep-alive`
    // comments and bare newlines do not reset it. Before the head it does not run at all.
    // Its default is 300 s; a 3 s setting stands in for any wait (admission, combo cooldown)
    // longer than the client's idle timeout.
    sim.addFault("cx-chat-key", { latencyMs: 7_000, times: 1 });
    const home = codexHome(CHAT_MODEL, { providerLines: ["stream_idle_timeout_ms = 3000"] });
    const run = await runCodex(["Say hello after a slow start"], { home, cwd: makeTempDir("switchyard-codex-cwd-", scratch), timeoutMs: RUN_TIMEOUT_MS });
    expectSuccess(run);
    expect(run.stdout.trim()).toBe(`Hello from ${LABEL} (key cx-chat-key)`);
    expect(run.stderr).not.toMatch(/Reconnecting|idle timeout/);
    expectCleanTraffic();
    expect(responsesPosts(proxy.exchanges)).toHaveLength(1);
    expect(sim.requests.filter((r) => r.path === "/v1/chat/completions")).toHaveLength(1);
  });

  it(
    "R16.5 Codex reads the model's context window from Switchyard's /v1/models in its own shape, so it no longer says \"Model metadata … not found\"",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      needs("chat");
      const home = codexHome(CHAT_MODEL, { providerLines: [`model_catalog_url = ${JSON.stringify(`${proxy.url}/v1/models`)}`] });
      const run = await runCodex(["Say hello with metadata"], { home, cwd: makeTempDir("switchyard-codex-cwd-", scratch), timeoutMs: RUN_TIMEOUT_MS });
      expectSuccess(run);
      expect(run.stdout.trim()).toBe(`Hello from ${LABEL} (key cx-chat-key)`);
      const models = proxy.exchanges.filter((x) => x.method === "GET" && x.url.startsWith("/v1/models"));
      const answered = models.map((x) => `${x.status} ${x.response}`).join("\n");
      expect(run.stderr, `Switchyard answered /v1/models with:\n${answered}`).not.toContain("failed to decode models response");
      expect(run.stderr, `Switchyard answered /v1/models with:\n${answered}`).not.toContain("Model metadata for");

      expectCleanTraffic();
      expect(models.length).toBeGreaterThanOrEqual(1);
      expect(models[0].url).toBe(`/v1/models?client_version=${CODEX_VERSION}`);
      expect(models[0].headers.authorization).toBe(`Bearer ${CODEX_KEY}`);
      expect(models[0].status).toBe(200);
      const catalog = JSON.parse(models[0].response) as Json;
      const entry = (catalog.models as Json[]).find((m) => m.slug === CHAT_MODEL);
      expect(entry, models[0].response.slice(0, 500)).toMatchObject({ context_window: CHAT_CONTEXT_WINDOW });
      expect(responsesPosts(proxy.exchanges)).toHaveLength(1);
    },
  );
});
