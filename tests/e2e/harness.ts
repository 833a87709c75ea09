// Shared set-up of the browser end-to-end suites: the real headless server (`dist/main/cli.js
// serve --port 0 --test-clock`), Debian's chromium driven by playwright-core, the simulator as
// upstream, and the checks every page must pass (1024 px, labels, no script or CSP errors).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { startSimulator, type Simulator } from "../../main/simulator/index.js";

export const root = fileURLToPath(new URL("../..", import.meta.url));
const CLI = path.join(root, "dist", "main", "cli.js");
const DASHBOARD_HTML = path.join(root, "dist", "renderer", "index.html");
export const ARTIFACTS = path.join(root, "test-artifacts", "e2e");
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
export function findChromium(): string | null {
  const fromEnv = process.env.SWITCHYARD_CHROMIUM;
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    for (const name of ["chromium", "chromium-browser"]) {
      if (dir && existsSync(path.join(dir, name))) return path.join(dir, name);
    }
  }
  return null;
}

export interface Server {
  child: ChildProcess;
  base: string;
  dashboardUrl: string;
  token: string;
}

export function startServer(home: string, extraArgs: string[] = []): Promise<Server> {
  const env = { ...process.env };
  delete env.SWITCHYARD_ADMIN_TOKEN;
  delete env.SWITCHYARD_HOME;
  delete env.SWITCHYARD_PORT;
  const child = spawn(process.execPath, [CLI, "serve", "--port", "0", "--home", home, ...extraArgs], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => reject(new Error(`server printed no Dashboard URL in 20 s\nstdout: ${stdout}\nstderr: ${stderr}`)), 20_000);
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
      const match = /^Dashboard: (http:\/\/127\.0\.0\.1:\d+)\/#token=(\S+)$/m.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve({ child, base: match[1], dashboardUrl: `${match[1]}/#token=${match[2]}`, token: match[2] });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}\nstdout: ${stdout}\nstderr: ${stderr}`));
    });
  });
}

export async function stopServer(server: Server | undefined): Promise<void> {
  if (!server || server.child.exitCode !== null) return;
  const exited = new Promise((resolve) => server.child.once("exit", resolve));
  server.child.kill("SIGTERM");
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  if (server.child.exitCode === null) server.child.kill("SIGKILL");
}

