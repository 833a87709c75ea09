// Issue 9 item 8 in Chromium: the combo form explains the chosen strategy in one line, and each
// combo card shows which target served its last requests, kept current by live events.
import { describe, expect, it } from "vitest";
import { STRATEGY_SUMMARIES } from "../../shared/catalog.js";
import { addSimProvider, api, chat, layoutAndLabelProblems, openPage, screenshot, useHarness } from "./harness.js";

describe("combo page: strategies and recent traffic", () => {
  const h = useHarness(async (h) => {
    await addSimProvider(h.server, h.sim, "sim-a", [{ id: "a-1", name: "Key A", key: "ka" }]);
    await addSimProvider(h.server, h.sim, "sim-b", [{ id: "b-1", name: "Key B", key: "kb" }]);
    await api(h.server, "POST", "/api/combos", { name: "duo", targets: [{ model: "sim-a/m1" }, { model: "sim-b/m1" }] });
    await api(h.server, "POST", "/api/combos", { name: "quiet", strategy: "round-robin", targets: [{ model: "sim-b/m1" }, { model: "sim-a/m1" }] });
    for (let i = 0; i < 34; i++) expect((await chat(h.server, "duo")).connection).toBe("a-1");
    // sim-a is rate limited for an hour: the rest of the combo's traffic fails over to sim-b.
    h.sim.addFault("ka", { status: 429, retryAfter: 3600, times: 1 });
    for (let i = 0; i < 16; i++) expect((await chat(h.server, "duo")).connection).toBe("b-1");
    await chat(h.server, "sim-a/m1");
  });

  it("the combo card counts, per target, who served the combo's last 50 requests, and follows new ones live", async () => {
    const { page, server } = h;
    await openPage(h, "Combos", "Combos");
    const card = page.getByRole("region", { name: "duo" });
    await card.getByRole("heading", { name: "Last 50 requests: who served them" }).waitFor();
    const rows = card.getByRole("list", { name: "Targets that served duo" }).getByRole("listitem");
    expect(await rows.allInnerTexts()).toEqual([expect.stringMatching(/sim-a\/m1\s+34 \(68 %\)/), expect.stringMatching(/sim-b\/m1\s+16 \(32 %\)/)]);
    expect(await card.getByText(STRATEGY_SUMMARIES.priority).count()).toBe(1);
    const quiet = page.getByRole("region", { name: "quiet" });
    await quiet.getByRole("heading", { name: "No requests yet" }).waitFor();
    expect(await quiet.getByText(STRATEGY_SUMMARIES["round-robin"]).count()).toBe(1);
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    await screenshot(page, "combos");

    // A new request joins the window live; the oldest (a sim-a one) leaves it.
    expect((await chat(server, "duo")).connection).toBe("b-1");
    await rows.filter({ hasText: "sim-b/m1" }).filter({ hasText: "17 (34 %)" }).waitFor();
    expect(await rows.filter({ hasText: "sim-a/m1" }).innerText()).toMatch(/33 \(66 %\)/);
    expect(h.problems).toEqual([]);
  }, 60_000);

  it("the combo form explains the chosen strategy in one line under the select", async () => {
    const { page } = h;
    await openPage(h, "Combos", "Combos");
    await page.getByRole("button", { name: "New combo" }).click();
    const form = page.getByRole("form", { name: "New combo" });
    const strategy = form.getByLabel("Strategy");
    const hint = () =>
      strategy.evaluate((el) =>
        (el.getAttribute("aria-describedby") ?? "")
          .split(" ")
          .map((id) => document.getElementById(id)?.textContent ?? "")
          .join(" "),
      );
    expect(await hint()).toContain(STRATEGY_SUMMARIES.priority);
    for (const name of ["round-robin", "least-used", "cost-optimized"] as const) {
      await strategy.selectOption(name);
      expect(await hint()).toContain(STRATEGY_SUMMARIES[name]);
    }
    await form.getByRole("button", { name: "Cancel" }).click();
  }, 30_000);
});
