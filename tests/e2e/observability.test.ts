// R15.1 / R2.6 / R14.2 in Chromium: the request log lists real traffic, filters it by provider,
// model and status and grows live; the Health page shows a provider breaker opened by simulator
// failures, with charts of the last hour, and resets it.
import { describe, expect, it } from "vitest";
import { addSimProvider, chat, layoutAndLabelProblems, openPage, screenshot, useHarness } from "./harness.js";

describe("request log and health", () => {
  const h = useHarness(async (h) => {
    const { server, sim } = h;
    await addSimProvider(server, sim, "sim", [{ id: "s-1", name: "Main key", key: "ks" }]);
    await addSimProvider(server, sim, "sim-b", [{ id: "b-1", name: "Backup key", key: "kb" }]);
    // "local" breakers open after 2 failures (R2.2): two failing connections open it in one request.
    await addSimProvider(
      server,
      sim,
      "flaky",
      [
        { id: "f-1", name: "Flaky 1", key: "kf1" },
        { id: "f-2", name: "Flaky 2", key: "kf2" },
      ],
      "local",
    );
    for (let i = 0; i < 3; i++) expect((await chat(server, "sim/m1")).status).toBe(200);
    expect((await chat(server, "sim-b/m1")).status).toBe(200);
    sim.addFault("kb", { status: 400, times: 1 });
    expect((await chat(server, "sim-b/m1")).status).toBe(400);
    await openPage(h, "Request log", "Request log");
  });

  const modelsShown = () => h.page.getByRole("table").getByRole("rowheader").allInnerTexts();

  it("R15.1 lists the requests newest first with who served them and their status", async () => {
    const { page } = h;
    await page.getByRole("rowheader", { name: "sim-b/m1" }).first().waitFor();
    expect(await modelsShown()).toEqual(["sim-b/m1", "sim-b/m1", "sim/m1", "sim/m1", "sim/m1"]);
    const first = await page.getByRole("table").getByRole("row").nth(1).getByRole("cell").allInnerTexts();
    expect(first[1]).toBe("sim-b · Backup key");
    expect(first[2]).toMatch(/^400/);
  }, 30_000);

  it("R15.1 filters by provider, by model and by status", async () => {
    const { page } = h;
    const form = page.getByRole("form", { name: "Filter the request log" });
    await form.getByLabel("Provider").selectOption("sim-b");
    await form.getByRole("button", { name: "Apply filters" }).click();
    await expect.poll(modelsShown).toEqual(["sim-b/m1", "sim-b/m1"]);

    await form.getByLabel("Status").fill("200");
    await form.getByRole("button", { name: "Apply filters" }).click();
    await expect.poll(modelsShown).toEqual(["sim-b/m1"]);

    await form.getByRole("button", { name: "Clear filters" }).click();
    await expect.poll(async () => (await modelsShown()).length).toBe(5);
    await form.getByLabel("Model").fill("sim/m1");
    await form.getByRole("button", { name: "Apply filters" }).click();
    await expect.poll(modelsShown).toEqual(["sim/m1", "sim/m1", "sim/m1"]);

    await form.getByLabel("Status").fill("503");
    await form.getByRole("button", { name: "Apply filters" }).click();
    await page.getByRole("heading", { name: "No request matches these filters" }).waitFor();

    await form.getByRole("button", { name: "Clear filters" }).click();
    await expect.poll(async () => (await modelsShown()).length).toBe(5);
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    await screenshot(page, "logs");
  }, 30_000);

  it("R15.2 a new request that matches the filters appears at the top without a reload", async () => {
    const { page, server } = h;
    const form = page.getByRole("form", { name: "Filter the request log" });
    await form.getByLabel("Model").fill("sim/m1");
    await form.getByRole("button", { name: "Apply filters" }).click();
    await expect.poll(async () => (await modelsShown()).length).toBe(3);
    await page.evaluate(() => ((window as unknown as { __noReload?: boolean }).__noReload = true));
    expect((await chat(server, "sim/m1")).status).toBe(200);
    expect((await chat(server, "sim-b/m1")).status).toBe(200);
    await expect.poll(async () => (await modelsShown()).length, { timeout: 10_000 }).toBe(4);
    expect(await modelsShown()).toEqual(["sim/m1", "sim/m1", "sim/m1", "sim/m1"]);
    expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
  }, 30_000);

  it("R2.6 Health shows a breaker opened by upstream failures, live, with a probe countdown and charts", async () => {
    const { page, server, sim } = h;
    await openPage(h, "Health", "Health");
    const row = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "flaky" }) });
    await row.waitFor();
    expect((await row.getByRole("cell").allInnerTexts())[0]).toBe("Closed");

    sim.addFault("kf1", { status: 500, times: 1 });
    sim.addFault("kf2", { status: 500, times: 1 });
    expect((await chat(server, "flaky/m1")).status).toBe(500);
    await expect.poll(async () => (await row.getByRole("cell").allInnerTexts()).slice(0, 2), { timeout: 10_000 }).toEqual(["Open", "2"]);
    expect((await row.getByRole("cell").allInnerTexts())[2]).toMatch(/^1\d s$/);
    expect((await row.getByRole("cell").allInnerTexts())[3]).toBe("server_error");
    await page.getByText("1 open").waitFor();

    for (const title of ["Requests per 5 min", "Errors per 5 min", "Mean latency"]) {
      await page.getByRole("img", { name: new RegExp(`^${title}: `) }).waitFor({ timeout: 10_000 });
    }
    const requests = await page.getByRole("img", { name: /^Requests per 5 min: / }).getAttribute("aria-label");
    expect(requests).toMatch(/sim \d+ requests, sim-b \d+ requests$/);
    expect(await page.getByRole("img", { name: /^Errors per 5 min: / }).getAttribute("aria-label")).toMatch(/sim-b [1-9]\d* errors/);
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    await screenshot(page, "health");
  }, 30_000);

  it("R15.2 the charts take in new requests live", async () => {
    const { page } = h;
    await expect.poll(async () => page.getByRole("img", { name: /^Requests per 5 min: / }).getAttribute("aria-label"), { timeout: 10_000 }).toContain("flaky 1 requests");
    expect(await page.getByRole("img", { name: /^Errors per 5 min: / }).getAttribute("aria-label")).toContain("flaky 1 errors");
    expect(await page.getByRole("list", { name: "Providers in the charts" }).getByRole("listitem").allInnerTexts()).toEqual(["flaky", "sim", "sim-b"]);
  }, 30_000);

  it("R2.6 resetting the breaker closes it", async () => {
    const { page } = h;
    await page.getByRole("button", { name: "Reset flaky" }).click();
    const row = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "flaky" }) });
    await expect.poll(async () => (await row.getByRole("cell").allInnerTexts())[0], { timeout: 10_000 }).toBe("Closed");
    await page.getByText("Breaker of flaky reset.").waitFor();
    expect(h.problems).toEqual([]);
  }, 30_000);
});
