// R6 / D6 / R12.4 / R14.2 in Chromium: connections rate-limited and exhausted by the simulator
// appear in the Cooldown Manager with live countdowns; the user clears one, a selection and a
// provider; terminal states cannot be cleared; the cooldown rules and error rules are edited.
import { describe, expect, it } from "vitest";
import { addSimProvider, api, chat, layoutAndLabelProblems, openPage, screenshot, useHarness } from "./harness.js";

describe("Cooldown Manager", () => {
  const h = useHarness(async (h) => {
    await addSimProvider(h.server, h.sim, "sim", [
      { id: "c-a", name: "Key A", key: "ka" },
      { id: "c-b", name: "Key B", key: "kb" },
      { id: "c-c", name: "Key C", key: "kc" },
    ]);
    await openPage(h, "Cooldown Manager", "Cooldown Manager");
  });

  it("R6.1 shows the empty state first, then rate-limited and terminal connections live, without a reload", async () => {
    const { page, server, sim } = h;
    await page.getByRole("heading", { name: "Every connection is in routing" }).waitFor();
    await page.evaluate(() => ((window as unknown as { __noReload?: boolean }).__noReload = true));
    sim.addFault("ka", { status: 429, retryAfter: 120, times: 1 });
    expect((await chat(server, "sim/m1")).status).toBe(200);
    sim.addFault("kb", { status: 429, retryAfter: 300, times: 1 });
    expect((await chat(server, "sim/m1")).status).toBe(200);
    sim.addFault("kc", { status: 402, times: 1 });
    expect((await chat(server, "sim/m1")).status).toBe(402);

    const rowA = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "Key A" }) });
    await rowA.waitFor({ timeout: 10_000 });
    const cells = await rowA.getByRole("cell").allInnerTexts();
    expect(cells[0]).toBe("Cooling down");
    expect(cells[1]).toMatch(/^(2 min|1 min 5\d s)$/);
    expect(cells[2]).toBe("0");
    expect(cells[3]).toBe("rate_limit");
    const rowC = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "Key C" }) });
    await rowC.waitFor();
    expect(await rowC.getByRole("cell").first().innerText()).toBe("Credits exhausted");
    expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
  }, 30_000);

  it("R6.1 counts down every second locally", async () => {
    const cell = h.page
      .getByRole("row")
      .filter({ has: h.page.getByRole("rowheader", { name: "Key B" }) })
      .getByRole("cell")
      .nth(1);
    const first = await cell.innerText();
    await expect.poll(() => cell.innerText(), { timeout: 3_000, interval: 200 }).not.toBe(first);
    expect(await cell.innerText()).toMatch(/^4 min 5\d s$/);
  }, 30_000);

  it("R4.6 a terminal connection is listed but its clear control is disabled, with the reason", async () => {
    const { page } = h;
    const clearC = page.getByRole("button", { name: "Clear Key C" });
    expect(await clearC.isDisabled()).toBe(true);
    expect(await clearC.getAttribute("aria-describedby")).toBeTruthy();
    await page.getByText("Not a cooldown: replace the key on the Providers page.").waitFor();
    expect(await page.getByRole("checkbox", { name: "Key C" }).isDisabled()).toBe(true);
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    await screenshot(page, "cooldowns");
  }, 30_000);

  it("R6.2 clearing one connection removes it and shows the result counts", async () => {
    const { page } = h;
    await page.getByRole("button", { name: "Clear Key A" }).click();
    await page.getByRole("rowheader", { name: "Key A" }).waitFor({ state: "detached", timeout: 10_000 });
    await page.getByRole("status").filter({ hasText: "Cleared Key A" }).waitFor();
    expect(await page.getByRole("status").filter({ hasText: "Cleared Key A" }).innerText()).toContain("1 cleared · 0 unchanged · 0 skipped (terminal) · 0 model lockouts cleared");
    expect(await chat(h.server, "sim/m1")).toMatchObject({ status: 200, connection: "c-a" });
  }, 30_000);

  it("R6.2 clears a selection, then a whole provider where the terminal one is skipped", async () => {
    const { page, sim, server } = h;
    await page.getByRole("checkbox", { name: "Key B" }).check();
    await page.getByRole("button", { name: "Clear selected (1)" }).click();
    await page.getByRole("rowheader", { name: "Key B" }).waitFor({ state: "detached", timeout: 10_000 });
    await page.getByRole("status").filter({ hasText: "Cleared 1 selected: 1 cleared · 0 unchanged" }).waitFor();

    sim.addFault("ka", { status: 429, retryAfter: 60, times: 1 });
    expect((await chat(server, "sim/m1")).status).toBe(200);
    await page.getByRole("rowheader", { name: "Key A" }).waitFor({ timeout: 10_000 });
    await page.getByRole("button", { name: "Clear all of sim" }).click();
    await page.getByRole("rowheader", { name: "Key A" }).waitFor({ state: "detached", timeout: 10_000 });
    const status = page.getByRole("status").filter({ hasText: "Cleared all of sim" });
    expect(await status.innerText()).toContain("1 cleared · 1 unchanged · 1 skipped (terminal)");
    await page.getByRole("rowheader", { name: "Key C" }).waitFor();
  }, 30_000);

  it("R6.3 edits the cooldown rules: the API key base cooldown is saved and reported", async () => {
    const { page, server } = h;
    const card = page.getByRole("region", { name: "Cooldown rules" });
    await card.getByLabel("API key: base cooldown", { exact: true }).fill("50");
    await card.getByLabel("Cool a connection after a stream stall").check();
    await card.getByRole("button", { name: "Save cooldown rules" }).click();
    await card.getByText("you entered 50 ms, saved 100 ms").waitFor();
    const saved = await api<{ connectionCooldown: { apikey: { baseCooldownMs: number } }; streamStallCooldown: { enabled: boolean } }>(server, "GET", "/api/resilience");
    expect(saved.connectionCooldown.apikey.baseCooldownMs).toBe(100);
    expect(saved.streamStallCooldown.enabled).toBe(true);
    expect(await card.getByLabel("API key: base cooldown", { exact: true }).inputValue()).toBe("100");
  }, 30_000);

  it("R12.4 adds an error rule; the server's validation error is shown next to its field", async () => {
    const { page, server } = h;
    const form = page.getByRole("form", { name: "Add an error rule" });
    await form.getByLabel("Rule provider").fill("sim");
    await form.getByRole("button", { name: "Add rule" }).click();
    await form.getByText("a rule needs a status, a match, or both").waitFor();
    const status = form.getByLabel("HTTP status");
    expect(await status.getAttribute("aria-invalid")).toBe("true");
    expect(await status.getAttribute("aria-describedby")).toContain(await form.getByText("a rule needs a status, a match, or both").getAttribute("id"));

    await form.getByLabel("Rule cooldown", { exact: true }).selectOption("custom");
    await form.getByLabel("Rule cooldown: minutes").fill("50000");
    await status.fill("429");
    await form.getByRole("button", { name: "Add rule" }).click();
    await form.getByText("enter whole minutes from 1 to 43,200").waitFor();

    await form.getByLabel("Rule cooldown: minutes").fill("90");
    await form.getByLabel("Body contains").fill("quota");
    await form.getByRole("button", { name: "Add rule" }).click();
    await form.getByText("Rule for sim added.").waitFor();
    const row = page
      .getByRole("row")
      .filter({ has: page.getByRole("rowheader", { name: "sim" }) })
      .first();
    expect(await row.getByRole("cell").allInnerTexts()).toEqual(["1", "429", "quota", "connection", "—", "90 min", "Remove rule 1"]);
    const settings = await api<{ providerErrorRules: unknown[] }>(server, "GET", "/api/settings");
    expect(settings.providerErrorRules).toEqual([{ provider: "sim", status: 429, match: "quota", scope: "connection", cooldownMs: 5_400_000 }]);

    const defaults = page.getByRole("form", { name: "Set a per-provider default" });
    await defaults.getByLabel("Default provider").fill("sim");
    await defaults.getByLabel("Default cooldown").selectOption("5h");
    await defaults.getByRole("button", { name: "Save default" }).click();
    await defaults.getByText("Default for sim saved.").waitFor();
    expect((await api<{ providerErrorDefaults: unknown }>(server, "GET", "/api/settings")).providerErrorDefaults).toEqual({ sim: { cooldownMs: 18_000_000, scope: "connection" } });
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    expect(h.problems).toEqual([]);
  }, 30_000);
});
