// R21.5 in Chromium: the Resilience page's "Billing boundary" card shows each traffic class's choice
// (the defaults: cross, cross, stay, cross, cross), saves a change through its select, and the API
// and a reload show it; an invalid choice sent to the API is refused and nothing changes.
import { describe, expect, it } from "vitest";
import type { ResilienceSettings } from "../../shared/resilienceSettings.js";
import { api, layoutAndLabelProblems, openPage, screenshot, useHarness } from "./harness.js";

describe("billing boundary on the dashboard", () => {
  const h = useHarness(async () => {});
  const settings = () => api<ResilienceSettings>(h.server, "GET", "/api/resilience");

  it("R21.5 the Billing boundary card saves a class's choice; the API and a reload show it", async () => {
    const { page } = h;
    expect((await settings()).billingBoundary).toEqual({ main: "cross", subagent: "cross", background: "stay", compaction: "cross", count: "cross" });
    await openPage(h, "Resilience settings", "Resilience settings");
    const card = page.getByRole("region", { name: "Billing boundary" });
    const main = card.getByLabel("Main turns", { exact: true });
    const background = card.getByLabel("Background work (titles, suggestions)", { exact: true });
    expect(await main.inputValue()).toBe("cross");
    expect(await background.inputValue()).toBe("stay");
    expect(await main.locator("option").allInnerTexts()).toEqual(["cross", "wait", "stay"]);

    await main.selectOption("wait");
    await card.getByRole("button", { name: "Save billing boundary" }).click();
    await card.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    expect((await settings()).billingBoundary.main).toBe("wait");
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    await card.scrollIntoViewIfNeeded();
    await screenshot(page, "resilience-billing-boundary");

    await page.reload();
    await page.getByRole("heading", { name: "Resilience settings", level: 1 }).waitFor();
    await expect.poll(() => main.inputValue(), { timeout: 10_000 }).toBe("wait");
    expect(h.problems).toEqual([]);
  }, 30_000);

  it("R21.5 R10.1 a choice outside cross|wait|stay is a 400 naming the field, and nothing is saved", async () => {
    const res = await fetch(`${h.server.base}/api/resilience`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${h.server.token}`, "content-type": "application/json" },
      body: JSON.stringify({ billingBoundary: { background: "sometimes" } }),
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain("billingBoundary.background");
    expect((await settings()).billingBoundary.background).toBe("stay");
  });
});
