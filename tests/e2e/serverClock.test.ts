// Issue 8 item 4 in Chromium: the dashboard judges "is it cooling, for how long" by the server's
// clock. Under --test-clock the engine runs ahead of the browser, so a page that compared the
// stored rateLimitedUntil with the browser's Date.now() kept showing a cooldown the server had
// already ended.
import { describe, expect, it } from "vitest";
import { addSimProvider, api, chat, openPage, useHarness } from "./harness.js";

describe("countdowns follow the server's clock", () => {
  const h = useHarness(async (h) => {
    await addSimProvider(h.server, h.sim, "sim", [
      { id: "c-a", name: "Key A", key: "ka" },
      { id: "c-b", name: "Key B", key: "kb" },
    ]);
    h.sim.addFault("ka", { status: 429, retryAfter: 120, times: 1 });
    expect(await chat(h.server, "sim/m1")).toMatchObject({ status: 200, connection: "c-b" });
    await openPage(h, "Providers & connections", "Providers & connections");
  });

  const statusOfKeyA = () =>
    h.page
      .getByRole("row")
      .filter({ has: h.page.getByRole("rowheader", { name: "Key A" }) })
      .getByRole("cell")
      .first();

  it("R14.2/R4.9 the Providers page counts a cooldown down by the server's clock, and shows it over (and the key serving) once the server says so", async () => {
    await expect.poll(() => statusOfKeyA().innerText(), { timeout: 10_000 }).toMatch(/^Cooling down · (2 min|1 min 5\d s) left$/);

    await api(h.server, "POST", "/api/debug/clock", { advanceMs: 60_000 });
    await h.page.getByRole("button", { name: "Refresh" }).click();
    // The browser's clock still says about 2 min; the server's says about 1 min.
    await expect.poll(() => statusOfKeyA().innerText(), { timeout: 10_000 }).toMatch(/^Cooling down · (1 min|5\d s) left$/);

    await api(h.server, "POST", "/api/debug/clock", { advanceMs: 90_000 });
    await h.page.getByRole("button", { name: "Refresh" }).click();
    // Over by the server's clock (the browser's says 1 min 50 s left): Key A keeps its last test
    // status until a success clears it (R4.9), and routing uses it again.
    await expect.poll(() => statusOfKeyA().innerText(), { timeout: 10_000 }).toBe("Unavailable");
    expect(await chat(h.server, "sim/m1")).toMatchObject({ status: 200, connection: "c-a" });
    await expect.poll(() => statusOfKeyA().innerText(), { timeout: 10_000 }).toBe("Active");
    expect(h.problems).toEqual([]);
  }, 40_000);

  it("R6.1 the Cooldown Manager agrees: the connection the server no longer cools is not listed", async () => {
    await openPage(h, "Cooldown Manager", "Cooldown Manager");
    await h.page.getByRole("heading", { name: "Every connection is in routing" }).waitFor({ timeout: 10_000 });
    expect(await h.page.getByRole("rowheader", { name: "Key A" }).count()).toBe(0);
  }, 30_000);
});
