// `npm test`: install what is missing, build, then run every suite (unit, integration, e2e).
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { ensureDependencies, ensureChromium, ensureRedisServer } from "./ensure.mjs";
import { build } from "./build.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
ensureDependencies();
const chromium = ensureChromium();
ensureRedisServer();
build();
// The build type-checks main and preload; the renderer (bundled by Vite) and the tests are checked here.
for (const project of ["tsconfig.renderer.json", "tsconfig.tests.json"]) {
  const tsc = spawnSync(path.join(root, "node_modules", ".bin", "tsc"), ["-p", project, "--noEmit"], { cwd: root, stdio: "inherit" });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
}
const env = { ...process.env };
if (chromium) env.SWITCHYARD_CHROMIUM = chromium;
const r = spawnSync(path.join(root, "node_modules", ".bin", "vitest"), ["run", ...process.argv.slice(2)], { cwd: root, stdio: "inherit", env });
process.exit(r.status ?? 1);
