// `npm test`: install what is missing (the app's dependencies and the test clients in tests/clients),
// build, then run every suite (unit, integration, e2e).
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { ensureChromium, ensureNginx, ensureRedisServer, ensureTestClients, prepareDependencies } from "./ensure.mjs";
import { build } from "./build.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
console.log("[switchyard] dependencies: the app's, then the test clients'");
const deps = await prepareDependencies();
// The test clients and Debian's programs install while better-sqlite3 compiles.
await ensureTestClients();
const chromium = ensureChromium();
ensureRedisServer();
ensureNginx();
build();
await deps.finish();
// The build type-checks main and preload; the renderer (bundled by Vite) and the tests are checked here.
for (const project of ["tsconfig.renderer.json", "tsconfig.tests.json"]) {
  const tsc = spawnSync(path.join(root, "node_modules", ".bin", "tsc"), ["-p", project, "--noEmit"], { cwd: root, stdio: "inherit" });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
}
// Lint (no warning allowed) and formatting are part of the test: a finding fails `npm test`. The suites
// still run after one, so a single run reports both; no --cache: with type-aware rules a cached file
// can hide a finding that a change in another file caused.
const checks = [
  ["eslint", ["--max-warnings", "0", "."]],
  ["prettier", ["--check", "."]],
].map(([bin, args]) => ({ bin, status: spawnSync(path.join(root, "node_modules", ".bin", bin), args, { cwd: root, stdio: "inherit" }).status }));
const env = { ...process.env };
if (chromium) env.SWITCHYARD_CHROMIUM = chromium;
const r = spawnSync(path.join(root, "node_modules", ".bin", "vitest"), ["run", ...process.argv.slice(2)], { cwd: root, stdio: "inherit", env });
const failed = checks.filter((c) => c.status !== 0);
for (const c of failed) console.error(`[switchyard] ${c.bin} failed (status ${c.status}): see its output above the test run`);
const testStatus = r.status ?? 1;
process.exit(testStatus !== 0 ? testStatus : failed.length > 0 ? 1 : 0);
