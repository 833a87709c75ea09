// The CLI: `switchyard serve|start|status|reset|export|import|run|connect` (main/cli.ts is the bin). Plain Node: never imports electron.
import { parseArgs } from "node:util";
import type { SwitchyardApp } from "../app/build.js";
import { DEMO_COMBO } from "../app/demo.js";
import { applyServingHeapPolicy } from "../app/heapPolicy.js";
import { removeInstanceFile, writeInstanceFile } from "../app/instanceFile.js";
import { startMemoryReducer } from "../app/memoryReducer.js";
import { VERSION } from "../app/version.js";
import { CliError, connect, exportTo, homeOf, importFrom, reset, status } from "./remote.js";
import { AGENT_USAGE, agentCommand } from "./agentCommands.js";
import { errorCode } from "../../shared/records.js";

const USAGE = `Usage:
  switchyard serve  [--port <p>] [--host <addr>] [--home <dir>] [--config <file>] [--test-clock] [--demo]
                    (--host: default 127.0.0.1; any other address warns and requires client keys)
  switchyard start  [same options]          (headless app; default port 8642)
  switchyard status [--home <dir>] [--url <url>]        breakers, cooldowns, lockouts, queues
  switchyard reset  [--provider <id>] [--home <dir>] [--url <url>]
  switchyard export [FILE|-] [--format json|yaml] [--secrets redacted|env] [--home <dir>] [--url <url>]
  switchyard import FILE [--dry-run] [--home <dir>] [--url <url>]
${AGENT_USAGE}

status, reset, export and import talk to the running instance (found through <home>/instance.json;
admin token from SWITCHYARD_ADMIN_TOKEN or <home>/admin-token).`;

const DEFAULT_PORT = 8642;

function fail(message: string): never {
  process.stderr.write(`switchyard: ${message}\n${USAGE}\n`);
  process.exit(2);
}

function parsePort(value: string | undefined): number {
  const raw = value ?? process.env.SWITCHYARD_PORT ?? String(DEFAULT_PORT);
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`invalid port: ${raw}`);
  return port;
}

type Values = Record<string, string | boolean | undefined>;

/** A string option's value; parseArgs gives booleans for the flags, strings for the rest. */
function stringOption(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function serve(values: Values, friendly: boolean): Promise<void> {
  // Before the gateway's code runs: a request's objects stay in the young generation.
  applyServingHeapPolicy();
  // Loaded here, not at the top: the commands that only talk to an instance or start an agent start at once.
  const { buildApp } = await import("../app/build.js");
  let app: SwitchyardApp;
  try {
    app = await buildApp({
      port: parsePort(stringOption(values, "port")),
      host: stringOption(values, "host") ?? process.env.SWITCHYARD_HOST,
      home: stringOption(values, "home"),
      config: stringOption(values, "config"),
      demo: Boolean(values.demo),
      testClock: Boolean(values["test-clock"]),
      onProgress: (line) => process.stdout.write(line + "\n"),
    });
  } catch (err) {
    if (errorCode(err) === "EADDRINUSE") fail(`port already in use (${messageOf(err)}); pass --port <p> or --port 0`);
    process.stderr.write(`switchyard: ${messageOf(err)}\n`);
    process.exit(1);
  }
  // Handlers first: whoever reads the lines below may signal at once, and must find the cleanup ready.
  stopOnSignals(app);
  // A long-lived process gives a burst's heap back once it is quiet again (its timer keeps nothing alive).
  startMemoryReducer();
  writeInstanceFile(app.home, { url: app.url, pid: process.pid, startedAt: Date.now(), version: VERSION });
  if (app.exposureWarning) process.stderr.write(`switchyard: ${app.exposureWarning}\n`);
  process.stdout.write(`Switchyard listening on ${app.url}\n`);
  process.stdout.write(`Dashboard: ${app.url}/#token=${app.adminToken}\n`);
  if (friendly) {
    process.stdout.write(`Point Claude Code at it:  ANTHROPIC_BASE_URL=${app.url}\n`);
    process.stdout.write(`Point OpenAI clients at:  OPENAI_BASE_URL=${app.url}/v1  (aider: OPENAI_API_BASE=${app.url}/v1)\n`);
    process.stdout.write(`Data: ${app.home}\n`);
  }
  if (values.demo) process.stdout.write(`Demo: two simulated providers and the combo "${DEMO_COMBO}" are ready (model "${DEMO_COMBO}")\n`);
}

function stopOnSignals(app: SwitchyardApp): void {
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    removeInstanceFile(app.home);
    await app.close();
    process.exit(0);
  };
  // A close that fails still ends the process, with the reason on stderr instead of an unhandled rejection.
  const onSignal = () =>
    void stop().catch((err: unknown) => {
      process.stderr.write(`switchyard: could not stop cleanly: ${messageOf(err)}\n`);
      process.exit(1);
    });
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}

/** The commands that talk to a running instance; a CliError is the user's to act on (exit 1). */
async function remoteCommand(command: string, file: string | undefined, values: Values): Promise<void> {
  const str = (name: string) => stringOption(values, name);
  if (command === "import" && !file) fail("import needs a file: switchyard import FILE");
  try {
    const remote = connect(homeOf(str("home")), str("url"));
    let out: string | null;
    if (command === "status") out = await status(remote);
    else if (command === "reset") out = await reset(remote, str("provider"));
    else if (command === "export") out = await exportTo(remote, file, str("format"), str("secrets"));
    else out = await importFrom(remote, file!, Boolean(values["dry-run"]));
    if (out !== null) process.stdout.write(out.endsWith("\n") ? out : out + "\n");
    else process.stderr.write(`switchyard: wrote ${file}\n`);
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    process.stderr.write(`switchyard: ${err.message}\n`);
    process.exit(1);
  }
}

export async function main(): Promise<void> {
  // run and connect parse their own arguments: everything after `--` is the agent's.
  const first = process.argv[2];
  if (first === "run" || first === "connect") return agentCommand(process.argv.slice(2));
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        port: { type: "string" },
        host: { type: "string" },
        home: { type: "string" },
        config: { type: "string" },
        format: { type: "string" },
        secrets: { type: "string" },
        provider: { type: "string" },
        url: { type: "string" },
        "dry-run": { type: "boolean" },
        demo: { type: "boolean" },
        "test-clock": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    fail(messageOf(err));
  }
  const [command = "serve", ...rest] = parsed.positionals;
  if (parsed.values.help) {
    process.stdout.write(USAGE + "\n");
    return;
  }
  switch (command) {
    case "serve":
      return serve(parsed.values, false);
    case "start":
      return serve(parsed.values, true);
    case "status":
    case "reset":
    case "export":
    case "import":
      return remoteCommand(command, rest[0], parsed.values);
    default:
      fail(`unknown command: ${command}`);
  }
}
