// R11.6 in Chromium: the emergency fallback's runtime toggle on the Resilience settings page; the
// next request follows what was saved, without a restart.
import { describe, expect, it } from "vitest";
import { addSimProvider, api, chat, layoutAndLabelProblems, openPage, useHarness } from "./harness.js";

describe("emergency fallback toggle", () => {
  const h = useHarness(async (h) => {
    await addSimProvider(h.server, h.sim, "sim-a", [{ id: "a-1", name: "Key A", key: "ka" }]);
    await addSimProvider(h.server, h.sim, "sim-b", [{ id: "b-1", name: "Key B", key: "kb" }]);
    h.sim.addFault("ka", { status: 503 });
    await openPage(h, "Resilience settings", "Resilience settings");
  });

  it("R11.6 switching it on with a model serves a failing request from that model; switching it off gives the failure back", async () => {
    const { page, server } = h;
    const card = page.getByRole("region", { name: "Emergency fallback" });
    const toggle = card.getByRole("checkbox", { name: "Use the emergency fallback" });
    expect(await toggle.isChecked()).toBe(false);
    expect((await chat(server, "sim-a/m1")).status).toBe(503);

    await toggle.check();
    await card.getByLabel("Fallback model").fill("sim-b/m1");
    await card.getByRole("button", { name: "Save emergency fallback" }).click();
    await card.getByRole("status").filter({ hasText: "Saved: failing requests try sim-b/m1 once." }).waitFor();
    await api(server, "POST", "/api/debug/clock", { advanceMs: 3_600_000 });
    const served = await chat(server, "sim-a/m1");
    expect(served).toMatchObject({ status: 200, connection: "b-1" });
    expect(await layoutAndLabelProblems(page)).toEqual([]);

    await toggle.uncheck();
    await card.getByRole("button", { name: "Save emergency fallback" }).click();
    await card.getByRole("status").filter({ hasText: "Saved: the emergency fallback is off." }).waitFor();
    await api(server, "POST", "/api/debug/clock", { advanceMs: 3_600_000 });
    expect((await chat(server, "sim-a/m1")).status).toBe(503);
    expect(h.problems).toEqual([]);
  }, 60_000);
});
