// R25.5 with the real Claude Code (2.1.332, run offline with -p): with
// CLAUDE_CODE_GATEWAY_HINT_HEADERS=1 it says what each request is for in
// `x-claude-code-request-class`. A prompt that makes the simulated model call the Agent tool spawns a
// subagent; its turn arrives hinted `subagent` and the request log classes it so, the main turns
// `main`. (2.1.332 also marks the subagent's turn with `x-claude-code-agent-id` and
// `cc_is_subagent=true`, which R20.3's rules read, so this run agrees with them; the hint's own
// precedence over body signals is tested in gateway/codingAgent/gatewayHints.test.ts.)
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { clientBin } from "../../clients/locate.js";
import { makeTempDir, runClientProcess, type ClientRun } from "../../fixtures/clients/clientProcess.js";
import { startRecordingProxy, type RecordingProxy } from "../../fixtures/clients/recordingProxy.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../harness.js";

const CLAUDE = clientBin("claude");
const RUN_TIMEOUT_MS = 90_000;
/** A model name Claude Code knows, aliased to an Anthropic-format upstream. */
const CLAUDE_NAME = "claude-sonnet-4-5";

type Json = Record<string, any>;

let gw: TestGateway;
let sim: Simulator;
let proxy: RecordingProxy;
const scratch: string[] = [];

beforeAll(async () => {
  sim = await startSim({ label: "cc-hints" });
  gw = await startGateway();
  await addProvider(gw, "cc-anth", sim, "anthropic", ["cc-hints-key"], { models: ["claude-sim"] });
  expect((await gw.api("PATCH", "/api/settings", { aliases: { [CLAUDE_NAME]: "cc-anth/claude-sim" } })).status).toBe(200);
  proxy = await startRecordingProxy(gw.url);
});

afterAll(async () => {
  await proxy?.close();
  await gw?.close();
  await sim?.close();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

function runClaude(args: string[], hints: boolean): Promise<ClientRun> {
  return runClientProcess(CLAUDE, [...args, "--model", CLAUDE_NAME], {
    cwd: makeTempDir("switchyard-cc-hints-cwd-", scratch),
    timeoutMs: RUN_TIMEOUT_MS,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: makeTempDir("switchyard-cc-hints-home-", scratch),
      ANTHROPIC_BASE_URL: proxy.url,
      ANTHROPIC_API_KEY: "x",
      ANTHROPIC_SMALL_FAST_MODEL: CLAUDE_NAME,
      ANTHROPIC_DEFAULT_HAIKU_MODEL: CLAUDE_NAME,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
      ...(hints ? { CLAUDE_CODE_GATEWAY_HINT_HEADERS: "1" } : {}),
    },
  });
}

describe("R25.5 the real Claude Code's gateway hints", () => {
  it("R25.5 a subagent spawned by the Agent tool is hinted `subagent` and logged so; the main turns are `main`", { timeout: RUN_TIMEOUT_MS + 30_000 }, async () => {
    const run = await runClaude(["-p", "Please use tool Agent to look around", "--output-format", "json", "--tools", "Agent", "--allowedTools", "Agent", "--max-turns", "3"], true);
    expect(run.timedOut, run.stderr).toBe(false);
    expect(run.code, `stdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(0);
    const generate = proxy.exchanges.filter((x) => x.method === "POST" && x.url.startsWith("/v1/messages"));
    const hinted = generate.map((x) => ({ hint: x.headers["x-claude-code-request-class"], id: x.responseHeaders["x-switchyard-request-id"], status: x.status }));
    for (const h of hinted) expect(h.status).toBe(200);
    // Measured (2026-12-06): main, main (after the tool: `x-claude-code-prev-tool-durations: Agent=…`),
    // subagent (`x-claude-code-agent-type: general-purpose`, `x-claude-code-agent-id`, and
    // `cc_is_subagent=true` in the billing block), main.
    const sub = generate.find((x) => x.headers["x-claude-code-request-class"] === "subagent")!;
    expect(sub.headers["x-claude-code-agent-type"]).toBe("general-purpose");
    expect(hinted.map((h) => h.hint)).toContain("subagent");
    expect(hinted.map((h) => h.hint)).toContain("main");
    const rows = (await gw.api<Json[]>("GET", "/api/logs?limit=50")).body;
    for (const h of hinted) {
      const row = rows.find((r) => r.id === h.id);
      expect(row, String(h.id)).toBeDefined();
      const expected = h.hint === "subagent" || h.hint === "workflow" ? "subagent" : h.hint === "auxiliary" ? "background" : h.hint === "compaction" ? "compaction" : "main";
      expect(row!.trafficClass, `${String(h.hint)} → ${String(row!.trafficClass)}`).toBe(expected);
    }
  });
});
