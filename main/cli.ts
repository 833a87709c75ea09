#!/usr/bin/env node
// Headless entry: `switchyard serve|start|export|import`. Plain Node: never imports electron.
import { parseArgs } from "node:util";
import { readFileSync } from "node:fs";
import { buildApp, type SwitchyardApp } from "./app/build.js";
import { DEMO_COMBO } from "./app/demo.js";

const USAGE = `Usage:
  switchyard serve  [--port <p>] [--host <addr>] [--home <dir>] [--config <file>] [--test-clock] [--demo]
                    (--host: default 127.0.0.1; any other address warns and requires client keys)
  switchyard start  [same options]          (headless app; default port 8642)
  switchyard export [--home <dir>] [--format json|yaml]
  switchyard import <file> [--home <dir>]`;

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

async function serve(values: Record<string, string | boolean | undefined>, friendly: boolean): Promise<void> {
  let app: SwitchyardApp;
  try {
    app = await buildApp({
      port: parsePort(values.port as string | undefined),
      host: (values.host as string | undefined) ?? process.env.SWITCHYARD_HOST,
      home: values.home as string | undefined,
      config: values.config as string | undefined,
      demo: Boolean(values.demo),
      testClock: Boolean(values["test-clock"]),
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === "EADDRINUSE") fail(`port already in use (${e.message}); pass --port <p> or --port 0`);
    process.stderr.write(`switchyard: ${e.message}\n`);
    process.exit(1);
  }
  if (app.exposureWarning) process.stderr.write(`switchyard: ${app.exposureWarning}\n`);
  process.stdout.write(`Switchyard listening on ${app.url}\n`);
  process.stdout.write(`Dashboard: ${app.url}/#token=${app.adminToken}\n`);
  if (friendly) {
    process.stdout.write(`Point Claude Code at it:  ANTHROPIC_BASE_URL=${app.url}\n`);
    process.stdout.write(`Point OpenAI clients at:  OPENAI_BASE_URL=${app.url}/v1  (aider: OPENAI_API_BASE=${app.url}/v1)\n`);
    process.stdout.write(`Data: ${app.home}\n`);
  }
  if (values.demo) process.stdout.write(`Demo: two simulated providers and the combo "${DEMO_COMBO}" are ready (model "${DEMO_COMBO}")\n`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await app.close();
    process.exit(0);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

async function exportConfig(values: Record<string, string | boolean | undefined>): Promise<void> {
  const app = await buildApp({ port: 0, home: values.home as string | undefined, quiet: true });
  try {
    const format = values.format === "yaml" ? "yaml" : "json";
    const out = await app.handlers.exportConfig!({ format });
    process.stdout.write(typeof out === "string" ? out : JSON.stringify(out, null, 2) + "\n");
  } finally {
    await app.close();
  }
}

async function importConfig(file: string | undefined, values: Record<string, string | boolean | undefined>): Promise<void> {
  if (!file) fail("import needs a file");
  const app = await buildApp({ port: 0, home: values.home as string | undefined, quiet: true });
  try {
    const text = readFileSync(file, "utf8");
    const isYaml = /\.ya?ml$/i.test(file);
    const result = await app.handlers.importConfig!(isYaml ? { format: "yaml", text } : JSON.parse(text));
    process.stdout.write(JSON.stringify(result) + "\n");
  } finally {
    await app.close();
  }
}

async function main(): Promise<void> {
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
        demo: { type: "boolean" },
        "test-clock": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (err) {
    fail((err as Error).message);
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
    case "export":
      return exportConfig(parsed.values);
    case "import":
      return importConfig(rest[0], parsed.values);
    default:
      fail(`unknown command: ${command}`);
  }
}

void main();
