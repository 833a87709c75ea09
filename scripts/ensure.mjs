// Installs what is missing so that `npm start` and `npm test` work right after `git clone`.
// Uses only Node built-ins: it runs before node_modules exists.
//
// Two installs, each pinned by its own package-lock.json and remembered by a stamp (a hash of its
// package.json and lock) in its node_modules:
// - the app's (the root package.json): what Switchyard runs and builds with, and the build, lint and
//   test tools. `npm start` installs only this one.
// - the test clients' (tests/clients): the real coding agents and SDKs the tests drive (about
//   1.8 GB). `npm test` installs them, and so does vitest's global setup; see tests/clients/locate.ts.
// npm's own output (engine and install-script warnings) is kept back and shown only when npm fails;
// each step says what it does instead, and a long one says so every 30 s.
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const clientsDir = path.join(root, "tests", "clients");
const say = (line) => console.log(`[switchyard] ${line}`);
const secondsSince = (t) => Math.round((Date.now() - t) / 1000);
const NPM_QUIET = ["--no-audit", "--no-fund", "--loglevel=error"];
// Electron is used for types and packaging only; its binary cannot be downloaded offline.
const NPM_ENV = { ELECTRON_SKIP_BINARY_DOWNLOAD: "1", npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };

function run(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
  if (r.status !== 0) {
    console.error(`[switchyard] '${cmd} ${args.join(" ")}' failed with status ${r.status}`);
    process.exit(r.status ?? 1);
  }
}

/** Says every 30 s that `what` still runs, until the returned function is called. */
function heartbeat(what, started = Date.now()) {
  const beat = setInterval(() => say(`  … ${what}: ${secondsSince(started)} s so far`), 30_000);
  return () => clearInterval(beat);
}

