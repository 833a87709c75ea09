// R5 / R10 / R14.2 in Chromium: a model lockout caused by the simulator appears in Model
// Cooldowns and is re-enabled; the Model Lockout settings card reports what the normaliser
// clamped; the Resilience settings page marks saved values and resets them to the default.
import { describe, expect, it } from "vitest";
import { addSimProvider, api, chat, layoutAndLabelProblems, openPage, screenshot, useHarness } from "./harness.js";

interface Lockouts {
  items: Array<{ provider: string; connectionId: string; model: string; reason: string }>;
}

describe("Model Cooldowns and resilience settings", () => {
  const h = useHarness(async (h) => {
    await addSimProvider(h.server, h.sim, "sim", [
      { id: "c-a", name: "Key A", key: "ka" },
      { id: "c-b", name: "Key B", key: "kb" },
    ]);
    await openPage(h, "Model Cooldowns", "Model Cooldowns");
  });

  it("R5.1 says model lockout is off, and the settings card turns it on", async () => {
    const { page, server } = h;
    await page.getByText("Model lockout is off").waitFor();
    const card = page.getByRole("region", { name: "Model lockout settings" });
    await card.getByLabel("Model lockout enabled", { exact: true }).check();
    await card.getByRole("button", { name: "Save model lockout settings" }).click();
    await card.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    await page.getByText("Model lockout is on.").waitFor();
    expect((await api<{ modelLockout: { enabled: boolean } }>(server, "GET", "/api/resilience")).modelLockout.enabled).toBe(true);
  }, 30_000);

  it("R5.5 a 404 from the upstream locks the model; it appears live with reason, time left and failures", async () => {
    const { page, server, sim } = h;
    sim.addFault("ka", { status: 404, times: 1 });
    expect(await chat(server, "sim/m1")).toMatchObject({ status: 200, connection: "c-b" });
    const lockouts = await api<Lockouts>(server, "GET", "/api/resilience/model-cooldowns");
    expect(lockouts.items).toMatchObject([{ provider: "sim", connectionId: "c-a", model: "m1", reason: "not_found" }]);

    const row = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "m1" }) });
    await row.waitFor({ timeout: 10_000 });
    const cells = await row.getByRole("cell").allInnerTexts();
    expect(cells.slice(0, 3)).toEqual(["sim", "Key A", "not_found"]);
    expect(cells[3]).toMatch(/^(2 min|1 min 5\d s)$/);
    expect(cells[4]).toBe("1");
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    await screenshot(page, "model-cooldowns");
  }, 30_000);

  it("R5.5 re-enabling the model removes the lockout", async () => {
    const { page, server } = h;
    await page.getByRole("button", { name: "Re-enable m1 on Key A" }).click();
    await page.getByRole("rowheader", { name: "m1" }).waitFor({ state: "detached", timeout: 10_000 });
    await page.getByText("m1 on Key A re-enabled (1 lockout removed).").waitFor();
    expect((await api<Lockouts>(server, "GET", "/api/resilience/model-cooldowns")).items).toEqual([]);
    await page.getByRole("heading", { name: "No model is locked out" }).waitFor();
  }, 30_000);

  it("R5.5 Re-enable all clears every lockout", async () => {
    const { page, server, sim } = h;
    sim.addFault("ka", { status: 404, times: 1 });
    sim.addFault("kb", { status: 404, times: 1 });
    await chat(server, "sim/m1");
    await page.getByRole("row").filter({ hasText: "Key B" }).waitFor({ timeout: 10_000 });
    await page.getByRole("button", { name: "Re-enable all" }).click();
    await page.getByText("Every model is back in routing.").waitFor();
    expect((await api<Lockouts>(server, "GET", "/api/resilience/model-cooldowns")).items).toEqual([]);
  }, 30_000);

  it("D5 lockout settings out of range are saved clamped, and the card says what changed", async () => {
    const { page, server } = h;
    const card = page.getByRole("region", { name: "Model lockout settings" });
    await card.getByLabel("Base cooldown", { exact: true }).fill("1");
    await card.getByLabel("Max backoff steps", { exact: true }).fill("99");
    await card.getByLabel("Error codes", { exact: true }).fill("429, 503, 700");
    await card.getByRole("button", { name: "Save model lockout settings" }).click();
    const report = card.getByRole("status");
    await report.filter({ hasText: "Saved, with adjustments by the server:" }).waitFor();
    const items = await report.getByRole("listitem").allInnerTexts();
    expect(items).toEqual(
      expect.arrayContaining([
        "Base cooldown: you entered 1 ms, saved 5,000 ms (5 s)",
        "Max backoff steps: you entered 99, saved 20",
        "Error codes: you entered 429, 503, 700, saved 429, 503",
      ]),
    );
    expect(items).toHaveLength(3);
    expect(await card.getByLabel("Base cooldown", { exact: true }).inputValue()).toBe("5000");
    const saved = await api<{ modelLockout: Record<string, unknown> }>(server, "GET", "/api/resilience");
    expect(saved.modelLockout).toMatchObject({ baseCooldownMs: 5_000, maxBackoffSteps: 20, errorCodes: [429, 503] });
  }, 30_000);

  it("R10.1 an empty number is refused next to its field, and Discard restores the saved value", async () => {
    const card = h.page.getByRole("region", { name: "Model lockout settings" });
    await card.getByLabel("Max cooldown", { exact: true }).fill("");
    await card.getByRole("button", { name: "Save model lockout settings" }).click();
    await card.getByText("enter a number").waitFor();
    expect(await card.getByLabel("Max cooldown", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    await card.getByRole("button", { name: "Discard changes" }).click();
    expect(await card.getByLabel("Max cooldown", { exact: true }).inputValue()).toBe("1800000");
  }, 30_000);

  it("R10 Resilience settings: a clamped p2c weight is reported, marked saved, and reset to the default", async () => {
    const { page, server } = h;
    await openPage(h, "Resilience settings", "Resilience settings");
    for (const title of ["Provider circuit breakers", "Connection cooldown", "Request queue", "Combo cooldown wait", "Stream recovery and watchdogs", "Latency-aware balancing"]) {
      await page.getByRole("region", { name: title }).waitFor();
    }
    const card = page.getByRole("region", { name: "Latency-aware balancing" });
    await card.getByLabel("p2c latency weight", { exact: true }).fill("50");
    await card.getByRole("button", { name: "Save latency-aware balancing" }).click();
    await card.getByText("p2c latency weight: you entered 50, saved 20").waitFor();
    await card.getByText("saved", { exact: true }).waitFor();
    expect((await api<{ p2cLatency: { weight: number } }>(server, "GET", "/api/resilience")).p2cLatency.weight).toBe(20);

    const queue = page.getByRole("region", { name: "Request queue" });
    await queue.getByLabel("Max queue depth", { exact: true }).fill("25");
    await queue.getByRole("button", { name: "Save request queue" }).click();
    await queue.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    await screenshot(page, "resilience");

    await card.getByRole("button", { name: "Reset p2c latency weight to default" }).click();
    await card.getByText("default", { exact: true }).waitFor();
    expect(await card.getByLabel("p2c latency weight", { exact: true }).inputValue()).toBe("0");
    expect((await api<{ p2cLatency: { weight: number } }>(server, "GET", "/api/resilience")).p2cLatency.weight).toBe(0);
    expect(h.problems).toEqual([]);
  }, 30_000);
});
