// Issue 8 item 6 in Chromium: a setting the server stores but no code acts on yet is marked
// "not active yet" where the dashboard shows it (the title names the feature that will make it
// live), and a live setting next to it carries no such mark. Issue 26 made the last one, a
// connection's weight, live.
import type { Locator } from "playwright-core";
import { describe, expect, it } from "vitest";
import { addSimProvider, chat, layoutAndLabelProblems, openPage, screenshot, useHarness } from "./harness.js";

/** The text a screen reader announces with a control: what its aria-describedby points at. */
function description(control: Locator): Promise<string> {
  return control.evaluate((el) =>
    (el.getAttribute("aria-describedby") ?? "")
      .split(" ")
      .map((id) => document.getElementById(id)?.textContent ?? "")
      .join(" "),
  );
}

describe("settings no code acts on yet", () => {
  const h = useHarness(async (h) => {
    await addSimProvider(h.server, h.sim, "sim-a", [{ id: "a-1", name: "Key A", key: "ka" }]);
    await addSimProvider(h.server, h.sim, "sim-b", [{ id: "b-1", name: "Key B", key: "kb" }]);
    await openPage(h, "Resilience settings", "Resilience settings");
  });

  it("Resilience settings: no field is marked now that issues 9–11 made combo waits, p2c, the request queue and mid-stream continuation live", async () => {
    const { page } = h;
    await page.getByRole("region", { name: "Stream recovery and watchdogs" }).getByRole("checkbox", { name: "Continue mid-stream" }).waitFor();
    expect(await page.getByText("not active yet").count()).toBe(0);
    for (const title of ["Request queue", "Stream recovery and watchdogs", "Provider circuit breakers", "Connection cooldown", "Combo cooldown wait", "Latency-aware balancing"]) {
      expect(await page.getByRole("region", { name: title }).getByText("not active yet").count()).toBe(0);
    }

    const streams = page.getByRole("region", { name: "Stream recovery and watchdogs" });
    await streams.getByRole("checkbox", { name: "Continue mid-stream" }).waitFor();
    expect(await description(streams.getByRole("checkbox", { name: "Continue mid-stream" }))).not.toContain("not active yet");
    expect(await description(streams.getByRole("checkbox", { name: "Recover before the first byte" }))).not.toContain("not active yet");
    expect(await streams.getByText("not active yet").count()).toBe(0);
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    await screenshot(page, "not-active-yet-settings");
  }, 30_000);

  it("Combos: the select offers all 20 strategies with no mark, and a weighted 1:99 combo sends nearly every request to the heavy target", async () => {
    const { page, server } = h;
    await openPage(h, "Combos", "Combos");
    await page.getByRole("button", { name: "New combo" }).click();
    const form = page.getByRole("form", { name: "New combo" });
    const strategy = form.getByLabel("Strategy");
    const options = await strategy.locator("option").allInnerTexts();
    expect(options).toHaveLength(20);
    expect(options.filter((o) => o.includes("not active yet"))).toEqual([]);

    await strategy.selectOption("weighted");
    expect(await description(strategy)).not.toContain("not active yet");
    expect(await description(form.getByRole("checkbox", { name: "Wait for a cooling target" }))).not.toContain("not active yet");
    await form.getByLabel("Combo name").fill("spread");
    await form.getByLabel("Target 1 model").fill("sim-b/m1");
    await form.getByLabel("Target 1 weight").fill("1");
    await form.getByRole("button", { name: "Add target" }).click();
    await form.getByLabel("Target 2 model").fill("sim-a/m1");
    await form.getByLabel("Target 2 weight").fill("99");
    expect(await description(form.getByLabel("Target 2 weight"))).not.toContain("not active yet");
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    await form.getByRole("button", { name: "Create combo" }).click();

    const card = page.getByRole("region", { name: "spread" });
    await card.getByText("weighted", { exact: true }).waitFor();
    expect(await card.getByText("not active yet", { exact: true }).count()).toBe(0);
    // What the form says is what happens: the weights decide, not the order.
    const served: Array<string | null> = [];
    for (let i = 0; i < 10; i++) served.push((await chat(server, "spread")).connection);
    expect(served.filter((c) => c === "a-1").length).toBeGreaterThanOrEqual(8);
    expect(h.problems).toEqual([]);
  }, 30_000);

  it("Issue 26: a connection's Weight carries no mark, and a weight of 0 set in the form makes that key a standby", async () => {
    const { page, server } = h;
    await openPage(h, "Providers & connections", "Providers & connections");
    await page.getByRole("button", { name: "Add connection to sim-a" }).click();
    const form = page.getByRole("form", { name: "Add a connection to sim-a" });
    expect(await description(form.getByLabel("Weight"))).not.toContain("not active yet");
    expect(await form.getByText("not active yet").count()).toBe(0);
    await form.getByLabel("Connection name").fill("Key A2");
    await form.getByLabel("API key").fill("ka2");
    await form.getByLabel("Priority").fill("0");
    await form.getByRole("button", { name: "Add connection" }).click();
    const row = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "Key A", exact: true }) });
    await row.getByRole("button", { name: "Edit Key A" }).click();
    const edit = page.getByRole("form", { name: "Edit connection Key A" });
    await edit.getByLabel("Weight").fill("0");
    await edit.getByRole("button", { name: "Save connection" }).click();
    await page.getByText("Connection Key A saved.").waitFor();
    // What the form says is what happens: the standby serves nothing while Key A2 is eligible.
    const served = new Set<string | null>();
    for (let i = 0; i < 5; i++) served.add((await chat(server, "sim-a/m1")).connection);
    expect(served.has("a-1")).toBe(false);
    expect(served.size).toBe(1);
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    expect(h.problems).toEqual([]);
  }, 30_000);
});
