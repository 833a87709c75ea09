// R0.2 / R14.2 / R15.2 end to end: the real headless server serves the dashboard; Chromium opens
// the printed Dashboard URL, the token leaves the address bar, providers and connections are
// listed, and a connection added through the API appears without a reload (live events).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const CLI = path.join(root, "dist", "main", "cli.js");
const DASHBOARD_HTML = path.join(root, "dist", "renderer", "index.html");
const ARTIFACTS = path.join(root, "test-artifacts", "e2e");
const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
  "--disable-quic",
];

/** Debian's chromium (never a downloaded browser): SWITCHYARD_CHROMIUM, else `chromium` on PATH. */
function findChromium(): string | null {
  const fromEnv = process.env.SWITCHYARD_CHROMIUM;
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    for (const name of ["chromium", "chromium-browser"]) {
      if (dir && existsSync(path.join(dir, name))) return path.join(dir, name);
    }
  }
  return null;
}

interface Server {
  child: ChildProcess;
  base: string;
  dashboardUrl: string;
  token: string;
}

function startServer(home: string): Promise<Server> {
  const env = { ...process.env };
  delete env.SWITCHYARD_ADMIN_TOKEN;
  delete env.SWITCHYARD_HOME;
  delete env.SWITCHYARD_PORT;
  const child = spawn(process.execPath, [CLI, "serve", "--port", "0", "--home", home], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => reject(new Error(`server printed no Dashboard URL in 20 s\nstdout: ${stdout}\nstderr: ${stderr}`)), 20_000);
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdout!.on("data", (d: Buffer) => {
      stdout += d.toString();
      const match = /^Dashboard: (http:\/\/127\.0\.0\.1:\d+)\/#token=(\S+)$/m.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve({ child, base: match[1]!, dashboardUrl: `${match[1]}/#token=${match[2]}`, token: match[2]! });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}\nstdout: ${stdout}\nstderr: ${stderr}`));
    });
  });
}

async function api(server: Server, method: string, route: string, body?: unknown): Promise<unknown> {
  const res = await fetch(server.base + route, {
    method,
    headers: { Authorization: `Bearer ${server.token}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route} -> ${res.status} ${text}`);
  return text ? (JSON.parse(text) as unknown) : undefined;
}

describe("headless dashboard in Chromium", () => {
  let home: string;
  let server: Server;
  let browser: Browser;
  let page: Page;
  const pageProblems: string[] = [];

  beforeAll(async () => {
    for (const [what, file] of [["the headless CLI", CLI], ["the dashboard bundle", DASHBOARD_HTML]] as const) {
      if (!existsSync(file)) throw new Error(`${what} is not built (${path.relative(root, file)} missing): run \`npm run build\` first`);
    }
    const executablePath = findChromium();
    if (!executablePath) throw new Error("No Chromium found: set SWITCHYARD_CHROMIUM or install Debian's chromium (npm test does)");
    home = mkdtempSync(path.join(tmpdir(), "switchyard-e2e-"));
    server = await startServer(home);
    await api(server, "POST", "/api/providers", { id: "sim", format: "simulator", baseUrl: "http://127.0.0.1:1", category: "local", models: ["m1"] });
    await api(server, "POST", "/api/connections", { provider: "sim", name: "Key A", apiKey: "k-a" });
    browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_FLAGS });
    page = await browser.newPage({ viewport: { width: 1024, height: 768 } });
    // CSP violations and script errors surface here; the dashboard must produce none.
    page.on("console", (msg) => {
      if (msg.type() === "error") pageProblems.push(`console: ${msg.text()}`);
    });
    page.on("pageerror", (err) => pageProblems.push(`pageerror: ${err.message}`));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (server?.child.exitCode === null) {
      const exited = new Promise((resolve) => server.child.once("exit", resolve));
      server.child.kill("SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      if (server.child.exitCode === null) server.child.kill("SIGKILL");
    }
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it("API.md opens with #token=, keeps the token in sessionStorage and removes it from the address bar", async () => {
    await page.goto(server.dashboardUrl);
    await page.getByRole("heading", { name: "Providers & connections" }).waitFor({ timeout: 15_000 });
    expect(page.url()).toBe(`${server.base}/`);
    expect(page.url()).not.toContain(server.token);
    expect(await page.evaluate(() => sessionStorage.getItem("switchyard.adminToken"))).toBe(server.token);
  }, 30_000);

  it("R14.2 lists the provider and its connection with status, priority and active", async () => {
    await page.getByRole("heading", { name: "sim", level: 2 }).waitFor();
    const row = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "Key A" }) });
    await row.waitFor();
    const cells = await row.getByRole("cell").allInnerTexts();
    expect(cells.slice(0, 3)).toEqual(["Active", "0", "Yes"]);
    await page.getByRole("link", { name: "Providers & connections" }).waitFor();
    await page.getByRole("button", { name: "Refresh" }).waitFor();
  }, 30_000);

  it("R15.2 shows a connection added through the API without a reload", async () => {
    await page.getByText("Live updates: on").waitFor({ timeout: 15_000 });
    await page.evaluate(() => {
      (window as unknown as { __noReload?: boolean }).__noReload = true;
    });
    await api(server, "POST", "/api/connections", { provider: "sim", name: "Key B", apiKey: "k-b", priority: 1 });
    await page.getByRole("rowheader", { name: "Key B" }).waitFor({ timeout: 10_000 });
    expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
    expect(await page.getByRole("rowheader").allInnerTexts()).toEqual(["Key A", "Key B"]);
  }, 30_000);

  it("R14.2 fits a 1024 px window without horizontal scrolling, with no script or CSP errors", async () => {
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1024);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, "providers-first-run.png"), fullPage: true });
    expect(pageProblems).toEqual([]);
  }, 30_000);

  it("R14.2 light and dark themes follow prefers-color-scheme", async () => {
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await page.emulateMedia({ colorScheme: "light" });
    expect(await background()).toBe("rgb(246, 247, 249)");
    await page.emulateMedia({ colorScheme: "dark" });
    expect(await background()).toBe("rgb(20, 23, 27)");
    await page.screenshot({ path: path.join(ARTIFACTS, "providers-dark.png"), fullPage: true });
    await page.emulateMedia({ colorScheme: "light" });
  }, 30_000);

  it("R14.2 every page is one sidebar link away, each with its own heading", async () => {
    const links = page.getByRole("navigation", { name: "Main" }).getByRole("link");
    expect(await links.allInnerTexts()).toEqual([
      "Providers & connections", "Combos", "API keys", "Cooldown Manager", "Model Cooldowns", "Resilience settings", "Request log", "Health",
    ]);
    // Backwards, so that every click changes the page (Providers is the current one).
    for (const name of (await links.allInnerTexts()).reverse()) {
      await links.filter({ hasText: name }).click();
      await page.getByRole("heading", { name, level: 1 }).waitFor();
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("main");
      expect(page.url()).not.toContain(server.token);
    }
    expect(pageProblems).toEqual([]);
  }, 30_000);

  it("API.md without a token the page tells the user to open the printed Dashboard URL", async () => {
    const context = await browser.newContext();
    const fresh = await context.newPage();
    await fresh.goto(`${server.base}/`);
    await fresh.getByRole("heading", { name: "Open the Dashboard URL to sign in" }).waitFor({ timeout: 15_000 });
    expect(await fresh.getByText("switchyard serve").count()).toBeGreaterThan(0);
    await context.close();
  }, 30_000);
});
