// R22.4 with the real client: the Gemini CLI (the pinned npm build, run offline in `-p` mode, set up
// as in gemini-cli.test.ts) against a gateway running the demo (R0.5), whose providers are
// `simulator` providers. The demo's first call meets provider A's rate-limited key and fails over.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { RequestLogEntry } from "../../../shared/types.js";
import { clientBin } from "../../clients/locate.js";
import { makeTempDir, runClientProcess } from "../../fixtures/clients/clientProcess.js";
import { startGateway, type TestGateway } from "../harness.js";

const GEMINI = clientBin("gemini");
const RUN_TIMEOUT_MS = 90_000;
const TEST_TIMEOUT_MS = RUN_TIMEOUT_MS + 30_000;

let gw: TestGateway;
const scratch: string[] = [];

beforeAll(async () => {
  gw = await startGateway();
  const demo = await gw.api("POST", "/api/demo");
  expect(demo.status, demo.text).toBe(200);
});

afterAll(async () => {
  await gw?.close();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

it("R22.4 the Gemini CLI gets the demo's answer through the demo combo, after a failover it never sees", { timeout: TEST_TIMEOUT_MS }, async () => {
  const home = makeTempDir("switchyard-gemini-demo-home-", scratch);
  mkdirSync(path.join(home, ".gemini"));
  // The CLI refuses the base-URL variable alone: its settings must select API-key auth (R17.5).
  writeFileSync(path.join(home, ".gemini", "settings.json"), JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }));
  // Asynchronous: the gateway and the demo's simulators live in this process.
  const run = await runClientProcess(GEMINI, ["-m", "demo", "-p", "Say hello to the demo"], {
    cwd: makeTempDir("switchyard-gemini-demo-cwd-", scratch),
    timeoutMs: RUN_TIMEOUT_MS,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      GOOGLE_GEMINI_BASE_URL: gw.url,
      GEMINI_API_KEY: "demo-client-key",
      GEMINI_CLI_TRUST_WORKSPACE: "true",
    },
  });
  const described = `exit ${run.code}${run.timedOut ? " (timed out)" : ""}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr.slice(-3000)}`;
  expect(run.timedOut, described).toBe(false);
  expect(run.code, described).toBe(0);
  expect(run.stdout.trim(), described).toBe("Hello from simulated provider A (key demo-a-2)");

  const logs = await gw.api("GET", "/api/logs");
  expect(logs.status).toBe(200);
  const rows = (logs.body as RequestLogEntry[]).filter((e) => e.clientFormat === "gemini");
  expect(rows, JSON.stringify(logs.body)).toHaveLength(1);
  expect(rows[0]).toMatchObject({ status: 200, combo: "demo", stream: true, connectionId: "demo-a-2", clientKind: "gemini-cli" });
  expect(rows[0].attempts.map((a) => [a.connectionId, a.status])).toEqual([
    ["demo-a-1", 429],
    ["demo-a-2", 200],
  ]);
});
