// `npm start`: install the app's dependencies (not the test clients: `npm test` installs those), build
// what is stale while better-sqlite3 compiles, then run the Electron app, or headless when no
// Electron binary can run here (the dashboard URL is printed).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { prepareDependencies } from "./ensure.mjs";
import { build } from "./build.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// Say what each step does: a first start installs and builds for minutes, and silence looks like a hang.
const say = (line) => console.log(`[switchyard] ${line}`);
say("step 1 of 3: dependencies");
const deps = await prepareDependencies();
if (!deps.installed) say("  dependencies are installed");
say("step 2 of 3: build");
if (!build()) say("  the build is up to date");
await deps.finish();
const args = process.argv.slice(2);

function electronBinary() {
  const pathFile = path.join(root, "node_modules", "electron", "path.txt");
  if (!existsSync(pathFile)) return null;
  const bin = path.join(root, "node_modules", "electron", "dist", readFileSync(pathFile, "utf8").trim());
  if (!existsSync(bin)) return null;
  const probe = spawnSync(bin, ["--version"], { timeout: 10_000 });
  return probe.status === 0 ? bin : null;
}

say("step 3 of 3: starting Switchyard…");
const electron = electronBinary();
const child = electron
  ? spawn(electron, [path.join(root, "dist", "main", "desktop", "electron-main.js"), ...args], { stdio: "inherit" })
  : (console.log("[switchyard] no runnable Electron binary here: starting headless"),
    spawn(process.execPath, [path.join(root, "dist", "main", "cli.js"), "start", ...args], { stdio: "inherit" }));
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code) => process.exit(code ?? 0));
