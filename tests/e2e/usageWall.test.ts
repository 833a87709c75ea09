// R12.6 in Chromium: the connection form's Claude section turns on both usage-wall opt-ins, and
// after the simulator puts the account behind the wall the Cooldown Manager shows it in the slow
// lane, with until when, while it keeps serving.
import { describe, expect, it } from "vitest";
import { api, chat, layoutAndLabelProblems, openPage, screenshot, useHarness } from "./harness.js";

describe("Claude usage wall in the dashboard", () => {
  const h = useHarness(async (h) => {
    await api(h.server, "POST", "/api/providers", { id: "claude", format: "anthropic", baseUrl: h.sim.url, category: "oauth", models: ["m1"] });
    await api(h.server, "POST", "/api/connections", { id: "cl-1", provider: "claude", name: "Claude account", apiKey: "claude-key" });
    await api(h.server, "POST", "/api/providers", { id: "plain", format: "openai", baseUrl: `${h.sim.url}/v1`, category: "apikey", models: ["m1"] });
    await api(h.server, "POST", "/api/connections", { id: "pl-1", provider: "plain", name: "Plain key", apiKey: "plain-key" });
    await openPage(h, "Providers & connections", "Providers & connections");
  });

  it("R12.6 the Claude section of the connection form saves lowPriorityMode and autoLimitReset; other providers have no such section", async () => {
    const { page, server } = h;
    const plainRow = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "Plain key" }) });
    await plainRow.getByRole("button", { name: "Edit Plain key" }).click();
    const plain = page.getByRole("form", { name: "Edit connection Plain key" });
    await plain.getByLabel("Priority").waitFor();
    expect(await plain.getByRole("group", { name: "Claude subscription usage wall" }).count()).toBe(0);
    await plain.getByRole("button", { name: "Cancel" }).click();

    const row = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "Claude account" }) });
    await row.getByRole("button", { name: "Edit Claude account" }).click();
    const form = page.getByRole("form", { name: "Edit connection Claude account" });
    const claude = form.getByRole("group", { name: "Claude subscription usage wall" });
    await claude.getByRole("checkbox", { name: "Low-priority lane at the usage wall" }).check();
    await claude.getByRole("checkbox", { name: "Reset the session limit at the wall" }).check();
    await claude.getByLabel("Organization UUID").fill("org-e2e");
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    await screenshot(page, "connection-claude-section");
    await form.getByRole("button", { name: "Save connection" }).click();
    await page.getByText("Connection Claude account saved.").waitFor();
    const saved = await api<{ providerSpecificData: Record<string, unknown> }>(server, "GET", "/api/connections/cl-1");
    expect(saved.providerSpecificData).toMatchObject({ lowPriorityMode: true, autoLimitReset: true, organizationUUID: "org-e2e" });
  }, 30_000);

  it("R12.6 an account in the slow lane shows in the Cooldown Manager with until when, and is not offered for clearing", async () => {
    const { page, server, sim } = h;
    const resetAt = Math.floor(Date.now() / 1000) + 3_600;
    sim.setUsageWall("claude-key", { resetAt });
    expect((await chat(server, "claude/m1")).status).toBe(200);
    expect(sim.requests.filter((r) => r.key === "claude-key").map((r) => r.headers["anthropic-usage-limit"] ?? null)).toEqual([null, "slow"]);

    await openPage(h, "Cooldown Manager", "Cooldown Manager");
    const row = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "Claude account" }) });
    await row.waitFor({ timeout: 10_000 });
    const until = await page.evaluate((at) => new Date(at).toLocaleTimeString(), resetAt * 1000 + 60_000);
    const status = (await row.getByRole("cell").first().innerText()).replace(/\s+/g, " ").trim();
    expect(status.startsWith("Slow lane until ")).toBe(true);
    expect(status.slice("Slow lane until ".length)).toBe(until);
    expect(await row.getByRole("button", { name: "Clear Claude account" }).isDisabled()).toBe(true);
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    await screenshot(page, "cooldowns-slow-lane");
  }, 30_000);
});
