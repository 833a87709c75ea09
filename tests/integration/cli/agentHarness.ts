// Helpers for the `switchyard run` / `switchyard connect` tests (R23.2): where each real agent is
// installed, the built CLI run asynchronously with only the environment a test gives it (the
// gateway lives in the test process), and a byte-for-byte picture of a folder.
import { existsSync, readdirSync, readFileSync, lstatSync } from "node:fs";
import path from "node:path";
import { runClientProcess, type ClientRun } from "../../fixtures/clients/clientProcess.js";

export const root = path.resolve(__dirname, "..", "..", "..");
export const CLI = path.join(root, "dist", "main", "cli.js");
export const RUN_TIMEOUT_MS = 120_000;
export const TEST_TIMEOUT_MS = RUN_TIMEOUT_MS + 60_000;

export type AgentName = "claude" | "codex" | "gemini" | "opencode" | "qwen" | "pi";

/**
 * An agent's executable: the pinned test clients' folder (tests/clients), else the repo's own
 * node_modules; SWITCHYARD_TEST_CLIENT_BINS (folders, ':'-separated) is looked at first, for a
 * developer who installed the clients elsewhere. Null when it is not installed.
 */
export function clientBin(name: AgentName): string | null {
  const dirs = [
    ...(process.env.SWITCHYARD_TEST_CLIENT_BINS ?? "").split(path.delimiter).filter(Boolean),
    path.join(root, "tests", "clients", "node_modules", ".bin"),
    path.join(root, "node_modules", ".bin"),
  ];
  // opencode's launcher in .bin is a stub until its postinstall copies the platform's binary in;
  // where install scripts are off, the binary itself is in its platform package beside it.
  const candidates = (d: string) =>
    name === "opencode" ? [path.join(d, "..", `opencode-${process.platform}-${process.arch}`, "bin", "opencode"), path.join(d, name)] : [path.join(d, name)];
  return dirs.flatMap(candidates).find((f) => existsSync(f)) ?? null;
}

/** The variables every run gets: a PATH with node (the npm launchers need it) and the system's tools, a HOME, and quiet agents. */
export function baseEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: [path.dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].join(path.delimiter),
    HOME: home,
    // Claude Code: no telemetry, update checks or other side traffic.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    // Gemini CLI: the temporary folders count as trusted (CLIENTS.md).
    GEMINI_CLI_TRUST_WORKSPACE: "true",
    // opencode: nothing fetched or installed in the background (CLIENTS.md).
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
    OPENCODE_DISABLE_SHARE: "1",
    ...extra,
  };
}

/** `node dist/main/cli.js <args…>` with exactly `env`, asynchronously, in its own process group. */
export function runCli(args: string[], opts: { cwd: string; env: Record<string, string>; timeoutMs?: number }): Promise<ClientRun> {
  return runClientProcess(process.execPath, [CLI, ...args], { cwd: opts.cwd, env: opts.env, timeoutMs: opts.timeoutMs ?? RUN_TIMEOUT_MS });
}

export function describeRun(run: ClientRun): string {
  return `exit ${run.code}${run.timedOut ? " (timed out)" : ""} after ${run.ms} ms\n--- stdout\n${run.stdout.slice(-3000)}\n--- stderr\n${run.stderr.slice(-3000)}`;
}

/** Every file (its bytes, base64, and mode) and folder under `dir`, by relative path. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string) => {
    for (const name of readdirSync(at).sort()) {
      const full = path.join(at, name);
      const rel = path.relative(dir, full);
      const st = lstatSync(full);
      if (st.isDirectory()) {
        out[rel + "/"] = `dir ${(st.mode & 0o777).toString(8)}`;
        walk(full);
      } else out[rel] = `${(st.mode & 0o777).toString(8)} ${readFileSync(full).toString("base64")}`;
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

/** The same picture for a few files only (absent ones as null). */
export function fileBytes(files: string[]): Record<string, string | null> {
  return Object.fromEntries(files.map((f) => [f, existsSync(f) ? `${(lstatSync(f).mode & 0o777).toString(8)} ${readFileSync(f).toString("base64")}` : null]));
}
