// R23.3 and R23.4 in Chromium: a provider saved with one /v1 too many shows its stored base URL;
// the Providers page's Check button shows the contract doctor's matrix, all ok for a healthy
// provider and with the failing checks' sentences for a broken one; the Connect page shows the same
// check before its snippets. Screenshots: test-artifacts/e2e/doctor-*.png.
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Locator } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { type BrokenUpstream, startBrokenUpstream } from "../integration/api/brokenUpstream.js";
import { api, ARTIFACTS, layoutAndLabelProblems, openPage, screenshot, useHarness } from "./harness.js";

describe("contract doctor on the Providers and Connect pages", () => {
  let broken: BrokenUpstream | undefined;
  afterAll(async () => broken?.close());

  const h = useHarness(async (h) => {
    broken = await startBrokenUpstream({ noStream: true, noUsage: true });
    await api(h.server, "POST", "/api/providers", { id: "claude", format: "anthropic", baseUrl: `${h.sim.url}/v1/`, category: "apikey", models: ["claude-sim"] });
    await api(h.server, "POST", "/api/connections", { id: "claude-key", provider: "claude", name: "Claude key", apiKey: "k-claude" });
    await api(h.server, "POST", "/api/providers", { id: "local-llm", format: "openai", baseUrl: broken.url, category: "local", models: ["llama"] });
    await api(h.server, "POST", "/api/connections", { id: "local-key", provider: "local-llm", name: "Local server", apiKey: "k-local" });
    await openPage(h, "Providers & connections", "Providers & connections");
  });

  /** The test's screenshots of one part of the page, beside the harness's full-page ones. */
  const shot = async (part: Locator, name: string) => {
    mkdirSync(ARTIFACTS, { recursive: true });
    await part.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
  };
  const card = (id: string) => h.page.getByRole("region", { name: id, exact: true });
  const rowOf = (id: string, label: string) =>
    card(id)
      .getByRole("row")
      .filter({ has: h.page.getByRole("rowheader", { name: label }) });

  it("R23.3 the page shows the stored base URL: the Anthropic origin, the OpenAI URL with /v1", async () => {
    await card("claude").getByText(h.sim.url, { exact: true }).waitFor();
    await card("local-llm").getByText(`${broken!.url}/v1`, { exact: true }).waitFor();
  }, 30_000);

  it("R23.4 Check on a healthy provider shows five checks, all ok", async () => {
    const { page } = h;
    await card("claude").getByRole("button", { name: "Check provider claude" }).click();
    await card("claude").getByRole("status").filter({ hasText: "All 5 checks of claude passed (connection claude-key, model claude-sim)." }).waitFor({ timeout: 15_000 });
    const rows = card("claude").getByRole("table", { name: "Contract checks of claude" }).getByRole("row");
    expect(await rows.count()).toBe(6);
    for (const label of ["JSON answer (json)", "Streaming (stream)", "Tool calls (tools)", "Token usage (usage)", "Error shape (errors)"]) {
      const cells = await rowOf("claude", label).getByRole("cell").allTextContents();
      expect(cells[0]).toBe("ok");
      expect(cells[1]).toMatch(/^\d+ ms$/);
    }
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    await shot(card("claude"), "doctor-healthy");
  }, 30_000);

  it("R23.4 Check on a broken provider shows the failing checks with what to fix", async () => {
    const { page } = h;
    await card("local-llm").getByRole("button", { name: "Check provider local-llm" }).click();
    await card("local-llm").getByRole("status").filter({ hasText: "2 of 5 checks of local-llm failed" }).waitFor({ timeout: 15_000 });
    expect(await rowOf("local-llm", "Streaming (stream)").getByRole("cell").allTextContents()).toEqual([
      "failed",
      expect.stringMatching(/^\d+ ms$/),
      "asked to stream, the upstream answered with one JSON body instead of an event stream: this server does not stream, and coding agents need it to",
    ]);
    const usage = await rowOf("local-llm", "Token usage (usage)").getByRole("cell").allTextContents();
    expect(usage[0]).toBe("failed");
    expect(usage[2]).toMatch(/^the answer reports no token usage/);
    for (const label of ["JSON answer (json)", "Tool calls (tools)", "Error shape (errors)"]) {
      expect((await rowOf("local-llm", label).getByRole("cell").allTextContents())[0]).toBe("ok");
    }
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    await shot(card("local-llm"), "doctor-broken");
    await screenshot(page, "doctor-providers");
  }, 30_000);

  it("R23.4 the Connect page shows the chosen model's provider check before its snippets", async () => {
    const { page } = h;
    await openPage(h, "Connect your tools", "Connect your tools");
    const panel = page.getByRole("region", { name: "Check the provider first" });
    await page.getByLabel("Model", { exact: true }).selectOption("local-llm/llama");
    await panel.getByText("2 checks failed").waitFor();
    await panel.getByRole("table", { name: "Contract checks of local-llm" }).waitFor();
    await page.getByLabel("Model", { exact: true }).selectOption("claude/claude-sim");
    await panel.getByText("all checks passed").waitFor();
    // The panel comes before the first snippet.
    const panelTop = (await panel.boundingBox())!.y;
    const snippetTop = (await page.getByRole("heading", { name: "Claude Code" }).first().boundingBox())!.y;
    expect(panelTop).toBeLessThan(snippetTop);
    await panel.getByRole("button", { name: "Check provider claude" }).click();
    await panel.getByRole("status").filter({ hasText: "All 5 checks of claude passed" }).waitFor({ timeout: 15_000 });
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    await shot(panel, "doctor-connect");
  }, 30_000);
});
