// Installs what is missing so that `npm start` and `npm test` work right after `git clone`.
// Uses only Node built-ins: it runs before node_modules exists.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function run(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
  if (r.status !== 0) {
    console.error(`[switchyard] '${cmd} ${args.join(" ")}' failed with status ${r.status}`);
    process.exit(r.status ?? 1);
  }
}

export function ensureDependencies() {
  const lock = path.join(root, "package-lock.json");
  const stamp = path.join(root, "node_modules", ".switchyard-deps");
  const want = createHash("sha256")
    .update(readFileSync(path.join(root, "package.json")))
    .update(existsSync(lock) ? readFileSync(lock) : "")
    .digest("hex");
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === want) return false;
  console.log("[switchyard] installing dependencies (npm ci)…");
  // Electron is used for types and packaging only; its binary cannot be downloaded offline.
  const env = { ELECTRON_SKIP_BINARY_DOWNLOAD: "1", npm_config_audit: "false", npm_config_fund: "false" };
  run("npm", existsSync(lock) ? ["ci", "--no-audit", "--no-fund"] : ["install", "--no-audit", "--no-fund"], env);
  writeFileSync(stamp, want);
  return true;
}

function onPath(name) {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (dir && existsSync(path.join(dir, name))) return path.join(dir, name);
  }
  return null;
}

export function findChromium() {
  if (process.env.SWITCHYARD_CHROMIUM && existsSync(process.env.SWITCHYARD_CHROMIUM)) return process.env.SWITCHYARD_CHROMIUM;
  return onPath("chromium") ?? onPath("chromium-browser") ?? null;
}

/**
 * Installs a Debian package when the program it provides is missing and we are root with apt-get
 * (CI on a clean machine); returns the program's path, or null when it cannot be had.
 */
export function ensureDebianProgram(program, debianPackage, purpose) {
  const found = onPath(program);
  if (found) return found;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (!isRoot || !onPath("apt-get")) {
    console.warn(`[switchyard] ${program} not found and cannot be installed (not root or no apt-get)`);
    return null;
  }
  console.log(`[switchyard] installing Debian ${debianPackage} for ${purpose}…`);
  run("apt-get", ["update", "-qq"], { DEBIAN_FRONTEND: "noninteractive" });
  run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", debianPackage], { DEBIAN_FRONTEND: "noninteractive" });
  return onPath(program);
}

/** Browser tests drive Debian's chromium. */
export function ensureChromium() {
  return findChromium() ?? (ensureDebianProgram("chromium", "chromium", "browser tests") && findChromium());
}

/** The shared-limits tests start a real redis-server on a loopback port. */
export function ensureRedisServer() {
  return ensureDebianProgram("redis-server", "redis-server", "the shared-limits tests");
}

/** Debian's nginx lives in /usr/sbin, which a non-root PATH often lacks. */
export function findNginx() {
  return onPath("nginx") ?? (existsSync("/usr/sbin/nginx") ? "/usr/sbin/nginx" : null);
}

/** The team-gateway test (R19.4) puts Debian's nginx (package nginx-light) in front of two `serve` processes. */
export function ensureNginx() {
  // After an install the program may still be off PATH: look in /usr/sbin again.
  return findNginx() ?? ensureDebianProgram("nginx", "nginx-light", "the team-gateway test") ?? findNginx();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  ensureDependencies();
}
