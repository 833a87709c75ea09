// Issue 14's CLI against a real running server (the built dist/main/cli.js): `status`, `reset`,
// `export` and `import` find the instance through <home>/instance.json and its admin token, talk
// to it over the API, and say clearly when no instance runs.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../../main/simulator/index.js";

const root = path.resolve(__dirname, "..", "..", "..");
const cli = path.join(root, "dist", "main", "cli.js");
const TOKEN = "cli-remote-test-token-0123456789";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI with a clean environment: only what each test gives it. */
function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const base = { ...process.env };
  delete base.SWITCHYARD_ADMIN_TOKEN;
  delete base.SWITCHYARD_HOME;
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { env: { ...base, ...env }, timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

let home: string;
let server: ChildProcess;
let url: string;
let sim: Simulator;

async function api(method: string, route: string, body?: unknown): Promise<any> {
  const res = await fetch(url + route, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
}

beforeAll(async () => {
  home = mkdtempSync(path.join(tmpdir(), "switchyard-cli-remote-"));
  sim = await startSimulator({ port: 0, label: "upstream" });
  server = spawn(process.execPath, [cli, "serve", "--port", "0", "--home", home], { env: { ...process.env, SWITCHYARD_ADMIN_TOKEN: TOKEN }, stdio: ["ignore", "pipe", "pipe"] });
  url = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`no listening line: ${out}`)), 20_000);
    server.stdout!.on("data", (b: Buffer) => {
      out += b.toString();
      const m = /Switchyard listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
  await api("POST", "/api/providers", { id: "oai", format: "openai", baseUrl: `${sim.url}/v1`, category: "apikey", models: ["m1"] });
  await api("POST", "/api/connections", { id: "k1", provider: "oai", name: "first key", apiKey: "sk-remote-cli-secret-1", priority: 0 });
  await api("POST", "/api/connections", { id: "k2", provider: "oai", name: "second key", apiKey: "sk-remote-cli-secret-2", priority: 1 });
}, 40_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
  }
  await sim?.close();
  rmSync(home, { recursive: true, force: true });
});

describe("switchyard status | reset | export | import (issue 14)", () => {
  it("serve writes <home>/instance.json (0600) naming its address, and no token", () => {
    const file = path.join(home, "instance.json");
    const info = JSON.parse(readFileSync(file, "utf8"));
    expect(info).toMatchObject({ url, pid: server.pid });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).not.toContain(TOKEN);
  });

  it("status prints breakers, cooldowns, lockouts and queues as tables, with the cooling key and its wait", async () => {
    sim.addFault("sk-remote-cli-secret-1", { status: 429, retryAfter: 90, times: 1 });
    const r = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "oai/m1", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(r.status).toBe(200);
    const out = await run(["status", "--home", home], { SWITCHYARD_ADMIN_TOKEN: TOKEN });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(`Switchyard at ${url}`);
    for (const heading of ["Provider breakers", "Cooldowns", "Model lockouts", "Queues"]) expect(out.stdout).toContain(heading);
    expect(out.stdout).toMatch(/PROVIDER\s+STATE\s+FAILURES/);
    const cooling = out.stdout.split("\n").find((l) => l.includes("first key (k1)"));
    expect(cooling).toMatch(/oai\s+cooling_down\s+1m 2\ds|oai\s+cooling_down\s+1m 30s/);
    expect(out.stdout).not.toContain("sk-remote-cli-secret");
  });

  it("reset --provider clears that provider's cooldowns and breakers over the API", async () => {
    const out = await run(["reset", "--provider", "oai", "--home", home], { SWITCHYARD_ADMIN_TOKEN: TOKEN });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("of oai");
    expect(out.stdout).toMatch(/Cleared 1 cooldown/);
    const rows = await api("GET", "/api/resilience/cooldowns?provider=oai");
    expect(rows.items.filter((c: { status: string }) => c.status === "cooling_down")).toEqual([]);
  });

  it("the admin token is read from <home>/admin-token when the environment has none; a wrong one is a clear 401", async () => {
    writeFileSync(path.join(home, "admin-token"), TOKEN + "\n", { mode: 0o600 });
    expect((await run(["status", "--home", home])).code).toBe(0);
    const wrong = await run(["status", "--home", home], { SWITCHYARD_ADMIN_TOKEN: "not-the-token" });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("refused the admin token (401)");
  });

  it("R0.4 export FILE writes the config with env:NAME secrets; import --dry-run previews; import applies it", async () => {
    const file = path.join(home, "moved.yaml");
    const exported = await run(["export", file, "--secrets", "env", "--home", home], { SWITCHYARD_ADMIN_TOKEN: TOKEN });
    expect(exported.code).toBe(0);
    const text = readFileSync(file, "utf8");
    expect(text).toContain("apiKey: env:SWITCHYARD_KEY_OAI_K1");
    expect(text).not.toContain("sk-remote-cli-secret");

    writeFileSync(file, text.replace("name: second key", "name: renamed key"));
    const env = { SWITCHYARD_ADMIN_TOKEN: TOKEN, SWITCHYARD_KEY_OAI_K1: "x", SWITCHYARD_KEY_OAI_K2: "y" };
    // The server resolves env:NAME in its own environment: it was started without them.
    const missing = await run(["import", file, "--dry-run", "--home", home], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("environment variable SWITCHYARD_KEY_OAI_K1 is not set");

    const plain = path.join(home, "rename.json");
    writeFileSync(plain, JSON.stringify({ connections: [{ id: "k2", provider: "oai", name: "renamed key" }] }));
    const dry = await run(["import", plain, "--dry-run", "--home", home], { SWITCHYARD_ADMIN_TOKEN: TOKEN });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain("Would change:");
    expect(dry.stdout).toContain("update  connection k2 (name)");
    expect((await api("GET", "/api/connections/k2")).name).toBe("second key");
    const applied = await run(["import", plain, "--home", home], { SWITCHYARD_ADMIN_TOKEN: TOKEN });
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain("Imported (all or nothing)");
    expect((await api("GET", "/api/connections/k2")).name).toBe("renamed key");
  });

  it("R0.4 a bad file is refused with the field path, and nothing changes", async () => {
    const bad = path.join(home, "bad.json");
    writeFileSync(
      bad,
      JSON.stringify({ connections: [{ id: "k2", provider: "oai", name: "again" }], combos: [{ name: "c", strategy: "priority", targets: [{ model: "ghost/m" }] }] }),
    );
    const out = await run(["import", bad, "--home", home], { SWITCHYARD_ADMIN_TOKEN: TOKEN });
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("combos.0.targets.0.model");
    expect((await api("GET", "/api/connections/k2")).name).toBe("renamed key");
  });
});

