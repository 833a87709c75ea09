// R7 / issue 9 item 8 in Chromium: the Sessions & leases page lists a session pin made by a real
// request and a lease acquired through the client route, and its Unpin and Release buttons end them.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { addSimProvider, api, layoutAndLabelProblems, openPage, screenshot, useHarness } from "./harness.js";

interface Items<T> {
  items: T[];
}

describe("Sessions & leases page", () => {
  let clientKey = "";
  const h = useHarness(async (h) => {
    await addSimProvider(h.server, h.sim, "sim", [
      { id: "c-a", name: "Key A", key: "ka" },
      { id: "c-b", name: "Key B", key: "kb" },
    ]);
    clientKey = (await api<{ key: string }>(h.server, "POST", "/api/keys", { name: "agent key", scopes: ["lease:exclusive"], allowedConnections: ["c-b"] })).key;
    await openPage(h, "Sessions & leases", "Sessions & leases");
  });

  it("R7.1 a pinned session appears with its connection and is unpinned from the page", async () => {
    const { page, server } = h;
    await page.getByText("No session is pinned.").waitFor();
    const res = await fetch(`${server.base}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-session-id": "agent-run-7" },
      body: JSON.stringify({ model: "sim/m1", messages: [{ role: "user", content: "hello" }] }),
    });
    expect(res.status).toBe(200);
    const row = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "agent-run-7" }) });
    await row.waitFor({ timeout: 10_000 });
    expect((await row.getByRole("cell").allInnerTexts()).slice(0, 2)).toEqual(["sim", "Key A"]);
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    await screenshot(page, "sessions");
    await page.getByRole("button", { name: "Unpin agent-run-7" }).click();
    await page.getByText("Session agent-run-7 unpinned.").waitFor();
    await page.getByText("No session is pinned.").waitFor();
    expect((await api<Items<unknown>>(server, "GET", "/api/sessions/pins")).items).toEqual([]);
  }, 30_000);

  it("R7.2 an exclusive lease appears with connection, key and generation (no token) and is released from the page", async () => {
    const { page, server } = h;
    const owner = `vlo_${randomBytes(32).toString("base64url")}`;
    const acquired = await fetch(`${server.base}/api/v1/session-leases`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${clientKey}` },
      body: JSON.stringify({ action: "acquire", owner }),
    });
    expect(acquired.status).toBe(200);
    const { generation } = (await acquired.json()) as { generation: number };
    await page.getByRole("button", { name: "Refresh" }).click();
    const row = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "Key B" }) });
    await row.waitFor({ timeout: 10_000 });
    expect((await row.getByRole("cell").allInnerTexts()).slice(0, 3)).toEqual(["sim", "agent key", String(generation)]);
    expect(await page.content()).not.toContain(owner);
    await page.getByRole("button", { name: "Release lease on Key B" }).click();
    await page.getByText("Lease on Key B released.").waitFor();
    await page.getByText("No connection is leased.").waitFor();
    expect((await api<Items<unknown>>(server, "GET", "/api/sessions/leases")).items).toEqual([]);
    expect(h.problems).toEqual([]);
  }, 30_000);
});
