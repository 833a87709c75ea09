// D13: 500 streamed requests through the gateway grow its heap by less than 20 MB. The gateway
// runs in a child `node --expose-gc` (heapDriver.mjs, on the built dist/) so gc() is available
// and the measurement is not polluted by the test runner's own heap.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const DRIVER = path.resolve("tests/integration/heap/heapDriver.mjs");
const BUILT_APP = path.resolve("dist/main/app/build.js");
const DRIVER_TIMEOUT_MS = 120_000;

interface HeapReport {
  before: number;
  after: number;
  growthMb: number;
  requests: number;
  failures: number;
  warmupFailures: number;
  sampleFailure: unknown;
}

function runDriver(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--expose-gc", DRIVER, "500", "50", "10"], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), DRIVER_TIMEOUT_MS);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("D13 stream memory", () => {
  it("D13 500 streamed requests (both client formats, passthrough and translated, text and tools) grow the heap by < 20 MB", { timeout: DRIVER_TIMEOUT_MS + 10_000 }, async () => {
    expect(existsSync(BUILT_APP), "dist/ is missing: run `node scripts/build.mjs` first").toBe(true);
    const { code, stdout, stderr } = await runDriver();
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as HeapReport;
    expect(report.requests).toBe(500);
    expect(report.warmupFailures, JSON.stringify(report.sampleFailure)).toBe(0);
    expect(report.failures, JSON.stringify(report.sampleFailure)).toBe(0);
    expect(report.before).toBeGreaterThan(0);
    expect(report.growthMb).toBeLessThan(20);
  });
});
