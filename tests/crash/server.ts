// A real `switchyard serve` child process on the built dist/, for tests that kill it with SIGKILL.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

const CLI = path.resolve("dist/main/cli.js");

export interface ServerProcess {
  child: ChildProcess;
  pid: number;
  url: string;
  token: string;
  output: () => string;
  /** SIGKILL by PID: no shutdown hook, no flush. */
  kill9(): Promise<void>;
  /** SIGTERM by PID: the normal shutdown. */
  stop(): Promise<void>;
  api(verb: string, route: string, body?: unknown): Promise<{ status: number; body: any; text: string }>;
  post(route: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; text: string; headers: Headers }>;
}

export async function startServer(home: string, token: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, [CLI, "serve", "--port", "0", "--home", home, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env, SWITCHYARD_ADMIN_TOKEN: token },
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 20_000);
    const poll = setInterval(() => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve(m[1]);
      }
    }, 25);
    child.once("exit", (code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`server exited ${code}: ${out}`));
    });
  });
  const call = async (verb: string, route: string, body: unknown, headers: Record<string, string>) => {
    const res = await fetch(url + route, {
      method: verb,
      headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // SSE and plain text stay text
    }
    return { status: res.status, body: parsed as any, text, headers: res.headers };
  };
  return {
    child,
    pid: child.pid!,
    url,
    token,
    output: () => out,
    async kill9() {
      process.kill(child.pid!, "SIGKILL");
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, "SIGTERM");
      await exited;
    },
    api: (verb, route, body) => call(verb, route, body, { authorization: `Bearer ${token}` }),
    post: (route, body, headers = {}) => call("POST", route, body, headers),
  };
}
