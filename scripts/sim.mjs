// `npm run sim -- --seed N --requests M`: the seeded mixed-use simulation (R24.6, docs/simulation.md).
// Runs the TypeScript sources as they are (Vite's module runner, as vitest does), so nothing is built
// per run: the real server in-process on 127.0.0.1 and the real simulators. The run itself is a child
// process whose standard output this one reads: the server's log lines are held back (shown with
// --logs) and checked for the laptop's secrets (I8), so the output ends with the one reproducer line.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";

const SECRETS_LINE = "@@sim-secrets ";
const args = process.argv.slice(2);

async function runChild() {
  const { createServer, createServerModuleRunner } = await import("vite");
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
  const server = await createServer({
    configFile: false,
    root,
    logLevel: "error",
    appType: "custom",
    server: { middlewareMode: true, hmr: false, ws: false },
    optimizeDeps: { noDiscovery: true, include: [] },
  });
  const runner = createServerModuleRunner(server.environments.ssr, { hmr: false });
  try {
    const cli = await runner.import("/tests/sim/cli.ts");
    return await cli.main(args);
  } finally {
    await runner.close();
    await server.close();
  }
}

function runParent() {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), ...args], {
    env: { ...process.env, SWITCHYARD_SIM_CHILD: "1" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let logs = "";
  let secrets = [];
  let pending = "";
  const line = (text) => {
    if (text.startsWith('{"level"')) {
      logs += text + "\n";
      if (args.includes("--logs")) console.error(text);
    } else if (text.startsWith(SECRETS_LINE)) secrets = JSON.parse(text.slice(SECRETS_LINE.length));
    else console.log(text);
  };
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    pending += chunk;
    for (let i = pending.indexOf("\n"); i >= 0; i = pending.indexOf("\n")) {
      line(pending.slice(0, i));
      pending = pending.slice(i + 1);
    }
  });
  child.on("exit", (code) => {
    if (pending) line(pending);
    const leaked = secrets.find((s) => logs.includes(s));
    if (leaked && code === 0) console.log(`npm run sim -- ${args.join(" ")}  # I8 a server log line shows a secret (${leaked.slice(0, 12)}…)`);
    process.exit(leaked ? 1 : (code ?? 1));
  });
}

if (process.env.SWITCHYARD_SIM_CHILD === "1") process.exit(await runChild());
else runParent();
