// Claude Code itself (the pinned npm build, run offline with -p) talking to Switchyard, which
// serves it from an OpenAI-format upstream, and once each from a Gemini and a Responses-only one (issues 4, 22; R1.2, R1.3, R1.4, R16.6).
//
// Measured with Claude Code 2.1.332 (see the assertions): with
// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 it sends no HEAD and no count_tokens, only
// `POST /v1/messages?beta=true`, streaming, with `anthropic-beta: claude-code-20250219,…`.
// With its default tools it offers 12, one of them a `DeferredToolPlaceholder` with
// `defer_loading: true`. For a model name it does not recognise (e.g. `provider/model`) it
// moves the environment section into a mid-conversation `role: "system"` turn after the
// prompt; for a Claude model name (here an alias) it does not, so the prompt is the last turn
// (which the simulator reads to decide on a tool call).
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { clientBin } from "../../clients/locate.js";
import { makeTempDir, runClientProcess, type ClientRun } from "../../fixtures/clients/clientProcess.js";
import { startRecordingProxy, type RecordedExchange, type RecordingProxy } from "../../fixtures/clients/recordingProxy.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../harness.js";

const CLAUDE = clientBin("claude");
const RUN_TIMEOUT_MS = 90_000;
const UPSTREAM_LABEL = "claude-code-upstream";
const UPSTREAM_KEY = "cc-key";
const SERVED = "cc-openai/gpt-sim";
/** A model name Claude Code knows, aliased in Switchyard to the OpenAI-format upstream. */
const CLAUDE_NAME = "claude-sonnet-4-5";
/** Another known name, aliased to a Gemini-format upstream. */
const CLAUDE_NAME_ON_GEMINI = "claude-haiku-4-5";
/** A third, aliased to a model only an OpenAI Responses upstream serves (R16.6). */
const CLAUDE_NAME_ON_RESPONSES = "claude-opus-4-6";

type Json = Record<string, any>;

type ClaudeRun = ClientRun;

let gw: TestGateway;
let sim: Simulator;
let proxy: RecordingProxy;
const scratch: string[] = [];

const tempDir = (prefix: string) => makeTempDir(prefix, scratch);

/** Runs `claude` non-interactively against the gateway (through the recording proxy). */
function runClaude(args: string[], model: string, cwd: string): Promise<ClaudeRun> {
  return runClientProcess(CLAUDE, [...args, "--model", model], {
    cwd,
    timeoutMs: RUN_TIMEOUT_MS,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: tempDir("switchyard-cc-home-"),
      ANTHROPIC_BASE_URL: proxy.url,
      ANTHROPIC_API_KEY: "x",
      // Side tasks (titles, summaries) use the small/fast model: keep them on a served name.
      ANTHROPIC_SMALL_FAST_MODEL: model,
      ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
    },
  });
}

/** A prompt that makes the simulated model call Glob, with only Glob offered, in a fresh directory. */
function runGlobRoundTrip(model: string): Promise<ClaudeRun> {
  // The simulator calls the first offered tool with every required string set to "sim";
  // offering only Glob makes that `Glob {pattern: "sim"}`, which finds the file below.
  const cwd = tempDir("switchyard-cc-cwd-");
  writeFileSync(path.join(cwd, "sim"), "a file for the simulated model to find\n");
  return runClaude(["-p", "Please use tool Glob to look around", "--output-format", "json", "--tools", "Glob", "--allowedTools", "Glob", "--max-turns", "3"], model, cwd);
}

