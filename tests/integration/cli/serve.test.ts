// `npm run serve` contract (issue 2, API.md): the built CLI prints its two lines, answers /health,
// honours --demo, --config and SWITCHYARD_ADMIN_TOKEN, and shuts down cleanly on SIGTERM.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..", "..", "..");
const cli = path.join(root, "dist", "main", "cli.js");
const children: ChildProcess[] = [];
const dirs: string[] = [];

function tempHome(): string {
  const d = mkdtempSync(path.join(tmpdir(), "switchyard-cli-"));
  dirs.push(d);
  return d;
}

function serve(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcess; url: string; dashboard: string; output: () => string }> {
  const child = spawn(process.execPath, [cli, "serve", ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let out = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line: ${out}`)), 15_000);
    const onData = (b: Buffer) => {
      out += b.toString();
      const url = out.match(/Switchyard listening on (http:\/\/127\.0\.0\.1:\d+)\n/)?.[1];
      const dashboard = out.match(/Dashboard: (\S+)\n/)?.[1];
      if (url && dashboard) {
        clearTimeout(timer);
        resolve({ child, url, dashboard, output: () => out });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.on("exit", (code) => resolve(code))));
}

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("switchyard serve", () => {
  it("R0.2 prints the listening and dashboard lines for --port 0, answers /health, and exits 0 on SIGTERM", async () => {
    expect(existsSync(cli)).toBe(true);
    const home = tempHome();
    const { child, url, dashboard } = await serve(["--port", "0", "--home", home], { SWITCHYARD_ADMIN_TOKEN: "" });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const token = dashboard.split("#token=")[1];
    expect(dashboard.startsWith(`${url}/#token=`)).toBe(true);
    expect(token.length).toBeGreaterThan(20);
    // The generated admin token is kept in <home>/admin-token, mode 0600.
    expect(statSync(path.join(home, "admin-token")).mode & 0o777).toBe(0o600);
    expect(await fetch(url + "/health").then((r) => r.json())).toMatchObject({ ok: true });
    expect((await fetch(url + "/api/providers", { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    const page = await fetch(url + "/");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root"');
    child.kill("SIGTERM");
    expect(await exitOf(child)).toBe(0);
  });

  it("R0.5 --demo starts two simulated providers and a combo that fails over live", async () => {
    const { child, url } = await serve(["--port", "0", "--home", tempHome(), "--demo"], { SWITCHYARD_ADMIN_TOKEN: "demo-token" });
    const providers = await fetch(url + "/api/providers", { headers: { authorization: "Bearer demo-token" } }).then((r) => r.json());
    expect(providers.map((p: { id: string }) => p.id).sort()).toEqual(["sim-a", "sim-b"]);
    const r = await fetch(url + "/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "demo", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-switchyard-attempts")).toBe("2");
    child.kill("SIGTERM");
    expect(await exitOf(child)).toBe(0);
  });

  it("R0.4 --config seeds providers and connections from YAML with env:NAME secrets, and the token from SWITCHYARD_ADMIN_TOKEN", async () => {
    const home = tempHome();
    const file = path.join(home, "switchyard.yaml");
    writeFileSync(
      file,
      [
        "providers:",
        "  - id: cfg",
        "    format: openai",
        "    baseUrl: http://127.0.0.1:9/v1",
        "    category: apikey",
        "    models: [m-a]",
        "connections:",
        "  - id: cfg-1",
        "    provider: cfg",
        "    name: From config",
        "    apiKey: env:CFG_KEY",
        "",
      ].join("\n"),
    );
    const { child, url } = await serve(["--port", "0", "--home", home, "--config", file], { SWITCHYARD_ADMIN_TOKEN: "cfg-token", CFG_KEY: "secret-from-env" });
    const conns = await fetch(url + "/api/connections", { headers: { authorization: "Bearer cfg-token" } });
    const text = await conns.text();
    expect(JSON.parse(text)).toEqual([expect.objectContaining({ id: "cfg-1", provider: "cfg", name: "From config", hasSecret: true })]);
    expect(text).not.toContain("secret-from-env");
    child.kill("SIGTERM");
    expect(await exitOf(child)).toBe(0);
  });
});
