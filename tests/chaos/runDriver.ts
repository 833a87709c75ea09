// Runs chaosDriver.mjs in a child `node --expose-gc` on the built dist/ and returns its report;
// the figures are also written under test-artifacts/reliability/ for docs/reliability.md.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

const DRIVER = path.resolve("tests/chaos/chaosDriver.mjs");
const BUILT_APP = path.resolve("dist/main/app/build.js");

/** `npm run test:chaos` sets CHAOS_FULL=1: the full counts; inside `npm test` the bounded subset runs. */
export const FULL = process.env.CHAOS_FULL === "1";

export interface Summary {
  requests: number;
  successRate: number;
  attemptsPerRequest: number;
  p50Ms: number;
  p99Ms: number;
}

export interface DriverReport {
  mode: string;
  rate: number;
  requests: number;
  wallMs: number;
  upstreamCalls: { total: number; faulted: number };
  faultCounts: Record<string, number>;
  all: Summary;
  combo: Summary;
  provider: Summary;
  nonStreamFailures: number;
  earlyStreamFailures: number;
  /** D13: streams answered 502 STREAM_EARLY_EOF after their one early-EOF retry also ended empty. */
  earlyEofGiveUps: number;
  midStreamErrors: number;
  cutShortNonStream: number;
  cutShortStreams: number;
  violations: unknown[];
  unhandled: number;
  firstUnhandled: string | null;
  queues: Array<{ inFlight?: number; queued?: number }> | null;
  busyQueues: unknown[];
  memory: { before: Snapshot; after: Snapshot; heapGrowthMb: number; fdGrowth: number };
}

interface Snapshot {
  heapMb: number;
  rssMb: number;
  fds: number;
}

export function builtAppExists(): boolean {
  return existsSync(BUILT_APP);
}

export function runDriver(options: Record<string, unknown>, timeoutMs: number): Promise<DriverReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--expose-gc", DRIVER, JSON.stringify(options)], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`driver exited ${code}: ${stderr.slice(-2000)}`));
      const report = JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as DriverReport;
      saveReport(`${report.mode}-${Math.round(report.rate * 100)}${FULL ? "-full" : ""}.json`, report);
      resolve(report);
    });
  });
}

export function saveReport(name: string, report: unknown): void {
  const dir = path.resolve("test-artifacts/reliability");
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, name), JSON.stringify(report, null, 2));
}
