// R21.6 in Chromium: two subscription accounts of a simulator whose Anthropic answers carry the
// unified 5h/7d utilisation, worked by named coding sessions (R7.1 session header) five days and an
// hour and a half into the week (the test clock and the simulator's clock move together). The
// Usage page shows each window as a bar with its pace — the busy account "runs out at HH:MM at
// this pace", the quiet one "lasts until the reset" — and who burned it. The tray's menu, built by
// the tray's own code from the same API, shows the 5-hour and weekly windows as two bars; both are
// saved as pictures (test-artifacts/e2e/usage-windows-pace.png and tray-windows.png).
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { UsageQuotaItem, UsageReport } from "../../shared/apiTypes.js";
import type { Connection } from "../../shared/types.js";
import { SIM_QUOTA } from "../../main/simulator/quotaMeters.js";
import { startSimulator, type Simulator } from "../../main/simulator/index.js";
import { buildTrayMenuTemplate, trayStateFromBreakers, trayUsageLines, type TrayMenuItem } from "../../main/desktop/trayMenu.js";
import { trayWindows } from "../../main/desktop/trayUsage.js";
import { api, ARTIFACTS, layoutAndLabelProblems, openPage, useHarness, type Server } from "./harness.js";

const HOUR = 3_600_000;

/** One turn of a session: a prompt of about `percent` % of the 5-hour allowance (4 characters a token). */
async function turn(server: Server, model: string, session: string | null, percent: number): Promise<void> {
  const line = "Refactor notes and the files open in the editor, as a coding agent sends them. ";
  const prompt = line.repeat(Math.ceil(((percent / 100) * SIM_QUOTA.fiveHourTokens * 4) / line.length));
  const headers: Record<string, string> = { "content-type": "application/json", "anthropic-version": "2023-06-01", "user-agent": "claude-cli/2.1.3 (external, cli)" };
  if (session) headers["x-session-id"] = session;
  const res = await fetch(`${server.base}/v1/messages`, {
    method: "POST",
    headers,
    body: JSON.stringify({ model, max_tokens: 64, messages: [{ role: "user", content: prompt }] }),
  });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

/** The tray's menu as a native menu draws it: disabled items greyed, separators as rules. */
function menuHtml(items: readonly TrayMenuItem[]): string {
  const escape = (t: string) => t.replace(/&/g, "&amp;").replace(/</g, "&lt;");
  const rows = items
    .map((i) => {
      if (i.type === "separator") return `<li class="sep" role="separator"></li>`;
      const check = i.type === "checkbox" ? (i.checked ? "✓" : "") : "";
      return `<li role="menuitem" aria-disabled="${!i.enabled}" class="${i.enabled ? "" : "off"}"><span class="check">${check}</span>${escape(i.label)}</li>`;
    })
    .join("");
  return `<!doctype html><html><head><style>
    body { margin: 0; padding: 16px; background: #d9dde3; font: 13px system-ui, "DejaVu Sans", sans-serif; }
    ul { list-style: none; margin: 0; padding: 5px 0; background: #fafafa; border: 1px solid #b9bec6; border-radius: 6px; box-shadow: 0 4px 14px rgba(0,0,0,.18); display: inline-block; min-width: 300px; }
    li { padding: 3px 22px 3px 6px; white-space: pre; color: #1b1f24; }
    li.off { color: #9aa1aa; }
    li.sep { height: 1px; background: #dde0e4; margin: 4px 0; padding: 0; }
    .check { display: inline-block; width: 18px; text-align: center; }
  </style></head><body><ul role="menu" aria-label="Switchyard tray menu">${rows}</ul></body></html>`;
}

describe("Usage page: subscription windows with their pace and who burned them (R21.6)", () => {
  let quotaSim: Simulator;
  let offset = 0;
  const h = useHarness(async (h) => {
    quotaSim = await startSimulator({
      quotaHeaders: true,
      label: "subscription",
      replyText: "Done: the auth module now reads tokens from the keychain.",
      quotaClock: () => Date.now() + offset,
    });
    for (const [provider, id, name] of [
      ["claude", "claude-max", "Claude Max"],
      ["claude-pro", "claude-pro", "Claude Pro"],
    ] as const) {
      await api(h.server, "POST", "/api/providers", { id: provider, format: "anthropic", baseUrl: quotaSim.url, category: "apikey", models: ["claude-sonnet-4-5"] });
      await api(h.server, "POST", "/api/connections", { id, provider, name, apiKey: `${id}-key`, subscription: true });
    }
    // Five days into the simulator's week and an hour and a half into its 5-hour window.
    const advance = 5 * 24 * HOUR + 1.5 * HOUR;
    await api(h.server, "POST", "/api/debug/clock", { advanceMs: advance });
    offset += advance;
    // Each account's first answer of the period is its baseline; then the sessions work.
    await turn(h.server, "claude/claude-sonnet-4-5", null, 0.5);
    await turn(h.server, "claude-pro/claude-sonnet-4-5", null, 0.5);
    for (const [session, percent] of [
      ["refactor-auth", 14],
      ["fix-flaky-tests", 6],
      ["refactor-auth", 12],
      ["docs-pass", 3],
      ["refactor-auth", 9],
      ["fix-flaky-tests", 5],
    ] as const) {
      await turn(h.server, "claude/claude-sonnet-4-5", session, percent);
    }
    await turn(h.server, "claude-pro/claude-sonnet-4-5", "spike-notes", 4);
    await turn(h.server, "claude-pro/claude-sonnet-4-5", "spike-notes", 2);
    await openPage(h, "Usage", "Usage");
  });
  afterAll(async () => quotaSim?.close());

  it("R21.6 each window is a bar with its pace and its sessions by share; a busy 5-hour window runs out before its reset", async () => {
    const { page, server } = h;
    const { items } = await api<{ items: UsageQuotaItem[] }>(server, "GET", "/api/usage/quotas");
    const max5h = items.find((q) => q.connectionId === "claude-max" && q.window === "5h")!;
    expect(max5h.pace?.state).toBe("deficit");
    expect(items.find((q) => q.connectionId === "claude-pro" && q.window === "5h")!.pace?.state).toBe("reserve");
    expect(items.find((q) => q.connectionId === "claude-max" && q.window === "7d")!.pace?.state).toBe("reserve");

    const meter = page.getByRole("meter", { name: "Quota Claude Max (claude) · 5h" });
    await meter.waitFor({ timeout: 10_000 });
    const runsOut = new Date(max5h.pace!.runsOutAt!);
    const clock = `${String(runsOut.getHours()).padStart(2, "0")}:${String(runsOut.getMinutes()).padStart(2, "0")}`;
    expect(await meter.getAttribute("aria-valuetext")).toMatch(
      new RegExp(`^${Math.round(max5h.usedPercent!)} % used · resets in 3 h \\d+ min · runs out at (\\w{3} )?${clock} at this pace`),
    );
    expect(await page.getByRole("meter", { name: "Quota Claude Pro (claude-pro) · 5h" }).getAttribute("aria-valuetext")).toContain("lasts until the reset, with room to spare");
    expect(await page.getByRole("meter", { name: "Quota Claude Max (claude) · 7d" }).getAttribute("aria-valuetext")).toContain("lasts until the reset");

    const sessions = page.getByRole("list", { name: "Sessions that used Claude Max (claude) · 5h" }).getByRole("listitem");
    const texts = await sessions.allInnerTexts();
    expect(texts.map((t) => t.split(":")[0])).toEqual(["refactor-auth", "fix-flaky-tests", "docs-pass"]);
    expect(texts[0]).toMatch(/^refactor-auth: 3\d % in 3 requests$/);
    const shares = max5h.sessions!;
    expect(texts[1]).toBe(`fix-flaky-tests: ${Math.round(shares[1].usedPercent)} % in 2 requests`);
    expect(await page.getByRole("list", { name: "Sessions that used Claude Pro (claude-pro) · 5h" }).getByRole("listitem").allInnerTexts()).toEqual([
      `spike-notes: ${Math.round(items.find((q) => q.connectionId === "claude-pro" && q.window === "5h")!.sessions![0].usedPercent)} % in 2 requests`,
    ]);
    expect(await layoutAndLabelProblems(page)).toEqual([]);

    const region = await page.getByRole("region", { name: "Quotas" }).boundingBox();
    const clip = { x: Math.floor(region!.x) - 12, y: Math.floor(region!.y) - 12, width: Math.ceil(region!.width) + 24, height: Math.ceil(region!.height) + 24 };
    await page.screenshot({ path: path.join(ARTIFACTS, "usage-windows-pace.png"), fullPage: true, clip });
    expect(h.problems).toEqual([]);
  }, 30_000);

  it("R21.6 the tray menu shows the 5-hour and weekly windows as two bars with their pace", async () => {
    const { server, browser } = h;
    const [{ items }, connections, { now }, report] = await Promise.all([
      api<{ items: UsageQuotaItem[] }>(server, "GET", "/api/usage/quotas"),
      api<Connection[]>(server, "GET", "/api/connections"),
      api<{ now: number }>(server, "GET", "/api/debug/clock"),
      api<UsageReport>(server, "GET", "/api/usage?groupBy=provider&bucket=hour"),
    ]);
    const nameOf = (id: string) => connections.find((c) => c.id === id)?.name ?? id;
    const usage = { todayTokens: report.totals.inputTokens + report.totals.outputTokens, todayCostUsd: report.totals.costUsd, quota: null, windows: trayWindows(items, nameOf) };
    const lines = trayUsageLines(usage, now);
    expect(lines.map((l) => l.id)).toEqual(["usage-today", "usage-window-5h", "usage-window-7d"]);
    expect(lines[1].label).toMatch(/^5h █{5,6}░{4,5} \d+ % · runs out at (\w{3} )?\d\d:\d\d at this pace · Claude Max$/);
    expect(lines[2].label).toMatch(/^7d █?░{9,10} \d+ % · lasts until the reset, with room to spare · Claude Max$/);
    expect(lines.slice(1).every((l) => l.enabled)).toBe(true);
    const template = buildTrayMenuTemplate(trayStateFromBreakers({}), { proxyEnabled: true, modelLockoutEnabled: false, endpoint: `${server.base}/v1` }, lines);
    const page = await browser.newPage({ viewport: { width: 640, height: 420 } });
    try {
      await page.setContent(menuHtml(template));
      const menu = page.getByRole("menu", { name: "Switchyard tray menu" });
      expect(await menu.getByRole("menuitem").allInnerTexts()).toContain(lines[1].label.replace(/ {2,}/g, " "));
      const box = (await menu.boundingBox())!;
      await page.screenshot({
        path: path.join(ARTIFACTS, "tray-windows.png"),
        clip: { x: 0, y: 0, width: Math.ceil(box.x + box.width) + 16, height: Math.ceil(box.y + box.height) + 16 },
      });
    } finally {
      await page.close();
    }
  }, 30_000);
});