// What runs ahead (the native compile) runs in its own process group, so that when this process stops
// early (an npm step failed, Ctrl-C) it stops make and the compiler with it and removes its folder.
const aheadGroups = new Set();
const aheadDirs = new Set();
function stopAhead() {
  for (const pid of aheadGroups) {
    try {
      process.kill(-pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
  aheadGroups.clear();
  for (const dir of aheadDirs) rmSync(dir, { recursive: true, force: true });
  aheadDirs.clear();
}
process.on("exit", stopAhead);
const stopOnSignal = (signal) => {
  stopAhead();
  process.exit(signal === "SIGINT" ? 130 : 143);
};

/**
 * Runs a command with its output kept back; with `what`, says every 30 s that it still runs.
 * Resolves to its stdout. When it fails: with `mayFail`, resolves to null; else shows its output
 * and exits. `ahead`: in its own process group, stopped when this process stops.
 */
function quietly(cmd, args, cwd, what, { mayFail = false, ahead = false } = {}) {
  const child = spawn(cmd, args, { cwd, env: { ...process.env, ...NPM_ENV }, stdio: ["ignore", "pipe", "pipe"], detached: ahead });
  if (ahead && child.pid !== undefined) {
    if (aheadGroups.size === 0) for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, stopOnSignal);
    aheadGroups.add(child.pid);
    child.on("close", () => {
      aheadGroups.delete(child.pid);
      if (aheadGroups.size === 0) for (const signal of ["SIGINT", "SIGTERM"]) process.off(signal, stopOnSignal);
    });
  }
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const stopBeat = what ? heartbeat(what) : () => {};
  return new Promise((resolve) => {
    const done = (status, error) => {
      stopBeat();
      if (status === 0) return resolve(out);
      if (mayFail) return resolve(null);
      process.stdout.write(out);
      process.stderr.write(err);
      const where = path.relative(root, cwd) || ".";
      console.error(`[switchyard] '${path.basename(cmd)} ${args.join(" ")}' in ${where} failed (${error ?? `status ${status}`}): its output is above`);
      process.exit(typeof status === "number" && status !== 0 ? status : 1);
    };
    child.on("error", (e) => done(null, e.message));
    child.on("close", (status) => done(status));
  });
}
const npm = (args, cwd, what) => quietly("npm", args, cwd, what);

/** What npm says it did, as "458 packages", or "nothing to add" for an install that was up to date. */
const added = (npmOut) => {
  const n = /added (\d+) packages?/.exec(npmOut)?.[1];
  return n ? `${n} packages` : "nothing to add";
};

function fingerprint(dir) {
  const lock = path.join(dir, "package-lock.json");
  return createHash("sha256")
    .update(readFileSync(path.join(dir, "package.json")))
    .update(existsSync(lock) ? readFileSync(lock) : "")
    .digest("hex");
}
const stampOf = (dir) => path.join(dir, "node_modules", ".switchyard-deps");
const isInstalled = (dir) => existsSync(stampOf(dir)) && readFileSync(stampOf(dir), "utf8") === fingerprint(dir);

/**
 * Compiles a native package (one whose install script ends in `node-gyp rebuild`, as better-sqlite3's)
 * from its tarball in a temporary folder, so that the compile (about 90 s here) need not wait for
 * `npm ci`: `npm ci` empties node_modules first, so it cannot happen there. The tarball is the one
 * the lock pins (same integrity). Resolves to the folder of its `build` output, or null when this
 * cannot be done here (no npm-provided node-gyp: not run through npm; any step failing): the
 * caller then compiles it in place with `npm rebuild`.
 */
async function compileAhead(name, lockEntry) {
  const gyp = process.env.npm_config_node_gyp;
  if (!gyp || !existsSync(gyp) || !lockEntry?.version || !lockEntry.integrity) return null;
  const dir = mkdtempSync(path.join(tmpdir(), `switchyard-${name.replace("/", "+")}-`));
  aheadDirs.add(dir);
  const fail = () => (rmSync(dir, { recursive: true, force: true }), aheadDirs.delete(dir), null);
  const packed = await quietly("npm", ["pack", `${name}@${lockEntry.version}`, "--json", "--pack-destination", dir, ...NPM_QUIET], dir, null, { mayFail: true, ahead: true });
  const tarball = packed === null ? undefined : JSON.parse(packed)[0];
  if (!tarball || tarball.integrity !== lockEntry.integrity) return fail();
  if ((await quietly("tar", ["xzf", path.join(dir, tarball.filename), "-C", dir], dir, null, { mayFail: true, ahead: true })) === null) return fail();
  const pkgDir = path.join(dir, "package");
  const script = JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8")).scripts?.install ?? "";
  const gypArgs = /(?:^|\|\|)\s*node-gyp (rebuild(?: --release)?)\s*$/.exec(script)?.[1]?.split(" ");
  if (!gypArgs) return fail();
  if ((await quietly(process.execPath, [gyp, ...gypArgs], pkgDir, null, { mayFail: true, ahead: true })) === null) return fail();
  return { build: path.join(pkgDir, "build"), cleanup: fail };
}

/**
 * Starts installing the app's dependencies when package.json or the lock changed since the last
 * install. Returns at once when nothing is to do, else once the packages are in place, but before
 * the native ones (those `allowScripts` allows: better-sqlite3) are compiled: their compile starts
 * first, goes on while npm installs the rest and while `npm start` builds (which needs no native
 * code), and `finish()` waits for it.
 */
export async function prepareDependencies() {
  if (isInstalled(root)) return { installed: false, finish: async () => {} };
  const want = fingerprint(root);
  const lockFile = path.join(root, "package-lock.json");
  const lock = existsSync(lockFile) ? JSON.parse(readFileSync(lockFile, "utf8")) : null;
  const allowed = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).allowScripts ?? {};
  const natives = Object.keys(allowed).filter((name) => allowed[name] === true);
  const compileStarted = Date.now();
  const what = `compiling ${natives.join(", ")}`;
  if (natives.length > 0) say(`  ${what} (native code, a minute or two; the next steps run meanwhile)…`);
  const stopBeat = natives.length > 0 ? heartbeat(what, compileStarted) : () => {};
  const ahead = natives.map((name) => (lock ? compileAhead(name, lock.packages?.[`node_modules/${name}`]) : Promise.resolve(null)));
  say(`  installing the app's packages (npm ${lock ? "ci" : "install"})…`);
  const started = Date.now();
  const out = await npm([lock ? "ci" : "install", "--ignore-scripts", ...NPM_QUIET], root, "installing");
  say(`  ${added(out)} in ${secondsSince(started)} s`);
  let compiled = false;
  const compiling = Promise.all(
    natives.map(async (name, i) => {
      const built = await ahead[i];
      if (!built) return quietly("npm", ["rebuild", name, ...NPM_QUIET], root, null);
      cpSync(built.build, path.join(root, "node_modules", name, "build"), { recursive: true });
      built.cleanup();
    }),
  ).then(() => {
    compiled = true;
    stopBeat();
    if (natives.length > 0) say(`  ${natives.join(", ")} compiled in ${secondsSince(compileStarted)} s`);
    writeFileSync(stampOf(root), want);
  });
  const finish = () => {
    if (!compiled) say(`  waiting for ${natives.join(", ")} to finish compiling…`);
    return compiling;
  };
  return { installed: true, finish };
}

/** Installs the app's dependencies when package.json or the lock changed; true when it did. */
export async function ensureDependencies() {
  const deps = await prepareDependencies();
  await deps.finish();
  return deps.installed;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `fn` holding a lock folder, so two test runs in one checkout never install into one node_modules at once. */
async function withLock(lockDir, fn) {
  mkdirSync(path.dirname(lockDir), { recursive: true });
  for (let waited = false; ;) {
    try {
      mkdirSync(lockDir);
      break;
    } catch (e) {
      if (e.code !== "EEXIST") throw e;
      if (!lockHolderAlive(lockDir)) {
        rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (!waited) say("  another process is installing the test clients: waiting for it…");
      waited = true;
      await sleep(1000);
    }
  }
  writeFileSync(path.join(lockDir, "pid"), String(process.pid));
  try {
    return await fn();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

/** A lock whose process is gone, or that never got its pid file within a minute, is stale. */
function lockHolderAlive(lockDir) {
  const pidFile = path.join(lockDir, "pid");
  if (!existsSync(pidFile)) return existsSync(lockDir) && Date.now() - statSync(lockDir).mtimeMs < 60_000;
  try {
    process.kill(Number(readFileSync(pidFile, "utf8")), 0);
    return true;
  } catch {
    return false;
  }
}

/** Fails when what npm installed in `dir` is not exactly what its lock pins. */
function checkPinned(dir) {
  const locked = JSON.parse(readFileSync(path.join(dir, "package-lock.json"), "utf8")).packages;
  const installed = JSON.parse(readFileSync(path.join(dir, "node_modules", ".package-lock.json"), "utf8")).packages;
  const drift = Object.keys(installed).filter((p) => locked[p]?.version !== installed[p].version);
  if (drift.length === 0) return;
  console.error(`[switchyard] ${path.relative(root, dir)}/package-lock.json does not pin ${drift.join(", ")}: update it with 'npm install --prefix ${path.relative(root, dir)}'`);
  process.exit(1);
}

/**
 * Installs the real clients and SDKs the tests drive into tests/clients/node_modules, exactly as
 * tests/clients/package-lock.json pins them, when that folder's package.json or lock changed.
 * True when it installed. `npm start` never calls it.
 */
export async function ensureTestClients() {
  if (isInstalled(clientsDir)) return false;
  return withLock(path.join(clientsDir, "node_modules", ".switchyard-installing"), async () => {
    if (isInstalled(clientsDir)) return false;
    say("installing the test clients into tests/clients (Claude Code, Codex, Gemini CLI, opencode, Qwen Code, pi, the SDKs; about 1.8 GB, once)…");
    const started = Date.now();
    // `npm install` with the lock rather than `npm ci`: npm ci refuses this lock because opencode-ai and
    // @qwen-code/qwen-code name optional platform packages the registry here lacks. `--no-save` never
    // rewrites package.json or the lock, and checkPinned proves the tree is the lock's.
    const out = await npm(["install", "--no-save", "--prefix", clientsDir, ...NPM_QUIET], clientsDir, "installing the test clients");
    checkPinned(clientsDir);
    writeFileSync(stampOf(clientsDir), fingerprint(clientsDir));
    say(`  ${added(out)} in ${secondsSince(started)} s`);
    return true;
  });
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
  // `node scripts/ensure.mjs` installs the app's dependencies; `--clients` also the test clients.
  await ensureDependencies();
  if (process.argv.includes("--clients")) await ensureTestClients();
}
