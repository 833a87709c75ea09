// R14.2 / R11.1 / R1.7 in Chromium: a provider and a connection are added through the forms and
// tested (the key is never shown back); a combo is created in the UI, reordered with the keyboard
// buttons and by dragging, and then serves a request; an API key is created and shown once.
import { describe, expect, it } from "vitest";
import type { Combo } from "../../shared/types.js";
import { addSimProvider, api, chat, layoutAndLabelProblems, openPage, screenshot, useHarness } from "./harness.js";

const SECRET = "sk-ui-secret-0123456789";

describe("providers, combos and API keys", () => {
  const h = useHarness(async (h) => {
    await addSimProvider(h.server, h.sim, "sim-b", [{ id: "b-1", name: "Backup key", key: "kb1" }]);
    await openPage(h, "Providers & connections", "Providers & connections");
  });

  it("R14.2 adds a provider through the form; a server validation error lands next to its field", async () => {
    const { page } = h;
    await page.getByRole("button", { name: "Add provider" }).click();
    const form = page.getByRole("form", { name: "Add a provider" });
    await form.getByLabel("Provider ID").fill("sim/a");
    await form.getByLabel("Base URL").fill(`${h.sim.url}/v1`);
    await form.getByRole("button", { name: "Add provider" }).click();
    const idError = form.getByText("must be letters, digits, '.', '_' or '-' (no '/')");
    await idError.waitFor();
    expect(await form.getByLabel("Provider ID").getAttribute("aria-invalid")).toBe("true");

    await form.getByLabel("Provider ID").fill("sim-a");
    await form.getByLabel("Wire format").selectOption("openai");
    await form.getByLabel("Category").selectOption("apikey");
    await form.getByLabel("Models").fill("m1, m2");
    await form.getByRole("button", { name: "Add provider" }).click();
    await page.getByRole("heading", { name: "sim-a", level: 2 }).waitFor();
    await page.getByText("Provider sim-a added.").waitFor();
  }, 30_000);

  it("R14.2 adds a connection with a write-only key, tests it, and never shows the key", async () => {
    const { page, server } = h;
    await page.getByRole("button", { name: "Add connection to sim-a" }).click();
    const form = page.getByRole("form", { name: "Add a connection to sim-a" });
    await form.getByLabel("Connection name").fill("UI key");
    const secret = form.getByLabel("API key");
    expect(await secret.getAttribute("type")).toBe("password");
    await secret.fill(SECRET);
    await form.getByRole("button", { name: "Add connection" }).click();
    const row = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "UI key" }) });
    await row.waitFor();
    expect((await row.getByRole("cell").allInnerTexts()).slice(0, 4)).toEqual(["Active", "0", "Yes", "Set"]);

    await row.getByRole("button", { name: "Test UI key" }).click();
    await page.getByText(/^Test of UI key passed in \d+ ms\.$/).waitFor({ timeout: 10_000 });
    expect(h.sim.requests.at(-1)?.key).toBe(SECRET);

    await row.getByRole("button", { name: "Edit UI key" }).click();
    const edit = page.getByRole("form", { name: "Edit connection UI key" });
    expect(await edit.getByLabel("API key").inputValue()).toBe("");
    await edit.getByText("A key is stored and never shown; type a new one to replace it").waitFor();
    await edit.getByLabel("Priority").fill("3");
    await edit.getByRole("button", { name: "Save connection" }).click();
    await page.getByText("Connection UI key saved.").waitFor();
    // The message shows as soon as the save answers; the table re-renders from the refreshed list after it.
    await expect.poll(async () => (await row.getByRole("cell").allInnerTexts())[1]).toBe("3");

    expect(await page.content()).not.toContain(SECRET);
    const listed = JSON.stringify(await api(server, "GET", "/api/connections"));
    expect(listed).not.toContain(SECRET);
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    await screenshot(page, "providers");
  }, 30_000);

  it("R14.2 a failing test shows the upstream's error where the test was started", async () => {
    const { page, sim } = h;
    sim.addFault(SECRET, { status: 401, times: 1 });
    await page.getByRole("button", { name: "Test UI key" }).click();
    await page.getByText(/^Test of UI key failed: upstream answered 401/).waitFor({ timeout: 10_000 });
  }, 30_000);

  it("R11.1 creates a priority combo in the UI (the select lists all 20 stored strategy names), reorders its targets, and a request uses it", async () => {
    const { page, server } = h;
    await openPage(h, "Combos", "Combos");
    await page.getByRole("heading", { name: "No combos yet" }).waitFor();
    await page.getByRole("button", { name: "New combo" }).click();
    const form = page.getByRole("form", { name: "New combo" });
    expect(await form.getByLabel("Strategy").locator("option").count()).toBe(20);
    await form.getByLabel("Combo name").fill("fast");
    await form.getByLabel("Strategy").selectOption("priority");
    await form.getByLabel("Target 1 model").fill("sim-a/m1");
    await form.getByRole("button", { name: "Add target" }).click();
    await form.getByLabel("Target 2 model").fill("sim-b/m1");
    await form.getByRole("button", { name: "Add target" }).click();
    await form.getByLabel("Target 3 model").fill("sim-a/m2");

    // Keyboard-accessible reordering: focus follows the moved row (to "down" once "up" is disabled at the top).
    await form.getByRole("button", { name: "Move sim-b/m1 up" }).click();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Move sim-b/m1 down");
    await page.getByText("sim-b/m1 moved to position 1 of 3.").waitFor();
    // Drag the last target (sim-a/m2) onto the second row.
    await form.getByTestId("drag-2").dragTo(form.locator("li").nth(1));
    const order = async () => Promise.all([1, 2, 3].map((n) => form.getByLabel(`Target ${n} model`).inputValue()));
    expect(await order()).toEqual(["sim-b/m1", "sim-a/m2", "sim-a/m1"]);
    await form.getByLabel("Target 1 connection").selectOption({ label: "Backup key" });
    await form.getByRole("button", { name: "Create combo" }).click();

    await page.getByRole("heading", { name: "fast", level: 2 }).waitFor();
    const combo = (await api<Combo[]>(server, "GET", "/api/combos"))[0];
    expect(combo).toMatchObject({ name: "fast", strategy: "priority", targets: [{ model: "sim-b/m1", connectionId: "b-1" }, { model: "sim-a/m2" }, { model: "sim-a/m1" }] });
    expect(await chat(server, "fast")).toMatchObject({ status: 200, connection: "b-1" });
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    await screenshot(page, "combos");
  }, 30_000);

  it("R11.1 edits the combo's order with the buttons and the next request follows it", async () => {
    const { page, server } = h;
    await page.getByRole("button", { name: "Edit combo fast" }).click();
    const form = page.getByRole("form", { name: "Edit combo fast" });
    await form.getByRole("button", { name: "Move sim-a/m1 up" }).focus();
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Move sim-a/m1 up");
    await page.keyboard.press("Enter");
    await form.getByRole("button", { name: "Save combo" }).click();
    await page.getByText("Combo fast saved.", { exact: false }).waitFor();
    const uiKey = (await api<Array<{ id: string; name: string }>>(server, "GET", "/api/connections")).find((c) => c.name === "UI key")!;
    expect(await chat(server, "fast")).toMatchObject({ status: 200, connection: uiKey.id });
    const combo = (await api<Combo[]>(server, "GET", "/api/combos"))[0];
    expect(combo.targets.map((t) => t.model)).toEqual(["sim-a/m1", "sim-b/m1", "sim-a/m2"]);
    expect(h.sim.requests.at(-1)).toMatchObject({ model: "m1", key: SECRET });
  }, 30_000);

  it("R1.7 creates an API key that is shown once with a copy button, then only its prefix", async () => {
    const { page, server, context } = h;
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.base });
    await openPage(h, "API keys", "API keys");
    await page.getByText("No keys yet.").waitFor();
    await page.getByLabel("Key name").fill("laptop aider");
    await page.getByRole("button", { name: "Create key" }).click();
    const shown = page.getByLabel("The new API key");
    await shown.waitFor();
    const key = await shown.innerText();
    expect(key).toMatch(/^sk-sy-/);
    await page.getByRole("button", { name: "Copy key" }).click();
    await page.getByText("Copied to the clipboard.").waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    const row = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "laptop aider" }) });
    await row.waitFor();
    const prefix = (await row.getByRole("cell").first().innerText()).replace(/…$/, "");
    expect(key.startsWith(prefix) && prefix.length >= 6 && prefix.length < key.length).toBe(true);
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    await screenshot(page, "keys");

    await page.getByRole("button", { name: "I have saved it" }).click();
    expect(await page.content()).not.toContain(key);
    expect(JSON.stringify(await api(server, "GET", "/api/keys"))).not.toContain(key);
    await page.reload();
    await page.getByRole("heading", { name: "API keys", level: 1 }).waitFor();
    await row.waitFor();
    expect(await page.content()).not.toContain(key);

    await row.getByRole("button", { name: "Delete key laptop aider" }).click();
    await row.getByRole("button", { name: "Revoke laptop aider now" }).click();
    await page.getByText("No keys yet.").waitFor();
    expect(h.problems).toEqual([]);
  }, 30_000);
});