function parseResult(run: ClaudeRun): Json {
  expect(run.timedOut, run.stderr).toBe(false);
  expect(run.code, `stdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(0);
  return JSON.parse(run.stdout) as Json;
}

/** Every request Claude Code made reached the gateway's Anthropic route and got a 2xx. */
function expectCleanTraffic(exchanges: RecordedExchange[]): Json[] {
  expect(exchanges.length).toBeGreaterThan(0);
  for (const x of exchanges) expect(x.status, `${x.method} ${x.url}`).toBeLessThan(400);
  const generate = exchanges.filter((x) => x.method === "POST" && x.url.startsWith("/v1/messages"));
  expect(generate.length).toBeGreaterThan(0);
  for (const x of generate) {
    expect(x.url).toBe("/v1/messages?beta=true");
    expect(String(x.headers["anthropic-beta"])).toContain("claude-code-20250219");
    expect(x.headers["x-api-key"]).toBe("x");
  }
  return generate.map((x) => JSON.parse(x.body) as Json);
}

beforeAll(async () => {
  sim = await startSim({ label: UPSTREAM_LABEL });
  gw = await startGateway();
  await addProvider(gw, "cc-openai", sim, "openai", [UPSTREAM_KEY], { models: ["gpt-sim"] });
  await addProvider(gw, "cc-gemini", sim, "gemini", ["cc-gemini-key"], { models: ["gemini-sim"] });
  await addProvider(gw, "cc-responses", sim, "openai-responses", ["cc-responses-key"], { models: ["codex-sim"] });
  const settings = await gw.api("PATCH", "/api/settings", {
    aliases: { [CLAUDE_NAME]: SERVED, [CLAUDE_NAME_ON_GEMINI]: "cc-gemini/gemini-sim", [CLAUDE_NAME_ON_RESPONSES]: "cc-responses/codex-sim" },
  });
  expect(settings.status).toBe(200);
  proxy = await startRecordingProxy(gw.url);
});

afterEach(() => {
  proxy.exchanges.length = 0;
  sim.requests.length = 0;
});

afterAll(async () => {
  await proxy?.close();
  await gw?.close();
  await sim?.close();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

describe("Claude Code through Switchyard to an OpenAI-format upstream", () => {
  it("R1.4 a prompt completes and prints the upstream's answer (model addressed as provider/model)", { timeout: RUN_TIMEOUT_MS + 30_000 }, async () => {
    const run = await runClaude(["-p", "Say hello to the gateway", "--output-format", "json", "--max-turns", "1"], SERVED, tempDir("switchyard-cc-cwd-"));
    const result = parseResult(run);
    expect(result).toMatchObject({ type: "result", subtype: "success", is_error: false, num_turns: 1 });
    expect(result.result).toBe(`Hello from ${UPSTREAM_LABEL} (key ${UPSTREAM_KEY})`);
    expect(result.usage.output_tokens).toBeGreaterThan(0);

    const bodies = expectCleanTraffic(proxy.exchanges);
    const main = bodies[0];
    expect(main.model).toBe(SERVED);
    expect(main.stream).toBe(true);
    expect(main.tools.length).toBeGreaterThan(5);
    expect(main.tools).toContainEqual(expect.objectContaining({ name: "DeferredToolPlaceholder", defer_loading: true }));
    // An unrecognised model name makes Claude Code add a system turn after the prompt; the
    // OpenAI upstream receives it as a system message in the same place.
    expect(main.messages.at(-1).role).toBe("system");
    // The translated call: OpenAI chat completions, upstream model id, the client's tools.
    const upstream = sim.requests.filter((r) => r.path === "/v1/chat/completions");
    expect(upstream).toHaveLength(bodies.length);
    const first = upstream[0].body as Json;
    expect(first.model).toBe("gpt-sim");
    expect(first.stream).toBe(true);
    expect(first.messages[0].role).toBe("system");
    expect(first.messages.map((m: Json) => m.role)).toEqual(["system", "user", "system"]);
    expect(first.tools.map((t: Json) => t.function.name)).toEqual(main.tools.filter((t: Json) => !t.type).map((t: Json) => t.name));
    const logs = await gw.api("GET", "/api/logs?limit=5");
    expect(logs.body[0]).toMatchObject({ clientFormat: "anthropic", provider: "cc-openai", status: 200, model: SERVED });
  });

  it("R1.4 a tool round trip completes: the upstream's tool call runs in Claude Code and its result reaches the upstream", { timeout: RUN_TIMEOUT_MS + 30_000 }, async () => {
    const run = await runGlobRoundTrip(CLAUDE_NAME);
    const result = parseResult(run);
    expect(result).toMatchObject({ type: "result", subtype: "success", is_error: false, num_turns: 2 });
    expect(result.result).toMatch(/^Tool result received: sim/);

    const bodies = expectCleanTraffic(proxy.exchanges);
    expect(bodies).toHaveLength(2);
    for (const body of bodies) {
      expect(body.model).toBe(CLAUDE_NAME);
      expect(body.messages.some((m: Json) => m.role === "system")).toBe(false);
      expect(body.tools.map((t: Json) => t.name)).toEqual(["Glob"]);
    }
    // Claude Code answered the call with the id it was given.
    const back = bodies[1].messages as Json[];
    const toolUse = back.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).find((b: Json) => b.type === "tool_use");
    const toolResult = back.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).find((b: Json) => b.type === "tool_result");
    expect(toolUse).toMatchObject({ id: "call_sim_1", name: "Glob", input: { pattern: "sim" } });
    expect(toolResult.tool_use_id).toBe("call_sim_1");

    const upstream = sim.requests.filter((r) => r.path === "/v1/chat/completions").map((r) => r.body as Json);
    expect(upstream).toHaveLength(2);
    expect(upstream[0].messages.at(-1).role).toBe("user");
    const assistant = upstream[1].messages.find((m: Json) => m.role === "assistant");
    const tool = upstream[1].messages.find((m: Json) => m.role === "tool");
    expect(assistant.tool_calls[0]).toMatchObject({ id: "call_sim_1", function: { name: "Glob", arguments: JSON.stringify({ pattern: "sim" }) } });
    expect(tool.tool_call_id).toBe("call_sim_1");
    expect(tool.content).toMatch(/^sim\b/);
  });

  it("R1.4 the same tool round trip against a Gemini-format upstream pairs the call and its result by name", { timeout: RUN_TIMEOUT_MS + 30_000 }, async () => {
    const run = await runGlobRoundTrip(CLAUDE_NAME_ON_GEMINI);
    const result = parseResult(run);
    expect(result).toMatchObject({ type: "result", subtype: "success", is_error: false, num_turns: 2 });
    expect(result.result).toMatch(/^Tool result received: sim/);

    const bodies = expectCleanTraffic(proxy.exchanges);
    expect(bodies).toHaveLength(2);
    // Gemini mints no tool ids: Claude Code got a synthesised one and answered with it.
    const blocks = (bodies[1].messages as Json[]).flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    const toolUse = blocks.find((b: Json) => b.type === "tool_use");
    expect(toolUse).toMatchObject({ id: expect.stringMatching(/^call_[A-Za-z0-9_-]+$/), name: "Glob", input: { pattern: "sim" } });
    expect(blocks.find((b: Json) => b.type === "tool_result").tool_use_id).toBe(toolUse.id);

    const upstream = sim.requests.filter((r) => r.path === "/v1beta/models/gemini-sim:streamGenerateContent").map((r) => r.body as Json);
    expect(upstream).toHaveLength(2);
    expect(upstream[0].tools[0].functionDeclarations.map((d: Json) => d.name)).toEqual(["Glob"]);
    const parts: Json[] = upstream[1].contents.flatMap((c: Json) => c.parts);
    expect(parts.find((p) => p.functionCall)?.functionCall).toEqual({ name: "Glob", args: { pattern: "sim" } });
    const response = parts.find((p) => p.functionResponse)?.functionResponse;
    expect(response.name).toBe("Glob");
    expect(response.response.output).toMatch(/^sim\b/);
  });

  it(
    "R16.6 the same tool round trip against a Responses-only upstream: the call comes back as tool_use and the result goes up as function_call_output",
    { timeout: RUN_TIMEOUT_MS + 30_000 },
    async () => {
      const run = await runGlobRoundTrip(CLAUDE_NAME_ON_RESPONSES);
      const result = parseResult(run);
      expect(result).toMatchObject({ type: "result", subtype: "success", is_error: false, num_turns: 2 });
      expect(result.result).toMatch(/^Tool result received: sim/);

      const bodies = expectCleanTraffic(proxy.exchanges);
      expect(bodies).toHaveLength(2);
      const blocks = (bodies[1].messages as Json[]).flatMap((m) => (Array.isArray(m.content) ? m.content : []));
      const toolUse = blocks.find((b: Json) => b.type === "tool_use");
      expect(toolUse).toMatchObject({ name: "Glob", input: { pattern: "sim" } });
      expect(blocks.find((b: Json) => b.type === "tool_result").tool_use_id).toBe(toolUse.id);

      // The upstream spoke only the Responses API: /v1/responses, streamed, with the tool as a function.
      const upstream = sim.requests.filter((r) => r.path === "/v1/responses").map((r) => r.body as Json);
      expect(upstream).toHaveLength(2);
      expect(upstream[0].model).toBe("codex-sim");
      expect(upstream[0].stream).toBe(true);
      expect(upstream[0].tools.map((t: Json) => [t.type, t.name])).toEqual([["function", "Glob"]]);
      const items = upstream[1].input as Json[];
      const call = items.find((i) => i.type === "function_call");
      const output = items.find((i) => i.type === "function_call_output")!;
      expect(call).toMatchObject({ call_id: toolUse.id, name: "Glob", arguments: JSON.stringify({ pattern: "sim" }) });
      expect(output.call_id).toBe(toolUse.id);
      expect(String(output.output)).toMatch(/^sim\b/);
    },
  );
});
