// R18.6 in Chromium: real traffic through the gateway to simulator upstreams with known prices
// (modelInfo), then the Usage page shows the request log's sums as today's, 7 days' and 30 days'
// totals with the cache-hit ratio, its legend follows the grouping, a quota meter shows its share
// and a live countdown, a key's budget set on the API keys page shows its use, a connection over
// its budget shows in the Cooldown Manager, and the CSV export yields the report's rows. The
// Health page still draws its charts, now with the charting library.
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import type { UsageQuotaItem, UsageReport } from "../../shared/apiTypes.js";
import type { ApiKeyInfo, Connection } from "../../shared/types.js";
import { cacheHitRatio, formatCount, formatPercent, formatUsd } from "../../shared/usageText.js";
import { startSimulator, type Simulator } from "../../main/simulator/index.js";
import { api, layoutAndLabelProblems, openPage, screenshot, useHarness } from "./harness.js";
import { allLogRows, anthropicMessages, openaiChat, sumRows } from "./usageTraffic.js";

const PRICES = { inputPricePerMTok: 3, outputPricePerMTok: 15, cacheReadPricePerMTok: 0.3, cacheWritePricePerMTok: 3.75 };

describe("Usage page", () => {
  let quotaSim: Simulator;
  let laptop: { id: string; key: string };
  const h = useHarness(async (h) => {
    quotaSim = await startSimulator({ quotaHeaders: true, label: "quota" });
    await api(h.server, "POST", "/api/providers", { id: "anth", format: "anthropic", baseUrl: quotaSim.url, category: "apikey", models: ["m1"], modelInfo: { m1: PRICES } });
    await api(h.server, "POST", "/api/connections", { id: "anth-1", provider: "anth", name: "Claude Max", apiKey: "claude-key" });
    await api(h.server, "POST", "/api/providers", { id: "oai", format: "openai", baseUrl: `${h.sim.url}/v1`, category: "apikey", models: ["m1"], modelInfo: { m1: PRICES } });
    await api(h.server, "POST", "/api/connections", { id: "oai-1", provider: "oai", name: "Team key", apiKey: "team-key", priority: 0 });
    await api(h.server, "POST", "/api/connections", { id: "oai-2", provider: "oai", name: "Spare key", apiKey: "spare-key", priority: 1 });
    laptop = await api(h.server, "POST", "/api/keys", { name: "laptop" });
    for (let turns = 0; turns < 3; turns++) expect(await anthropicMessages(h.server, "anth/m1", { turns })).toBe(200);
    for (let turns = 0; turns < 4; turns++) expect(await openaiChat(h.server, "oai/m1", { turns })).toBe(200);
    for (let turns = 0; turns < 2; turns++) expect(await openaiChat(h.server, "oai/m1", { turns, key: laptop.key, userAgent: "codex_cli_rs/0.171.0" })).toBe(200);
    await openPage(h, "Usage", "Usage");
  });
  afterAll(async () => quotaSim?.close());

  const rowCells = (caption: string | RegExp, name: string) =>
    h.page
      .getByRole("table", { name: caption })
      .getByRole("row")
      .filter({ has: h.page.getByRole("rowheader", { name, exact: true }) })
      .getByRole("cell");
  const legend = () => h.page.getByRole("list", { name: "Series in the usage charts" }).getByRole("listitem").allInnerTexts();

  it("R18.6 totals for today, 7 and 30 days are the request log's sums, with the cache-hit ratio", async () => {
    const sums = sumRows(await allLogRows(h.server));
    expect(sums.requests).toBe(9);
    expect(sums.cacheReadTokens).toBeGreaterThan(0);
    const expected = [formatCount(sums.requests), formatCount(sums.inputTokens), formatCount(sums.outputTokens), formatPercent(cacheHitRatio(sums)), formatUsd(sums.costUsd)];
    for (const period of ["Today", "Last 7 days", "Last 30 days"]) {
      await expect.poll(() => rowCells("Usage today, in the last 7 days and in the last 30 days", period).allInnerTexts(), { timeout: 10_000 }).toEqual(expected);
    }
    expect(await layoutAndLabelProblems(h.page)).toEqual([]);
    await screenshot(h.page, "usage");
  }, 30_000);

  it("R18.6 switching the grouping changes the series legend and what the figures say", async () => {
    const { page } = h;
    await expect.poll(async () => (await legend()).sort(), { timeout: 10_000 }).toEqual(["anth", "oai"]);
    const groupBy = page.getByLabel("Group by");
    const cases: Array<[string, string[]]> = [
      ["connection", ["Claude Max", "Team key"]],
      ["model", ["anth/m1", "oai/m1"]],
      ["client", ["claude-code", "aider", "codex-cli"].sort()],
      ["key", ["laptop", "no key"]],
    ];
    for (const [value, names] of cases) {
      await groupBy.selectOption(value);
      await expect.poll(async () => (await legend()).sort(), { timeout: 10_000 }).toEqual(names);
    }
    const laptopRows = (await allLogRows(h.server)).filter((r) => r.apiKeyId === laptop.id);
    const laptopTokens = laptopRows.reduce((n, r) => n + (r.inputTokens ?? 0) + (r.outputTokens ?? 0), 0);
    const tokens = await page.getByRole("img", { name: /^Tokens per hour: / }).getAttribute("aria-label");
    expect(tokens).toContain(`laptop ${formatCount(laptopTokens)} tokens`);
    const cost = await page.getByRole("img", { name: /^Cost per hour: / }).getAttribute("aria-label");
    expect(cost).toContain(`laptop ${formatUsd(sumRows(laptopRows).costUsd)}`);
    expect(await page.locator("figure.chart .recharts-surface").count()).toBe(2);
    await groupBy.selectOption("provider");
    await expect.poll(async () => (await legend()).sort(), { timeout: 10_000 }).toEqual(["anth", "oai"]);
  }, 30_000);

  it("R18.6 / R18.3 a quota meter shows its share used and a live countdown to its reset", async () => {
    const { page } = h;
    const { items } = await api<{ items: UsageQuotaItem[] }>(h.server, "GET", "/api/usage/quotas");
    const fiveHour = items.find((q) => q.connectionId === "anth-1" && q.window === "5h")!;
    expect(fiveHour.usedPercent).toBeGreaterThan(0);
    const meter = page.getByRole("meter", { name: "Quota Claude Max (anth) · 5h" });
    await meter.waitFor({ timeout: 10_000 });
    expect(Number(await meter.getAttribute("aria-valuenow"))).toBeCloseTo(fiveHour.usedPercent!, 1);
    const words = page.getByRole("list", { name: "Quota windows" }).getByRole("listitem").filter({ hasText: "Claude Max (anth) · 5h" });
    expect(await words.innerText()).toMatch(new RegExp(`${Math.round(fiveHour.usedPercent!)} % used · resets in (4 h 5\\d min|5 h)`));
    // The per-minute request window counts down in seconds, live. Its reset is a minute after the
    // simulator's last answer, which a slow machine may already have passed: one more request
    // starts a fresh minute, and the page follows it (its quota feed is live).
    expect(await anthropicMessages(h.server, "anth/m1", { turns: 0 })).toBe(200);
    const minute = page.getByRole("meter", { name: "Quota Claude Max (anth) · requests" });
    await expect.poll(() => minute.getAttribute("aria-valuetext"), { timeout: 10_000 }).toMatch(/^\d+ % used · 99\d of 1,000 left · resets in \d+ s/);
    const first = await minute.getAttribute("aria-valuetext");
    await expect.poll(() => minute.getAttribute("aria-valuetext"), { timeout: 5_000 }).not.toBe(first);
  }, 30_000);

  it("R18.4 / R18.6 a budget set on a key on the API keys page shows its use there and on the Usage page, live", async () => {
    const { page, server } = h;
    await openPage(h, "API keys", "API keys");
    await page.getByRole("button", { name: "Set the budget of laptop" }).click();
    const form = page.getByRole("form", { name: "Budget of key laptop" });
    await form.getByLabel("Budget period").selectOption("day");
    await form.getByLabel("Max cost (USD)").fill("1");
    await form.getByRole("button", { name: "Save budget" }).click();
    await page.getByText("Budget of laptop saved.").waitFor();
    const saved = (await api<ApiKeyInfo[]>(server, "GET", "/api/keys")).find((k) => k.id === laptop.id)!;
    expect(saved.budget).toEqual({ period: "day", maxCostUsd: 1 });
    const spent = () => allLogRows(server).then((rows) => sumRows(rows.filter((r) => r.apiKeyId === laptop.id)).costUsd);
    const useText = async () => `${formatUsd(await spent())} of $1.00 used today`;
    expect(saved.budgetUsed!.costUsd).toBeCloseTo(await spent(), 9);
    const keyRow = () => rowCells("Client API keys", "laptop");
    await expect.poll(async () => (await keyRow().allInnerTexts())[4], { timeout: 10_000 }).toContain(await useText());
    await screenshot(page, "keys-budget");
    expect(await layoutAndLabelProblems(page)).toEqual([]);

    await openPage(h, "Usage", "Usage");
    const budgetRow = () => rowCells("Budgets and their use this period", "laptop");
    await expect.poll(async () => (await budgetRow().allInnerTexts()).slice(0, 2), { timeout: 10_000 }).toEqual(["API key", "$1.00 per day"]);
    expect((await budgetRow().allInnerTexts())[2]).toContain(await useText());
    expect((await budgetRow().allInnerTexts())[3]).toMatch(/^(\d+ h( \d+ min)?|\d+ min( \d+ s)?)$/);
    expect(await openaiChat(server, "oai/m1", { key: laptop.key, turns: 5 })).toBe(200);
    const after = await useText();
    await expect.poll(async () => (await budgetRow().allInnerTexts())[2], { timeout: 10_000 }).toContain(after);
    // The set-up's 9 requests, the quota meter test's fresh minute and this one.
    await expect.poll(async () => (await rowCells("Usage today, in the last 7 days and in the last 30 days", "Today").allInnerTexts())[0]).toBe("11");
    const meter = page.getByRole("meter", { name: "Budget of laptop" });
    expect(Number(await meter.getAttribute("aria-valuenow"))).toBeCloseTo(Math.round((await spent()) * 1000) / 10, 1);
  }, 30_000);

  it("R18.4 a connection's budget and subscription flag are set in its form; over budget it is skipped and shows in the Cooldown Manager", async () => {
    const { page, server } = h;
    await openPage(h, "Providers & connections", "Providers & connections");
    const edit = async (name: string, fill: (form: ReturnType<typeof page.getByRole>) => Promise<void>) => {
      await page
        .getByRole("row")
        .filter({ has: page.getByRole("rowheader", { name }) })
        .getByRole("button", { name: `Edit ${name}` })
        .click();
      const form = page.getByRole("form", { name: `Edit connection ${name}` });
      await fill(form);
      await form.getByRole("button", { name: "Save connection" }).click();
      await page.getByText(`Connection ${name} saved.`).waitFor();
    };
    await edit("Team key", async (form) => {
      await form.getByLabel("Budget period").selectOption("day");
      await form.getByLabel("Max tokens").fill("1000");
    });
    await edit("Claude Max", (form) => form.getByRole("checkbox", { name: "Flat-rate subscription" }).check());
    const connections = await api<Connection[]>(server, "GET", "/api/connections");
    expect(connections.find((c) => c.id === "oai-1")!.budget).toEqual({ period: "day", maxTokens: 1000 });
    expect(connections.find((c) => c.id === "anth-1")!.subscription).toBe(true);

    const res = await fetch(`${server.base}/v1/chat/completions`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ model: "oai/m1", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.headers.get("x-omniroute-selected-connection-id")).toBe("oai-2");
    await openPage(h, "Cooldown Manager", "Cooldown Manager");
    const row = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "Team key" }) });
    await row.waitFor({ timeout: 10_000 });
    const cells = await row.getByRole("cell").allInnerTexts();
    expect(cells[0]).toBe("Over budget");
    expect(cells[1]).toMatch(/^(\d+ h( \d+ min)?|\d+ min( \d+ s)?|\d+ s)$/);
    expect(cells[3]).toContain("over budget");
    expect(await row.getByRole("button", { name: "Clear Team key" }).isDisabled()).toBe(true);
    await screenshot(page, "cooldowns-budget");

    await openPage(h, "Usage", "Usage");
    await page.getByText("Cost of flat-rate subscriptions (Claude Max) is notional").waitFor({ timeout: 10_000 });
    await rowCells("Budgets and their use this period", "Team key").first().waitFor();
  }, 40_000);

  it("R18.6 the CSV export yields the report's rows", async () => {
    const { page, server } = h;
    await page.getByLabel("Group by").selectOption("model");
    await expect.poll(async () => (await legend()).sort(), { timeout: 10_000 }).toEqual(["anth/m1", "oai/m1"]);
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
    expect(download.suggestedFilename()).toBe("switchyard-usage-model-hour.csv");
    const lines = readFileSync(await download.path(), "utf8")
      .trim()
      .split("\n");
    expect(lines[0]).toBe("time,model,requests,inputTokens,outputTokens,cacheReadTokens,cacheWriteTokens,reasoningTokens,costUsd");
    const report = await api<UsageReport>(server, "GET", "/api/usage?groupBy=model&bucket=hour");
    expect(lines.length - 1).toBe(report.series.reduce((n, s) => n + s.points.length, 0));
    const requests = lines.slice(1).reduce((n, line) => n + Number(line.split(",")[2]), 0);
    expect(requests).toBe(report.totals.requests);
    expect(
      lines
        .slice(1)
        .map((l) => l.split(",")[1])
        .sort(),
    ).toEqual(expect.arrayContaining(["anth/m1", "oai/m1"]));
    await page.getByText(`Downloaded switchyard-usage-model-hour.csv: ${lines.length - 1} row`).waitFor();
  }, 30_000);

  it("R14.2 the Health page still draws its charts, with the charting library", async () => {
    const { page } = h;
    await openPage(h, "Health", "Health");
    const requests = page.getByRole("img", { name: /^Requests per 5 min: / });
    await requests.waitFor({ timeout: 10_000 });
    expect(await requests.getAttribute("aria-label")).toMatch(/^Requests per 5 min: anth 4 requests, oai \d+ requests$/);
    await page.getByRole("img", { name: /^Mean latency: anth \d+ ms mean/ }).waitFor();
    expect(await page.locator("figure.chart .recharts-surface").count()).toBe(3);
    expect(await page.locator("figure.chart .recharts-line").count()).toBeGreaterThanOrEqual(6);
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    expect(h.problems).toEqual([]);
  }, 30_000);
});
