// Builds main, preload and renderer when any source is newer than the last build.
import { existsSync, readdirSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const stamp = path.join(root, "dist", ".build-stamp");
const inputs = ["main", "shared", "preload", "renderer", "package.json", "tsconfig.json", "tsconfig.base.json", "tsconfig.renderer.json", "vite.config.ts"];

function newest(p) {
  if (!existsSync(p)) return 0;
  const st = statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let m = st.mtimeMs;
  for (const e of readdirSync(p)) if (e !== "node_modules" && e !== "dist") m = Math.max(m, newest(path.join(p, e)));
  return m;
}

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

export function build({ force = false } = {}) {
  const srcTime = Math.max(...inputs.map((i) => newest(path.join(root, i))));
  if (!force && existsSync(stamp) && statSync(stamp).mtimeMs >= srcTime) return false;
  console.log("[switchyard] building main, preload and renderer…");
  const started = Date.now();
  const bin = (n) => path.join(root, "node_modules", ".bin", n);
  // Each phase names itself: a build of a minute or more must not look like a hang.
  console.log("[switchyard]   compiling main and preload (tsc)…");
  run(bin("tsc"), ["-p", "tsconfig.json"]);
  console.log("[switchyard]   bundling the dashboard (vite)…");
  run(bin("vite"), ["build", "--logLevel", "warn"]);
  mkdirSync(path.dirname(stamp), { recursive: true });
  writeFileSync(stamp, new Date().toISOString());
  console.log(`[switchyard]   built in ${Math.round((Date.now() - started) / 1000)} s`);
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const { ensureDependencies } = await import("./ensure.mjs");
  await ensureDependencies();
  build({ force: process.argv.includes("--force") });
}
