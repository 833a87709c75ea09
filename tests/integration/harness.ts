// Starts a real Switchyard (in-process, ephemeral port, temp home) and real simulators for tests.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildApp, type SwitchyardApp } from "../../main/app/build.js";
import { startSimulator, type Simulator, type SimulatorOptions } from "../../main/simulator/index.js";

export interface ApiResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface TestGateway {
  app: SwitchyardApp;
  url: string;
  token: string;
  home: string;
  api<T = any>(verb: string, route: string, body?: unknown): Promise<ApiResult<T>>;
  post<T = any>(route: string, body: unknown, headers?: Record<string, string>): Promise<ApiResult<T>>;
  close(): Promise<void>;
}

async function toResult(res: Response): Promise<ApiResult> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // SSE or plain text bodies stay text
  }
  return { status: res.status, headers: res.headers, body, text };
}

export async function startGateway(opts: { testClock?: boolean; env?: NodeJS.ProcessEnv; home?: string } = {}): Promise<TestGateway> {
  const home = opts.home ?? mkdtempSync(path.join(tmpdir(), "switchyard-test-"));
  const app = await buildApp({ port: 0, home, testClock: opts.testClock, env: { ...opts.env, SWITCHYARD_ADMIN_TOKEN: "test-admin-token" }, quiet: true });
  const gw: TestGateway = {
    app,
    url: app.url,
    token: app.adminToken,
    home,
    async api(verb, route, body) {
      const res = await fetch(app.url + route, {
        method: verb,
        headers: { authorization: `Bearer ${app.adminToken}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      return toResult(res);
    },
    async post(route, body, headers = {}) {
      const res = await fetch(app.url + route, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
      return toResult(res);
    },
    async close() {
      await app.close();
      if (!opts.home) rmSync(home, { recursive: true, force: true });
    },
  };
  return gw;
}

export async function startSim(opts: SimulatorOptions = {}): Promise<Simulator> {
  return startSimulator({ port: 0, label: "sim", ...opts });
}

/** Registers an OpenAI-format and an Anthropic-format provider on one simulator, with N keys each. */
export async function addProvider(
  gw: TestGateway,
  id: string,
  sim: Simulator,
  format: "openai" | "openai-responses" | "anthropic" | "gemini" | "simulator",
  keys: string[],
  extra: Record<string, unknown> = {},
): Promise<string[]> {
  const baseUrl = format === "openai" || format === "openai-responses" ? `${sim.url}/v1` : format === "gemini" ? `${sim.url}/v1beta` : sim.url;
  const p = await gw.api("POST", "/api/providers", { id, format, baseUrl, category: "apikey", models: ["m1", "m2"], ...extra });
  if (p.status !== 201) throw new Error(`provider create failed: ${p.status} ${p.text}`);
  const ids: string[] = [];
  for (const [i, key] of keys.entries()) {
    const c = await gw.api("POST", "/api/connections", { id: `${id}-c${i + 1}`, provider: id, name: `${id} key ${i + 1}`, apiKey: key, priority: i });
    if (c.status !== 201) throw new Error(`connection create failed: ${c.status} ${c.text}`);
    ids.push(c.body.id);
  }
  return ids;
}

/** Reads an SSE body into its events. */
export function parseSse(text: string): Array<{ event?: string; data: string }> {
  const out: Array<{ event?: string; data: string }> = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const lines = block.split(/\r?\n/).filter((l) => l && !l.startsWith(":"));
    if (!lines.length) continue;
    const event = lines
      .find((l) => l.startsWith("event:"))
      ?.slice(6)
      .trim();
    const data = lines
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).trimStart())
      .join("\n");
    out.push({ event, data });
  }
  return out;
}
