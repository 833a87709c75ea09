// Issue 10 item 6 in Chromium: the Health page shows each connection's request queue live: two
// parallel requests to a maxConcurrent 1 connection appear as one in flight and one queued, and
// the row returns to zero when they finish, without a reload.
import { describe, expect, it } from "vitest";
import { api, chat, layoutAndLabelProblems, openPage, screenshot, useHarness } from "./harness.js";

describe("Health: request queues", () => {
  const h = useHarness(async (h) => {
    await api(h.server, "POST", "/api/providers", { id: "sim", format: "openai", baseUrl: `${h.sim.url}/v1`, category: "apikey", models: ["m1"] });
    await api(h.server, "POST", "/api/connections", { id: "team-key", provider: "sim", name: "Team key", apiKey: "kq", maxConcurrent: 1 });
    await openPage(h, "Health", "Health");
  });

  it("R9 / R8.1 in flight and queued per connection, live, and local limits named", async () => {
    const { page, server, sim } = h;
    const queues = page.getByRole("region", { name: "Request queues" });
    await queues.getByText("Limits are kept in this Switchyard").waitFor();
    sim.addFault("kq", { latencyMs: 2_500, times: 2 });
    const requests = [chat(server, "sim/m1"), chat(server, "sim/m1")];
    const row = queues.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "team-key" }) });
    await row.waitFor({ timeout: 10_000 });
    const busy = async () => (await row.getByRole("cell").allInnerTexts()).slice(0, 4);
    for (let i = 0; i < 40 && (await busy()).join("|") !== "sim|1|1|1"; i++) await page.waitForTimeout(100);
    expect(await busy()).toEqual(["sim", "1", "1", "1"]);
    expect(await row.getByRole("cell").nth(5).innerText()).toBe("queue-protected");
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    await screenshot(page, "health-request-queues");
    expect((await Promise.all(requests)).map((r) => r.status)).toEqual([200, 200]);
    for (let i = 0; i < 40 && (await busy()).join("|") !== "sim|0|0|1"; i++) await page.waitForTimeout(100);
    expect(await busy()).toEqual(["sim", "0", "0", "1"]);
  }, 40_000);
});