export async function api<T = unknown>(server: Server, method: string, route: string, body?: unknown): Promise<T> {
  const res = await fetch(server.base + route, {
    method,
    headers: { Authorization: `Bearer ${server.token}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route} -> ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** One client request through the gateway (OpenAI format). */
export async function chat(server: Server, model: string): Promise<{ status: number; connection: string | null; body: string }> {
  const res = await fetch(`${server.base}/v1/chat/completions`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "hello" }] }),
  });
  return { status: res.status, connection: res.headers.get("x-omniroute-selected-connection-id"), body: await res.text() };
}

/** A simulator-backed OpenAI-format provider with one connection per key (priority in order). */
export async function addSimProvider(server: Server, sim: Simulator, id: string, keys: Array<{ id: string; name: string; key: string }>, category = "apikey"): Promise<void> {
  await api(server, "POST", "/api/providers", { id, format: "openai", baseUrl: `${sim.url}/v1`, category, models: ["m1"] });
  for (const [priority, k] of keys.entries()) {
    await api(server, "POST", "/api/connections", { id: k.id, provider: id, name: k.name, apiKey: k.key, priority });
  }
}

export interface Harness {
  home: string;
  server: Server;
  sim: Simulator;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Script errors and console errors (CSP violations among them) seen so far. */
  problems: string[];
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** Serve with --test-clock (default true); the dashboard suite runs the server as a user starts it. */
  testClock?: boolean;
  /**
   * Count Chromium's "status of 400 (Bad Request)" console lines as problems (default false:
   * most suites provoke validation errors on purpose).
   */
  strictConsole?: boolean;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const { testClock = true, strictConsole = false } = options;
  for (const [what, file] of [
    ["the headless CLI", CLI],
    ["the dashboard bundle", DASHBOARD_HTML],
  ] as const) {
    if (!existsSync(file)) throw new Error(`${what} is not built (${path.relative(root, file)} missing): run \`npm run build\` first`);
  }
  const executablePath = findChromium();
  if (!executablePath) throw new Error("No Chromium found: set SWITCHYARD_CHROMIUM or install Debian's chromium (npm test does)");
  const home = mkdtempSync(path.join(tmpdir(), "switchyard-e2e-"));
  const [server, sim, browser] = await Promise.all([
    startServer(home, testClock ? ["--test-clock"] : []),
    startSimulator(),
    chromium.launch({ executablePath, headless: true, args: CHROMIUM_FLAGS }),
  ]);
  const context = await browser.newContext({ viewport: { width: 1024, height: 768 } });
  const page = await context.newPage();
  const problems: string[] = [];
  // CSP violations and script errors surface here; the dashboard must produce none.
  page.on("console", (msg) => {
    if (msg.type() !== "error") return;
    if (!strictConsole && msg.text().includes("status of 400 (Bad Request)")) return;
    problems.push(`console: ${msg.text()}`);
  });
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  return {
    home,
    server,
    sim,
    browser,
    context,
    page,
    problems,
    async close() {
      await browser.close();
      await sim.close();
      await stopServer(server);
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/**
 * One harness for a describe block: started (then `setup` run on it) before the suite's first
 * test, closed after its last. The returned object is filled in by beforeAll, so tests read it
 * only inside their bodies; that keeps every suite's `h.page` / `h.server` usage unchanged.
 */
export function useHarness(setup: (h: Harness) => Promise<void>, options?: HarnessOptions): Harness {
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- filled in by beforeAll, read only inside tests (see above)
  const h = {} as Harness;
  beforeAll(async () => {
    Object.assign(h, await startHarness(options));
    await setup(h);
  }, 60_000);
  afterAll(async () => h.close?.());
  return h;
}

/** Opens the dashboard (token in the fragment) on a page of the sidebar, by its link text. */
export async function openPage(h: Harness, linkName: string, heading: string): Promise<void> {
  if (!h.page.url().startsWith(h.server.base)) {
    await h.page.goto(h.server.dashboardUrl);
    await h.page.getByText("Live updates: on").waitFor({ timeout: 15_000 });
  }
  await h.page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: linkName, exact: true }).click();
  await h.page.getByRole("heading", { name: heading, level: 1 }).waitFor();
}

/**
 * The checks every page must pass: it fits 1024 px without horizontal scrolling, every visible
 * control has a visible label, every button has a name. Returns the problems found.
 */
export async function layoutAndLabelProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    if (document.documentElement.scrollWidth > window.innerWidth) problems.push(`page is ${document.documentElement.scrollWidth}px wide`);
    const visible = (el: Element) => {
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.height > 0;
    };
    for (const control of Array.from(document.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>("input, select, textarea"))) {
      if (!visible(control)) continue;
      const labels = Array.from(control.labels ?? []).filter((l) => visible(l) && (l.textContent ?? "").trim() !== "");
      if (labels.length === 0) problems.push(`unlabelled ${control.tagName.toLowerCase()} ${control.outerHTML.slice(0, 80)}`);
    }
    for (const wrap of Array.from(document.querySelectorAll(".table-wrap"))) {
      if (wrap.scrollWidth > wrap.clientWidth + 1)
        problems.push(`table scrolls sideways (${wrap.scrollWidth} > ${wrap.clientWidth}): ${wrap.querySelector("caption")?.textContent ?? ""}`);
    }
    for (const button of Array.from(document.querySelectorAll("button"))) {
      const name = (button.getAttribute("aria-label") ?? button.textContent ?? "").trim();
      if (name === "") problems.push(`button without a name: ${button.outerHTML.slice(0, 80)}`);
    }
    return problems;
  });
}

/** Saves the page's screenshot as test-artifacts/e2e/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}
