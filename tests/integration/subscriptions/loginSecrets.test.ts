// R21.1 the secrets test, extended to logins: the real headless server (dist/main/cli.js serve, as a
// user runs it, logging to its stdout at the info level) serves Claude Max and ChatGPT logins through
// client-login connections — a normal turn, a refused login, a window that runs out and crosses to the
// metered key, a stream cut by the usage limit — and afterwards no login appears in any log line, any
// API answer, the export, /metrics or any file of the data folder; only digests name them.
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../../main/simulator/index.js";
import { filesUnder } from "./realClientsHarness.js";

type Json = Record<string, any>;

const CLI = path.resolve("dist/main/cli.js");
const MAX_LOGIN = "sk-ant-oat01-FAKE-secrets-max-ffffffffffffffffffffffffffff";
const REVOKED = "sk-ant-oat01-FAKE-secrets-revoked-gggggggggggggggggggggg";
const CHATGPT = "eyFAKE.secrets-chatgpt-access.hhhhhhhhhhhhhhhhhhhhhhhh";
const METERED = "sk-ant-api03-secrets-metered-key";
const LOGINS = [MAX_LOGIN, REVOKED, CHATGPT];

let sim: Simulator;
let child: ChildProcess;
let base = "";
let token = "";
let output = "";
const home = mkdtempSync(path.join(tmpdir(), "switchyard-login-secrets-"));

const api = async (method: string, route: string, body?: unknown) => {
  const r = await fetch(base + route, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, text: await r.text() };
};

const claude = (login: string, stream = false) =>
  fetch(`${base}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", "anthropic-beta": "oauth-2025-04-20", authorization: `Bearer ${login}` },
    body: JSON.stringify({ model: "claude-sonnet-x", max_tokens: 32, stream, messages: [{ role: "user", content: "hi" }] }),
  });

beforeAll(async () => {
  sim = await startSimulator({
    port: 0,
    label: "secrets",
    subscriptions: [
      { kind: "anthropic", token: MAX_LOGIN, name: "max", fiveHourLimit: 2 },
      { kind: "chatgpt", token: CHATGPT, chatgptAccountId: "acct-secrets", name: "plus" },
    ],
    apiKeys: [METERED],
  });
  const env: NodeJS.ProcessEnv = { ...process.env, SWITCHYARD_LOG_LEVEL: "debug" };
  delete env.SWITCHYARD_ADMIN_TOKEN;
  child = spawn(process.execPath, [CLI, "serve", "--port", "0", "--home", home], { env, stdio: ["ignore", "pipe", "pipe"] });
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no Dashboard line in 20 s: ${output}`)), 20_000);
    child.stdout!.on("data", (d: Buffer) => {
      output += d.toString();
      const m = /^Dashboard: (http:\/\/127\.0\.0\.1:\d+)\/#token=(\S+)$/m.exec(output);
      if (m && !base) {
        clearTimeout(timer);
        [base, token] = [m[1], m[2]];
        resolve();
      }
    });
  });
  const made = async (route: string, body: Json) => expect((await api("POST", route, body)).status, route).toBe(201);
  await made("/api/providers", { id: "claude-max", format: "anthropic", baseUrl: sim.url, category: "oauth", models: ["claude-sonnet-x"] });
  await made("/api/connections", { id: "max", provider: "claude-max", name: "My Max", credential: "client" });
  await made("/api/providers", { id: "metered", format: "anthropic", baseUrl: sim.url, category: "apikey", models: ["claude-sonnet-x"], priority: 5 });
  await made("/api/connections", { id: "metered-1", provider: "metered", name: "Team key", apiKey: METERED });
  await made("/api/providers", { id: "chatgpt", format: "openai-responses", baseUrl: `${sim.url}/backend-api/codex`, category: "oauth", models: ["gpt-x"] });
  await made("/api/connections", { id: "plus", provider: "chatgpt", name: "My Plus", credential: "client" });
}, 30_000);

afterAll(async () => {
  child?.kill("SIGINT");
  await new Promise((r) => setTimeout(r, 500));
  await sim?.close();
  rmSync(home, { recursive: true, force: true });
});

describe("logins are never kept (R21.1)", () => {
  it("R21.1 after logins were served, refused, crossed and cut mid-stream, no login is in a log line, an answer, the export, /metrics or the data folder", async () => {
    expect((await claude(MAX_LOGIN)).status).toBe(200);
    expect((await claude(REVOKED)).status).toBe(401);
    // The second turn uses up the 2-request window; the third crosses to the metered key.
    expect((await claude(MAX_LOGIN)).status).toBe(200);
    const crossed = await claude(MAX_LOGIN);
    expect(crossed.status).toBe(200);
    expect(crossed.headers.get("x-omniroute-selected-connection-id")).toBe("metered-1");
    const codex = () =>
      fetch(`${base}/backend-api/codex/responses`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${CHATGPT}`, "chatgpt-account-id": "acct-secrets" },
        body: JSON.stringify({ model: "chatgpt/gpt-x", input: "hi", stream: true }),
      });
    const first = await codex();
    expect(first.status).toBe(200);
    expect(await first.text()).toContain("response.completed");
    // The next stream is cut by the usage limit after some text (R21.4: the stream ends with the format's error).
    const cut = await fetch(`${sim.url}/__sim/subscriptions/stream-exhaustion`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ login: "plus", afterChunks: 2 }),
    });
    expect(cut.status).toBe(200);
    const second = await codex();
    expect(second.status).toBe(200);
    expect(await second.text()).not.toContain("response.completed");
    await new Promise((r) => setTimeout(r, 500)); // batched log writes reach the database
    const answers = await Promise.all(
      ["/api/logs?limit=100", "/api/connections", "/api/resilience/cooldowns", "/api/usage/quotas", "/api/config/export", "/api/monitoring/health", "/metrics"].map(
        async (route) => [route, (await api("GET", route)).text] as const,
      ),
    );
    const accounts = (JSON.parse(answers[1][1]) as Json[]).filter((c) => c.accountOf);
    expect(accounts.map((c) => c.name).sort()).toEqual(
      [
        `My Max · ${createHash("sha256").update(MAX_LOGIN).digest("hex").slice(0, 6)}`,
        `My Max · ${createHash("sha256").update(REVOKED).digest("hex").slice(0, 6)}`,
        `My Plus · ${createHash("sha256").update(CHATGPT).digest("hex").slice(0, 6)}`,
      ].sort(),
    );
    expect(output).toMatch(/billing boundary crossed/);
    const stored = filesUnder(home);
    expect(stored.some(([p]) => p.endsWith(".db"))).toBe(true);
    for (const login of LOGINS) {
      expect(output.includes(login), "the server's log lines").toBe(false);
      for (const [route, text] of answers) expect(text.includes(login), route).toBe(false);
      for (const [file, text] of stored) expect(text.includes(login), file).toBe(false);
    }
  }, 30_000);
});
