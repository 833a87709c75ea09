// Claude Code itself (the pinned npm build, offline, -p) through a context overflow that ends in its
// own compaction (R25.2): its model's upstream (OpenAI format) holds a window its growing conversation
// outgrows, the refusal ("This model's maximum context length is …") reaches Claude Code as
// Anthropic's own "prompt is too long: N tokens > M maximum", and Claude Code compacts — its
// compaction request reaches Switchyard, classed `compaction`. The run takes about 5 s.
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { clientBin } from "../../clients/locate.js";
import { makeTempDir, runClientProcess, type ClientRun } from "../../fixtures/clients/clientProcess.js";
import { startRecordingProxy, type RecordingProxy } from "../../fixtures/clients/recordingProxy.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../harness.js";

const CLAUDE = clientBin("claude");
const RUN_TIMEOUT_MS = 90_000;
const CLAUDE_NAME = "claude-sonnet-4-5";
/**
 * The upstream model's window (measured: Claude Code's first turn below is about 17 400 tokens,
 * its second about 27 600, and its compaction summary request about 19 000).
 */
const WINDOW = 20_000;

let gw: TestGateway;
let sim: Simulator;
let proxy: RecordingProxy;
const scratch: string[] = [];
const tempDir = (prefix: string) => makeTempDir(prefix, scratch);

function runClaude(args: string[], home: string, cwd: string): Promise<ClientRun> {
  return runClientProcess(CLAUDE, [...args, "--model", CLAUDE_NAME], {
    cwd,
    timeoutMs: RUN_TIMEOUT_MS,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      ANTHROPIC_BASE_URL: proxy.url,
      ANTHROPIC_API_KEY: "x",
      ANTHROPIC_SMALL_FAST_MODEL: CLAUDE_NAME,
      ANTHROPIC_DEFAULT_HAIKU_MODEL: CLAUDE_NAME,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
    },
  });
}

beforeAll(async () => {
  sim = await startSim({ label: "cc-ctx", contextWindows: { "small-sim": WINDOW } });
  gw = await startGateway();
  // An OpenAI-format upstream: its refusal says "maximum context length", which Claude Code does not read as a prompt too long.
  await addProvider(gw, "cc-small", sim, "openai", ["cc-small-key"], { models: ["small-sim"] });
  await gw.api("PATCH", "/api/settings", { aliases: { [CLAUDE_NAME]: "cc-small/small-sim" } });
  proxy = await startRecordingProxy(gw.url);
});

afterAll(async () => {
  await proxy?.close();
  await gw?.close();
  await sim?.close();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

describe("Claude Code compacts on Switchyard's context error", () => {
  it(
    "R25.2 a turn that outgrows the window gets Anthropic's 'prompt is too long', and Claude Code's compaction request reaches Switchyard",
    { timeout: 3 * RUN_TIMEOUT_MS },
    async () => {
      const home = tempDir("switchyard-ccx-home-");
      const cwd = tempDir("switchyard-ccx-cwd-");
      // About 10 000 tokens of text per turn: the first turn fits the window, the second does not.
      const text = "lorem ipsum dolor sit amet ".repeat(1500);
      const first = await runClaude(["-p", `Remember this text: ${text} Say ok.`, "--output-format", "json", "--max-turns", "1", "--tools", ""], home, cwd);
      expect(first.code, first.stderr).toBe(0);
      const second = await runClaude(["-p", "--continue", `And this too: ${text} Say ok.`, "--output-format", "json", "--max-turns", "1", "--tools", ""], home, cwd);
      expect(second.timedOut, second.stderr).toBe(false);
      expect(second.code, `stdout: ${second.stdout}\nstderr: ${second.stderr}`).toBe(0);
      expect(JSON.parse(second.stdout)).toMatchObject({ type: "result", subtype: "success", is_error: false });

      // What Claude Code was told: Anthropic's own context error, which it reads as a prompt too long.
      const refused = proxy.exchanges.find((x) => x.status === 400);
      expect(refused?.url).toBe("/v1/messages?beta=true");
      const error = JSON.parse(refused!.response) as { type: string; error: { type: string; message: string } };
      expect(error).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
      expect(error.error.message).toMatch(new RegExp(`^prompt is too long: \\d+ tokens > ${WINDOW} maximum$`));

      // The log, oldest first: the first turn, the refused second turn, Claude Code's compaction, the second turn again.
      const rows = [...(await gw.api("GET", "/api/logs?limit=20")).body].reverse() as Array<Record<string, any>>;
      const refusedAt = rows.findIndex((r) => r.status === 400);
      expect(rows[refusedAt]).toMatchObject({ trafficClass: "main", attempts: [expect.objectContaining({ verdict: "context_overflow" })] });
      const after = rows.slice(refusedAt + 1);
      const compaction = after.findIndex((r) => r.trafficClass === "compaction");
      expect(compaction).toBeGreaterThanOrEqual(0);
      expect(after[compaction].status).toBe(200);
      expect(after.slice(compaction).some((r) => r.trafficClass === "main" && r.status === 200)).toBe(true);
      // The refusal cooled nothing.
      expect((await gw.api("GET", "/api/resilience/cooldowns?provider=cc-small")).body.items).toEqual([]);
    },
  );
});