describe("progress (issue 14)", () => {
  it("R0.5 serve --demo says what it is doing, step by step, before its listening line", async () => {
    const h = mkdtempSync(path.join(tmpdir(), "switchyard-cli-demo-"));
    const child = spawn(process.execPath, [cli, "serve", "--port", "0", "--home", h, "--demo"], {
      env: { ...process.env, SWITCHYARD_ADMIN_TOKEN: TOKEN },
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      let out = "";
      await new Promise<void>((resolve) =>
        child.stdout.on("data", (b: Buffer) => {
          out += b.toString();
          if (out.includes("Dashboard:")) resolve();
        }),
      );
      const lines = out.split("\n");
      const at = (text: string) => lines.findIndex((l) => l.startsWith(text));
      expect(at("Demo: starting simulated provider A")).toBeGreaterThanOrEqual(0);
      expect(at("Demo: starting simulated provider B")).toBeGreaterThan(at("Demo: starting simulated provider A"));
      expect(at("Demo: adding providers sim-a and sim-b")).toBeGreaterThan(at("Demo: starting simulated provider B"));
      expect(at("Switchyard listening on")).toBeGreaterThan(at("Demo: adding providers sim-a and sim-b"));
    } finally {
      child.kill("SIGTERM");
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once("exit", resolve)));
      rmSync(h, { recursive: true, force: true });
    }
  }, 30_000);
});

describe("switchyard CLI with no running instance (issue 14)", () => {
  it("status says no instance runs, where it looked and how to start one; exit 1", async () => {
    const empty = mkdtempSync(path.join(tmpdir(), "switchyard-cli-none-"));
    try {
      const out = await run(["status", "--home", empty], { SWITCHYARD_ADMIN_TOKEN: TOKEN });
      expect(out.code).toBe(1);
      expect(out.stderr).toContain("no running Switchyard found");
      expect(out.stderr).toContain(path.join(empty, "instance.json"));
      expect(out.stderr).toContain("switchyard serve");
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it("a stale instance file (its process gone) is reported as such, and an unreachable --url as unreachable", async () => {
    const stale = mkdtempSync(path.join(tmpdir(), "switchyard-cli-stale-"));
    try {
      const dead = spawn(process.execPath, ["-e", ""]);
      await new Promise((resolve) => dead.once("exit", resolve));
      writeFileSync(path.join(stale, "instance.json"), JSON.stringify({ url: "http://127.0.0.1:9", pid: dead.pid, startedAt: 1, version: "x" }));
      const out = await run(["export", "--home", stale], { SWITCHYARD_ADMIN_TOKEN: TOKEN });
      expect(out.code).toBe(1);
      expect(out.stderr).toContain(`(pid ${dead.pid}) has exited`);
      const unreachable = await run(["reset", "--url", "http://127.0.0.1:9", "--home", stale], { SWITCHYARD_ADMIN_TOKEN: TOKEN });
      expect(unreachable.code).toBe(1);
      expect(unreachable.stderr).toContain("cannot reach Switchyard at http://127.0.0.1:9");
    } finally {
      rmSync(stale, { recursive: true, force: true });
    }
  });

  it("SIGTERM removes the instance file, so a later command knows nothing runs", async () => {
    const h = mkdtempSync(path.join(tmpdir(), "switchyard-cli-stop-"));
    const child = spawn(process.execPath, [cli, "serve", "--port", "0", "--home", h], {
      env: { ...process.env, SWITCHYARD_ADMIN_TOKEN: TOKEN },
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      await new Promise<void>((resolve) => child.stdout.on("data", (b: Buffer) => b.toString().includes("Dashboard:") && resolve()));
      expect(existsSync(path.join(h, "instance.json"))).toBe(true);
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
      expect(existsSync(path.join(h, "instance.json"))).toBe(false);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      rmSync(h, { recursive: true, force: true });
    }
  });
});
