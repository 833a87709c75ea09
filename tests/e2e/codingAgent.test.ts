// R20 in Chromium: the Resilience page's "Coding agents" card saves wait-or-switch and traffic
// class settings (the API and a reload show them); a Claude Code request sent twice with a long
// cache_control system prompt shows, in the request log, its traffic class and, in its timeline,
// the class and the share of the prompt the simulator read from its cache; the Usage page groups
// by traffic class.
import { describe, expect, it } from "vitest";
import type { ResilienceSettings } from "../../shared/resilienceSettings.js";
import { formatPercent } from "../../shared/usageText.js";
import { api, layoutAndLabelProblems, openPage, screenshot, useHarness } from "./harness.js";
import { allLogRows, anthropicMessages } from "./usageTraffic.js";

describe("coding agents on the dashboard", () => {
  const h = useHarness(async (h) => {
    await api(h.server, "POST", "/api/providers", { id: "anth", format: "anthropic", baseUrl: h.sim.url, category: "apikey", models: ["m1"] });
    await api(h.server, "POST", "/api/connections", { id: "anth-1", provider: "anth", name: "Claude Max", apiKey: "claude-key" });
    // The first turn writes its long, cache_control-marked prompt to the key's cache; the next turn reads that prefix.
    for (let turns = 0; turns < 2; turns++) expect(await anthropicMessages(h.server, "anth/m1", { turns })).toBe(200);
  });

  const settings = () => api<ResilienceSettings>(h.server, "GET", "/api/resilience");

  it("R20.4 R20.3 the Coding agents card saves the longest warm wait and the traffic-class switch; the API and a reload show them", async () => {
    const { page } = h;
    await openPage(h, "Resilience settings", "Resilience settings");
    const card = page.getByRole("region", { name: "Coding agents" });
    const maxWait = card.getByLabel("Longest wait for the warm connection", { exact: true });
    const classes = card.getByLabel("Background work yields first under pressure", { exact: true });
    expect(await maxWait.inputValue()).toBe("8000");
    expect(await classes.isChecked()).toBe(true);
    await card.getByText("0–300,000 ms").waitFor();
    await card.getByText(/0–1,000 · concurrency slots per connection/).waitFor();
    for (const label of ["Remove reasoning another connection issued", "Slots kept for main turns", "Wait on the warm connection at a short 429"]) {
      await card.getByLabel(label, { exact: true }).waitFor();
    }

    await maxWait.fill("3000");
    await classes.uncheck();
    await card.getByRole("button", { name: "Save coding agents" }).click();
    await card.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    const saved = await settings();
    expect(saved.waitOrSwitch).toEqual({ enabled: true, maxWaitMs: 3_000 });
    expect(saved.trafficClasses).toEqual({ enabled: false, mainHeadroom: 1 });
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    await screenshot(page, "resilience-coding-agents");

    await page.reload();
    await page.getByRole("heading", { name: "Resilience settings", level: 1 }).waitFor();
    await expect.poll(() => maxWait.inputValue(), { timeout: 10_000 }).toBe("3000");
    expect(await classes.isChecked()).toBe(false);
    // Put the class back on, so the requests below are handled as by default.
    await classes.check();
    await card.getByRole("button", { name: "Save coding agents" }).click();
    await card.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    expect((await settings()).trafficClasses.enabled).toBe(true);
    expect(h.problems).toEqual([]);
  }, 30_000);

  it("R20.2 R20.3 the timeline shows the cache-read share of a request that read the cache, and the log and the timeline its traffic class", async () => {
    const { page, server } = h;
    const [second, first] = await allLogRows(server);
    expect(first.cacheReadTokens ?? 0).toBe(0);
    expect(second.cacheReadTokens).toBeGreaterThan(1_000);
    expect(second.cacheReadShare).toBeCloseTo(second.cacheReadTokens! / second.inputTokens!, 3);
    const share = formatPercent(second.cacheReadShare!);
    expect(second.cacheReadShare).toBeGreaterThan(0.5);
    expect(second.cacheReadShare).toBeLessThan(1);

    await openPage(h, "Request log", "Request log");
    const rows = page.getByRole("table").getByRole("row");
    await expect.poll(async () => (await rows.allInnerTexts()).length, { timeout: 10_000 }).toBe(3);
    await rows
      .nth(1)
      .getByRole("button", { name: /open its timeline/ })
      .click();
    const steps = page.getByRole("region", { name: "Why this request went where it went" }).getByRole("list", { name: "Timeline" });
    await steps.getByText(`Cache-read share ${share}: of the prompt, what the upstream read from its cache`).waitFor();
    // Nothing moved, waited or was stripped: no such marks.
    expect(await steps.getByText(/Warm session moved|Waited .* on|Switched away|reasoning artifact/).count()).toBe(0);
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    await screenshot(page, "request-timeline-coding-agent");

    // The class (the gateway's R20.3 classifier): Claude Code's own turn is main.
    expect(second.trafficClass).toBe("main");
    // Cells after the model's row header: time, served by, status, latency, attempts, class, client.
    expect((await rows.nth(1).getByRole("cell").allInnerTexts())[5]).toBe("main");
    await steps.getByText("Traffic class main: the turn the user waits for").waitFor();
    expect(h.problems).toEqual([]);
  }, 30_000);

  it("R20.3 the Usage page grouped by traffic class lists main", async () => {
    const { page } = h;
    await openPage(h, "Usage", "Usage");
    const legend = () => page.getByRole("list", { name: "Series in the usage charts" }).getByRole("listitem").allInnerTexts();
    await expect.poll(legend, { timeout: 10_000 }).toEqual(["anth"]);
    await page.getByLabel("Group by").selectOption({ label: "Traffic class" });
    await expect.poll(legend, { timeout: 10_000 }).toEqual(["main"]);
    expect(await page.getByRole("img", { name: /^Tokens per hour: / }).getAttribute("aria-label")).toMatch(/^Tokens per hour: main [\d,]+ tokens/);
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    expect(h.problems).toEqual([]);
  }, 30_000);
});
