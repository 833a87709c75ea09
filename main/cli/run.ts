// `switchyard run <agent> [--url URL] [-- agent args…]` (R23.2): the user's own agent, found on
// PATH (or SWITCHYARD_AGENT_BIN_<NAME>), started pointed at Switchyard for this process only. Its
// stdio is ours, signals sent to us reach it, and our exit status is its own. Nothing is written
// to the agent's config; the few files an override needs live in a private temporary folder that
// goes when the agent exits.
import { spawn } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { AGENTS, type AgentName, type AgentRecord } from "./agents/index.js";
import { UsageError, type Gateway } from "./gateway.js";

/** SWITCHYARD_AGENT_BIN_CLAUDE, …: the agent's executable, instead of the one on PATH (tests, unusual installs). */
export function binOverrideVar(name: string): string {
  return `SWITCHYARD_AGENT_BIN_${name.toUpperCase()}`;
}

function isExecutable(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The agent's executable: the override variable's, else the first on PATH; a UsageError when there is none. */
export function findAgentBinary(agent: AgentRecord, env: NodeJS.ProcessEnv): string {
  const override = env[binOverrideVar(agent.name)];
  if (override) {
    if (!isExecutable(override)) throw new UsageError(`${binOverrideVar(agent.name)}=${override} is not an executable file`);
    return override;
  }
  const exts = process.platform === "win32" ? ["", ...(env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";")] : [""];
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const file = path.join(dir, agent.bin + ext);
      if (isExecutable(file)) return file;
    }
  }
  throw new UsageError(`${agent.title} is not installed here: no \`${agent.bin}\` on PATH (install it, or set ${binOverrideVar(agent.name)} to its executable)`);
}

/** The signals passed on to the agent. Ctrl-C and Ctrl-\ reach the whole foreground group from a terminal already. */
function forwardedSignals(): NodeJS.Signals[] {
  const terminal = process.stdin.isTTY || process.stdout.isTTY;
  const signals: NodeJS.Signals[] = ["SIGTERM", "SIGHUP"];
  if (!terminal) signals.push("SIGINT", "SIGQUIT");
  return process.platform === "win32" ? signals.filter((s) => s !== "SIGHUP" && s !== "SIGQUIT") : signals;
}

export interface RunOptions {
  agent: AgentName;
  /** The executable (findAgentBinary). */
  bin: string;
  gateway: Gateway;
  args: string[];
  env: NodeJS.ProcessEnv;
}

/** Runs the agent to its end and gives its exit status (128 + n for a signal, as a shell reports it). */
export async function runAgent(opts: RunOptions): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const agent = AGENTS[opts.agent];
  const bin = opts.bin;
  let dir: string | null = null;
  const scratch = (name: string) => {
    dir ??= mkdtempSync(path.join(tmpdir(), `switchyard-run-${agent.name}-`));
    return path.join(dir, name);
  };
  const cleanup = () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
  try {
    const launch = await agent.launch({ gateway: opts.gateway, env: opts.env, args: opts.args, scratch });
    const child = spawn(bin, [...launch.args, ...opts.args], { stdio: "inherit", env: { ...opts.env, ...launch.env } });
    const signals = forwardedSignals();
    const forward = (signal: NodeJS.Signals) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    // Ignoring the terminal's own Ctrl-C here leaves it to the agent: ours ends when it does.
    const ignore = () => undefined;
    for (const s of signals) process.on(s, forward);
    const terminalOnly = (["SIGINT", "SIGQUIT"] as NodeJS.Signals[]).filter((s) => !signals.includes(s));
    if (process.platform !== "win32") for (const s of terminalOnly) process.on(s, ignore);
    return await new Promise((resolve, reject) => {
      child.once("error", (err) => reject(new UsageError(`cannot start ${bin}: ${err.message}`)));
      child.once("exit", (code, signal) => {
        for (const s of signals) process.off(s, forward);
        for (const s of terminalOnly) process.off(s, ignore);
        try {
          const line = launch.after?.();
          if (line) process.stderr.write(`switchyard: ${line}\n`);
        } catch (err) {
          process.stderr.write(`switchyard: after ${agent.title} exited: ${err instanceof Error ? err.message : String(err)}\n`);
        }
        resolve({ code, signal });
      });
    });
  } finally {
    cleanup();
  }
}
