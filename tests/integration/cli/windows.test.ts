// R25.3: `switchyard connect pi` (and `run pi`, which writes the same provider into its extension)
// gives pi each model's context window as Switchyard lists it (`context_window` in GET /v1/models;
// a combo's: its largest target's), so pi compacts before an upstream refuses; pi's own default
// (128 000) where Switchyard knows none.
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir } from "../../fixtures/clients/clientProcess.js";
import { startGateway, type TestGateway } from "../harness.js";
import { baseEnv, describeRun, runCli } from "./agentHarness.js";

let gw: TestGateway;
const scratch: string[] = [];

beforeAll(async () => {
  gw = await startGateway();
  expect((await gw.api("POST", "/api/demo")).status).toBe(200);
  const patched = await gw.api("PATCH", "/api/providers/sim-a", { modelInfo: { "demo-model": { contextWindow: 32_000 } } });
  expect(patched.status, patched.text).toBe(200);
});

afterAll(async () => {
  await gw?.close();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

describe("R25.3 switchyard passes model windows to the agents that take one", () => {
  it("R25.3 connect pi writes each model's contextWindow from Switchyard's list", { timeout: 60_000 }, async () => {
    const home = makeTempDir("switchyard-windows-pi-", scratch);
    const run = await runCli(["connect", "pi"], { cwd: home, env: baseEnv(home, { SWITCHYARD_URL: gw.url }), timeoutMs: 30_000 });
    expect(run.code, describeRun(run)).toBe(0);
    const models = JSON.parse(readFileSync(path.join(home, ".pi/agent/models.json"), "utf8")).providers.switchyard.models as Array<{ id: string; contextWindow: number }>;
    const windows = Object.fromEntries(models.map((m) => [m.id, m.contextWindow]));
    expect(windows).toEqual({ demo: 32_000, "sim-a/demo-model": 32_000, "sim-b/demo-model": 128_000 });
  });
});
