// Real processes for the shared-limits test: a throwaway redis-server on a free loopback port and
// headless Switchyards (`dist/main/cli.js serve`), each stopped by its own PID.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const CLI = path.join(root, "dist", "main", "cli.js");
export const ADMIN_TOKEN = "shared-limits-admin-token";

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("error", () => resolve(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (d) => {
      socket.destroy();
      resolve(d.toString().startsWith("+PONG"));
    });
  });
}

export interface RedisProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** `port`: start again on the port of a server that was stopped (a Redis that comes back, R19.3). */
export async function startRedis(port?: number): Promise<RedisProcess> {
  port ??= await freePort();
  const child = spawn("redis-server", ["--port", String(port), "--save", "", "--appendonly", "no", "--bind", "127.0.0.1"], { stdio: "ignore" });
  for (let i = 0; i < 100 && !(await ping(port)); i++) await new Promise((r) => setTimeout(r, 50));
  if (!(await ping(port))) throw new Error("redis-server did not answer PING");
  return {
    url: `redis://127.0.0.1:${port}`,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      process.kill(child.pid!, "SIGKILL");
      await exited;
    },
  };
}

export interface SwitchyardProcess {
  base: string;
  api(verb: string, route: string, body?: unknown): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

export interface SwitchyardOptions {
  /** More `serve` flags, e.g. `--config <file>`. */
  args?: string[];
  env?: NodeJS.ProcessEnv;
}

/** `redisUrl` null: a Switchyard on its own (local state), the baseline a group is compared with. */
export function startSwitchyard(redisUrl: string | null, opts: SwitchyardOptions = {}): Promise<SwitchyardProcess> {
  const home = mkdtempSync(path.join(tmpdir(), "switchyard-shared-"));
  const env: NodeJS.ProcessEnv = { ...process.env, SWITCHYARD_ADMIN_TOKEN: ADMIN_TOKEN, ...opts.env };
  if (redisUrl) env.SWITCHYARD_REDIS_URL = redisUrl;
  else delete env.SWITCHYARD_REDIS_URL;
  delete env.SWITCHYARD_HOME;
  delete env.SWITCHYARD_PORT;
  const child = spawn(process.execPath, [CLI, "serve", "--port", "0", "--home", home, ...(opts.args ?? [])], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      process.kill(child.pid!, "SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, "SIGKILL");
    }
    rmSync(home, { recursive: true, force: true });
  };
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`switchyard did not start: ${out}`)), 20_000);
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const match = /^Switchyard listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out);
      if (!match) return;
      clearTimeout(timer);
      const base = match[1];
      const api = async (verb: string, route: string, body?: unknown) => {
        const res = await fetch(base + route, {
          method: verb,
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        return { status: res.status, body: text ? JSON.parse(text) : null };
      };
      resolve({ base, api, stop });
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`switchyard exited with ${code}: ${out}`));
    });
  });
}
