// Real processes for the team-gateway tests (R19): `serve` processes that share one redis-server
// and one config file, and Debian's nginx in front of them, run from the README's own nginx.conf.
// Each is started here and stopped by its own PID; everything listens on 127.0.0.1.
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { findNginx } from "../../../scripts/ensure.mjs";
import { freePort, startSwitchyard, type SwitchyardProcess } from "../admission/processes.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
/** The recipe's nginx.conf (README "Team gateway"): the test runs this file, so the two cannot drift. */
export const NGINX_CONF = path.join(root, "docs", "team-gateway", "nginx.conf");
/** The client key the config files give every instance (`--host` requires one; R1.7). */
export const TEAM_KEY = "sk-sy-team-gateway-test-0001";

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string, timeoutMs = 5_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value)}`);
    await sleep(20);
  }
}

/** One config document in a temp file, as a team keeps one file for all its instances (R19.4). */
export function writeConfig(doc: unknown): { file: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), "switchyard-group-config-"));
  const file = path.join(dir, "switchyard.json");
  writeFileSync(file, JSON.stringify(doc, null, 2));
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** `count` serve processes on one config file, sharing `redisUrl` (null: each on its own state). */
export function startGroup(count: number, redisUrl: string | null, configFile: string, env: NodeJS.ProcessEnv = {}): Promise<SwitchyardProcess[]> {
  return Promise.all(Array.from({ length: count }, () => startSwitchyard(redisUrl, { args: ["--config", configFile], env })));
}

export interface ClientResult {
  status: number;
  text: string;
  body: any;
  attempts: number;
  /** X-OmniRoute-Selected-Connection-Id: the connection that answered. */
  connection: string | null;
}

/** A client call with the team's key, as every client of an exposed gateway sends it. */
export async function clientPost(base: string, route: string, body: unknown, headers: Record<string, string> = {}): Promise<ClientResult> {
  const res = await fetch(base + route, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${TEAM_KEY}`, ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    // SSE bodies stay text
  }
  return {
    status: res.status,
    text,
    body: parsed,
    attempts: Number(res.headers.get("x-switchyard-attempts") ?? 0),
    connection: res.headers.get("x-omniroute-selected-connection-id"),
  };
}

export const chat = (base: string, model: string) => clientPost(base, "/v1/chat/completions", { model, messages: [{ role: "user", content: "hi" }] });

/** The recipe's conf with this run's ports: each of the recipe's ports must be there exactly once. */
export function nginxConfFor(listenPort: number, upstreams: string[]): string {
  const replacements: Array<[string, string]> = [
    ["listen 8642;", `listen 127.0.0.1:${listenPort};`],
    ["server 127.0.0.1:8701;", `server ${upstreams[0]};`],
    ["server 127.0.0.1:8702;", `server ${upstreams[1]};`],
  ];
  let conf = readFileSync(NGINX_CONF, "utf8");
  for (const [from, to] of replacements) {
    if (conf.split(from).length !== 2) throw new Error(`${NGINX_CONF} no longer has exactly one "${from}": update the test with the recipe`);
    conf = conf.replace(from, to);
  }
  return conf;
}

export interface NginxProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** nginx in the foreground (`daemon off`) on a temp prefix, in front of `upstreams` ("127.0.0.1:port"). */
export async function startNginx(upstreams: string[]): Promise<NginxProcess> {
  const nginx = findNginx();
  if (!nginx) throw new Error("nginx not found: `node scripts/test.mjs` installs Debian's nginx-light (or apt-get install nginx-light)");
  const prefix = mkdtempSync(path.join(tmpdir(), "switchyard-nginx-"));
  // Run as root, nginx's workers are `nobody`: they must be able to enter the prefix.
  chmodSync(prefix, 0o755);
  const port = await freePort();
  const conf = path.join(prefix, "nginx.conf");
  writeFileSync(conf, nginxConfFor(port, upstreams));
  const child = spawn(nginx, ["-c", conf, "-p", prefix + "/"], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise((r) => child.once("exit", r));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      // SIGTERM to the master: it ends its workers itself (a SIGKILL would orphan them).
      process.kill(child.pid!, "SIGTERM");
      await Promise.race([exited, sleep(5_000)]);
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, "SIGKILL");
    }
    rmSync(prefix, { recursive: true, force: true });
  };
  const url = `http://127.0.0.1:${port}`;
  try {
    await until(
      () =>
        fetch(`${url}/health`).then(
          (r) => r.status,
          () => 0,
        ),
      (s) => s === 200 || child.exitCode !== null,
      "nginx to proxy /health",
      10_000,
    );
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}: ${stderr}`);
    const pid = Number(readFileSync(path.join(prefix, "nginx.pid"), "utf8").trim());
    if (pid !== child.pid) throw new Error(`nginx.pid says ${pid}, the started master is ${child.pid}`);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, pid: child.pid, stop };
}
