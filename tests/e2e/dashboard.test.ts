// R0.2 / R14.2 / R15.2 end to end: the real headless server serves the dashboard; Chromium opens
// the printed Dashboard URL, the token leaves the address bar, providers and connections are
// listed, and a connection added through the API appears without a reload (live events).
import { describe, expect, it } from "vitest";
import { api, screenshot, useHarness } from "./harness.js";

describe("headless dashboard in Chromium", () => {
  const h = useHarness(
    async ({ server }) => {
      await api(server, "POST", "/api/providers", { id: "sim", format: "simulator", baseUrl: "http://127.0.0.1:1", category: "local", models: ["m1"] });
      await api(server, "POST", "/api/connections", { provider: "sim", name: "Key A", apiKey: "k-a" });
    },
    // The server as a user starts it; this suite provokes no 400, so any console error counts.
    { testClock: false, strictConsole: true },
  );

  it("API.md opens with #token=, keeps the token in sessionStorage and removes it from the address bar", async () => {
    const { page, server } = h;
    await page.goto(server.dashboardUrl);
    await page.getByRole("heading", { name: "Providers & connections" }).waitFor({ timeout: 15_000 });
    expect(page.url()).toBe(`${server.base}/`);
    expect(page.url()).not.toContain(server.token);
    expect(await page.evaluate(() => sessionStorage.getItem("switchyard.adminToken"))).toBe(server.token);
  }, 30_000);

  it("R14.2 lists the provider and its connection with status, priority and active", async () => {
    const { page } = h;
    await page.getByRole("heading", { name: "sim", level: 2 }).waitFor();
    const row = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "Key A" }) });
    await row.waitFor();
    const cells = await row.getByRole("cell").allInnerTexts();
    expect(cells.slice(0, 3)).toEqual(["Active", "0", "Yes"]);
    await page.getByRole("link", { name: "Providers & connections" }).waitFor();
    await page.getByRole("button", { name: "Refresh" }).waitFor();
  }, 30_000);

  it("R15.2 shows a connection added through the API without a reload", async () => {
    const { page, server } = h;
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
    const { page } = h;
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1024);
    await screenshot(page, "providers-first-run");
    expect(h.problems).toEqual([]);
  }, 30_000);

  it("R14.2 light and dark themes follow prefers-color-scheme", async () => {
    const { page } = h;
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await page.emulateMedia({ colorScheme: "light" });
    expect(await background()).toBe("rgb(246, 247, 249)");
    await page.emulateMedia({ colorScheme: "dark" });
    expect(await background()).toBe("rgb(20, 23, 27)");
    await screenshot(page, "providers-dark");
    await page.emulateMedia({ colorScheme: "light" });
  }, 30_000);

  it("R14.2 every page is one sidebar link away, each with its own heading", async () => {
    const { page, server } = h;
    const links = page.getByRole("navigation", { name: "Main" }).getByRole("link");
    expect(await links.allInnerTexts()).toEqual([
      "Providers & connections",
      "Connect your tools",
      "Combos",
      "API keys",
      "Cooldown Manager",
      "Model Cooldowns",
      "Sessions & leases",
      "Resilience settings",
      "Request log",
      "Health",
      "Usage",
      "Import & export",
    ]);
    // Backwards, so that every click changes the page (Providers is the current one).
    for (const name of (await links.allInnerTexts()).reverse()) {
      await links.filter({ hasText: name }).click();
      await page.getByRole("heading", { name, level: 1 }).waitFor();
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("main");
      expect(page.url()).not.toContain(server.token);
    }
    expect(h.problems).toEqual([]);
  }, 30_000);

  it("API.md without a token the page tells the user to open the printed Dashboard URL", async () => {
    const { browser, server } = h;
    const context = await browser.newContext();
    const fresh = await context.newPage();
    await fresh.goto(`${server.base}/`);
    await fresh.getByRole("heading", { name: "Open the Dashboard URL to sign in" }).waitFor({ timeout: 15_000 });
    expect(await fresh.getByText("switchyard serve").count()).toBeGreaterThan(0);
    await context.close();
  }, 30_000);
});
