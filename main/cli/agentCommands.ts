// The `run` and `connect` subcommands of the headless CLI (API.md "CLI beside the server", R23.2):
// their own argument parsing (everything after `--` belongs to the agent), and the exit statuses:
// the agent's own for `run`, 2 for bad input (nothing written), 1 for a failure the user can act on.
import { constants } from "node:os";
import { parseArgs } from "node:util";
import { CliError, homeOf } from "./remote.js";
import { AGENT_NAMES, AGENTS, isAgentName, type AgentName } from "./agents/index.js";
import { connectAgent, undoConnect } from "./connect.js";
import { normaliseUrl, resolveGateway, UsageError } from "./gateway.js";
import { findAgentBinary, runAgent } from "./run.js";

export const AGENT_USAGE = `  switchyard run <${AGENT_NAMES.join("|")}> [--url <url>] [--home <dir>] [-- agent args…]
                    the agent, pointed at Switchyard for this process only (its login kept)
  switchyard connect <agent> [--url <url>] [--home <dir>]   write the agent's own config (a backup beside it)
  switchyard connect <agent> --undo                          put the agent's config back as it was
  (url: --url, else SWITCHYARD_URL, else the running instance of the home, else http://127.0.0.1:8642;
   key: SWITCHYARD_API_KEY, else one made for this CLI when the instance requires client keys)`;

interface Parsed {
  agent: AgentName;
  url: string | undefined;
  home: string;
  undo: boolean;
  agentArgs: string[];
}

function parse(command: "run" | "connect", argv: string[]): Parsed {
  const dashes = argv.indexOf("--");
  const own = dashes === -1 ? argv : argv.slice(0, dashes);
  const agentArgs = dashes === -1 ? [] : argv.slice(dashes + 1);
  let parsed;
  try {
    parsed = parseArgs({
      args: own,
      allowPositionals: true,
      options: { url: { type: "string" }, home: { type: "string" }, ...(command === "connect" ? { undo: { type: "boolean" } } : {}) },
    });
  } catch (err) {
    const hint = command === "run" ? " (the agent's own arguments go after --)" : "";
    throw new UsageError(`${err instanceof Error ? err.message : String(err)}${hint}`);
  }
  const [name, ...extra] = parsed.positionals;
  if (!name) throw new UsageError(`${command} needs an agent: switchyard ${command} <${AGENT_NAMES.join("|")}>`);
  if (!isAgentName(name)) throw new UsageError(`unknown agent: ${name} (known: ${AGENT_NAMES.join(", ")})`);
  if (extra.length > 0)
    throw new UsageError(
      command === "run"
        ? `unexpected argument ${extra[0]}: the agent's own arguments go after --, e.g. switchyard run ${name} -- ${extra.join(" ")}`
        : `unexpected argument: ${extra[0]}`,
    );
  if (command === "connect" && dashes !== -1) throw new UsageError("connect takes no agent arguments");
  const undo = parsed.values.undo === true;
  if (undo && parsed.values.url !== undefined) throw new UsageError("--undo takes no --url: it restores the files as they were");
  // A malformed --url is bad input too (found before anything is looked up or written).
  if (parsed.values.url !== undefined) normaliseUrl(parsed.values.url);
  return { agent: name, url: parsed.values.url, home: homeOf(parsed.values.home), undo, agentArgs };
}

/** Ends this process the way the agent ended: its status, or its signal re-raised (128 + n where that cannot be). */
function exitLike(code: number | null, signal: NodeJS.Signals | null): never {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    process.exit(128 + (constants.signals[signal] ?? 0));
  }
  process.exit(code ?? 1);
}

async function run(p: Parsed, env: NodeJS.ProcessEnv): Promise<never> {
  // The binary first: a missing agent is bad input, before anything is looked up or written.
  const bin = findAgentBinary(AGENTS[p.agent], env);
  const gateway = await resolveGateway({ url: p.url, home: p.home, env });
  if (gateway.unreachable) process.stderr.write(`switchyard: warning: ${gateway.unreachable}; starting ${AGENTS[p.agent].title} all the same\n`);
  const ended = await runAgent({ agent: p.agent, bin, gateway, args: p.agentArgs, env });
  exitLike(ended.code, ended.signal);
}

async function connect(p: Parsed, env: NodeJS.ProcessEnv): Promise<void> {
  const title = AGENTS[p.agent].title;
  if (p.undo) {
    const done = undoConnect(p.agent, env);
    for (const file of done.restored) process.stdout.write(`restored ${file}\n`);
    for (const file of done.removed) process.stdout.write(`removed ${file} (it did not exist before)\n`);
    process.stdout.write(`${title} is back to its own config.\n`);
    return;
  }
  const gateway = await resolveGateway({ url: p.url, home: p.home, env });
  if (gateway.unreachable) process.stderr.write(`switchyard: warning: ${gateway.unreachable}; writing the config all the same\n`);
  const done = await connectAgent(p.agent, gateway, env);
  for (const w of done.written) process.stdout.write(w.backup ? `wrote ${w.file}  (the original is kept as ${w.backup})\n` : `wrote ${w.file}  (a new file: undo removes it)\n`);
  process.stdout.write(`${title} now talks to Switchyard at ${gateway.url}. Undo: switchyard connect ${p.agent} --undo\n`);
  if (done.note) process.stdout.write(`Note: ${done.note}\n`);
}

/** `argv` starts with the command, "run" or "connect". */
export async function agentCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const command = argv[0] === "connect" ? "connect" : "run";
  try {
    const p = parse(command, argv.slice(1));
    if (command === "run") await run(p, env);
    else await connect(p, env);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`switchyard: ${err.message}\n`);
      process.exit(2);
    }
    if (err instanceof CliError) {
      process.stderr.write(`switchyard: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}
