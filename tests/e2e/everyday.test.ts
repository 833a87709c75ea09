// Issue 14 in Chromium, the way a user works: the first screen offers the demo and starts it;
// Connect your tools shows the lines for each client with this instance's address, copies them,
// mints a key when one is required and shows live which client was last seen; the request log
// opens a request into the timeline of its attempts and filters by client; Import & export
// exports with env:NAME secrets and previews an import before applying it, all or nothing.
import { describe, expect, it } from "vitest";
import { api, layoutAndLabelProblems, openPage, screenshot, useHarness } from "./harness.js";

async function send(base: string, userAgent: string, model = "demo"): Promise<number> {
  const res = await fetch(`${base}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "user-agent": userAgent },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "hello" }] }),
  });
  await res.text();
  return res.status;
}

describe("everyday use (issue 14)", () => {
  const h = useHarness(async (h) => {
    await h.page.goto(h.server.dashboardUrl);
    await h.page.getByText("Live updates: on").waitFor({ timeout: 15_000 });
  });

  it("issue14 a new user is offered two paths, and the simulated demo starts from the dashboard", async () => {
    const { page } = h;
    await page.getByRole("heading", { name: "No providers yet" }).waitFor();
    await page.getByRole("button", { name: "Add your first provider" }).waitFor();
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    await screenshot(page, "first-run");
    await page.getByRole("button", { name: "Start the simulated demo" }).click();
    // The first screen gives way to the providers as soon as the demo has added them.
    await page.getByRole("heading", { name: "No providers yet" }).waitFor({ state: "detached", timeout: 15_000 });
    await page.getByText("Provider A · key 1").first().waitFor();
    await page.getByText("Provider B · key 1").first().waitFor();
  }, 40_000);

  it("issue14 Connect your tools: the exact lines with this instance's address, copied by the button", async () => {
    const { page, server, context } = h;
    await openPage(h, "Connect your tools", "Connect your tools");
    const claude = page.getByRole("region", { name: "Claude Code" });
    // R23.2: each coding agent's card starts with the `switchyard run` line, before the lines by hand.
    const runLine = `switchyard run claude --url ${server.base} -- --model demo`;
    await claude.getByText(runLine).waitFor();
    const blocks = await claude.locator("pre code").allInnerTexts();
    expect(blocks[0]).toBe(runLine);
    expect(blocks[1]).toContain(`export ANTHROPIC_BASE_URL=${server.base}`);
    await page.getByRole("region", { name: "Codex CLI" }).getByText(`switchyard run codex --url ${server.base} -- -m demo`).waitFor();
    await page.getByRole("region", { name: "pi", exact: true }).getByText(`switchyard run pi --url ${server.base} -- --model demo`).waitFor();
    await claude.getByText(`export ANTHROPIC_BASE_URL=${server.base}`).waitFor();
    await claude.getByText("export ANTHROPIC_MODEL=demo").waitFor();
    await claude.getByText("export ANTHROPIC_SMALL_FAST_MODEL=demo").waitFor();
    await page.getByRole("region", { name: "aider" }).getByText(`export OPENAI_API_BASE=${server.base}/v1`).waitFor();
    await page.getByRole("region", { name: "aider" }).getByText("aider --model openai/demo").waitFor();
    await page.getByRole("region", { name: "Codex CLI" }).getByText(`base_url = "${server.base}/v1"`).waitFor();
    await page.getByRole("region", { name: "Anthropic SDK (Python)" }).getByText(`base_url="${server.base}"`).waitFor();

    await page.getByLabel("Model", { exact: true }).selectOption("sim-b/demo-model");
    await claude.getByText("export ANTHROPIC_MODEL=sim-b/demo-model").waitFor();
    await claude.getByText(`switchyard run claude --url ${server.base} -- --model sim-b/demo-model`).waitFor();

    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.base });
    await claude.getByRole("button", { name: "Copy Claude Code lines" }).click();
    await claude.getByText("Copied.").waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toContain(`export ANTHROPIC_BASE_URL=${server.base}\n`);
    expect(copied).toContain("claude --model sim-b/demo-model");
    expect(await layoutAndLabelProblems(page)).toEqual([]);
  }, 30_000);

  it("issue14 the page shows, live, the moment a client's first request arrives", async () => {
    const { page, server } = h;
    const claude = page.getByRole("region", { name: "Claude Code" });
    await claude.getByText("not seen yet").waitFor();
    expect(await send(server.base, "claude-cli/2.1.0 (external, cli)")).toBe(200);
    await claude.getByText(/connected · last request \d+ s ago/).waitFor({ timeout: 10_000 });
    const row = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "Claude Code" }) });
    await row.getByText("demo", { exact: true }).waitFor();
    expect(await send(server.base, "curl/8.5.0")).toBe(200);
    await page
      .getByRole("region", { name: "curl" })
      .getByText(/connected · last request/)
      .waitFor({ timeout: 10_000 });
    await page.getByRole("region", { name: "aider" }).getByText("not seen yet").waitFor();
    await screenshot(page, "connect");
  }, 30_000);

  it("issue14 with requireClientKey on, a key is minted right there and filled into the lines", async () => {
    const { page, server } = h;
    await api(server, "PATCH", "/api/settings", { requireClientKey: true });
    try {
      await page.getByRole("button", { name: "Create a key for these tools" }).click();
      const shown = await page.getByText(/^sk-sy-/).innerText();
      expect(shown).toMatch(/^sk-sy-[\w-]{20,}$/);
      await page.getByRole("region", { name: "aider" }).getByText(`export OPENAI_API_KEY=${shown}`).waitFor();
      const res = await fetch(`${server.base}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${shown}` },
        body: JSON.stringify({ model: "demo", messages: [{ role: "user", content: "hi" }] }),
      });
      expect(res.status).toBe(200);
    } finally {
      await api(server, "PATCH", "/api/settings", { requireClientKey: false });
    }
  }, 30_000);

  it("issue14 R25.4 the request log opens a request into its timeline: attempts with verdict, cooldown, where each ended and whose fault it was, then what was skipped", async () => {
    const { page, server } = h;
    await openPage(h, "Request log", "Request log");
    // The first demo request (Claude Code's) failed over: key 1 answered 429 with Retry-After 15.
    const claudeRow = page.getByRole("row").filter({ hasText: "Claude Code" });
    await claudeRow.getByRole("button", { name: /open its timeline/ }).click();
    const timeline = page.getByRole("region", { name: "Why this request went where it went" });
    const steps = timeline.getByRole("list", { name: "Timeline" });
    await steps.getByText("Received from Claude Code (openai format) for demo (a combo)").waitFor();
    await steps
      .getByText(
        /Attempt 1: sim-a · Provider A · key 1 \(demo-model\) → 429 rate_limit, .*; cooldown 1\d(\.\d)? s from Retry-After — refused at the response head, the account's fault/,
      )
      .waitFor();
    await steps.getByText(/Attempt 2: sim-a · Provider A · key 2 \(demo-model\) → 200 ok, .* \d+ B — complete$/).waitFor();
    await steps.getByText(/Answered 200 by sim-a · Provider A · key 2 after 2 attempts/).waitFor();
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    await screenshot(page, "request-timeline");

    // The curl request came later, while key 1 was cooling: skipped before dispatch.
    await page
      .getByRole("row")
      .filter({ hasText: "curl" })
      .first()
      .getByRole("button", { name: /open its timeline/ })
      .click();
    await steps.getByText("Received from curl (openai format) for demo (a combo)").waitFor();
    await steps.getByText(/Skipped sim-a · Provider A · key 1 before dispatch: cooling down \(\d+(\.\d)? s left\)/).waitFor();
    await timeline.getByRole("button", { name: "Close timeline" }).click();
    await timeline.waitFor({ state: "detached" });
    expect(await send(server.base, "OpenAI/Python 1.40.0")).toBe(200);
  }, 30_000);

  it("issue14 the request log filters by client and by combo", async () => {
    const { page } = h;
    const form = page.getByRole("form", { name: "Filter the request log" });
    const clients = async () => (await page.getByRole("table").getByRole("row").allInnerTexts()).slice(1).map((t) => t.split("\t").at(-1)!.trim());
    await form.getByLabel("Client").selectOption("curl");
    await form.getByRole("button", { name: "Apply filters" }).click();
    await expect.poll(clients).toEqual(["curl"]);
    await form.getByLabel("Client").selectOption("");
    await form.getByLabel("Combo").selectOption("demo");
    await form.getByRole("button", { name: "Apply filters" }).click();
    await expect.poll(async () => (await clients()).length).toBe(4);
    // The key test's request came from Node's fetch: an "other" client.
    expect(await clients()).toEqual(["OpenAI SDK", "Other clients", "curl", "Claude Code"]);
  }, 30_000);

  it("issue14 Import & export: export with env:NAME secrets, preview an import's changes, then apply it", async () => {
    const { page } = h;
    await openPage(h, "Import & export", "Import & export");
    await page.getByLabel("Secrets").selectOption("env");
    await page.getByRole("button", { name: "Export the config" }).click();
    const exported = page.getByRole("region", { name: "Export" });
    await exported.getByText("apiKey: env:SWITCHYARD_KEY_SIM_A_DEMO_A_1", { exact: false }).waitFor();
    expect(await exported.innerText()).not.toContain("<redacted>");

    const input = page.getByLabel("Config file (JSON or YAML)");
    const yaml = [
      "providers:",
      "  - { id: newp, format: openai, baseUrl: 'http://127.0.0.1:9/v1', category: apikey, models: [x1] }",
      "connections:",
      "  - { id: demo-a-2, provider: sim-a, name: Provider A · spare key }",
      "combos:",
      "  - { name: pair, strategy: priority, targets: [{ model: newp/x1 }, { model: sim-b/demo-model }] }",
    ].join("\n");
    await input.setInputFiles({ name: "moved.yaml", mimeType: "text/yaml", buffer: Buffer.from(yaml) });
    await page.getByText("Step 2 of 4: checked. Review the changes, then apply.").waitFor();
    const preview = page.getByRole("table", { name: "Changes the import would apply" });
    await preview
      .getByRole("row")
      .filter({ has: page.getByRole("rowheader", { name: "newp" }) })
      .getByText("create")
      .waitFor();
    await preview
      .getByRole("row")
      .filter({ has: page.getByRole("rowheader", { name: "demo-a-2" }) })
      .getByText("name")
      .waitFor();
    expect((await api<Array<{ id: string }>>(h.server, "GET", "/api/providers")).map((p) => p.id)).not.toContain("newp");
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    await screenshot(page, "import-export");

    await page.getByRole("button", { name: "Apply the import" }).click();
    await page.getByText("Imported 1 provider(s), 1 connection(s), 1 combo(s) and 0 key(s).").waitFor();
    await page.getByText("Step 4 of 4: done.").waitFor();
    expect((await api<Array<{ id: string }>>(h.server, "GET", "/api/providers")).map((p) => p.id)).toContain("newp");
  }, 30_000);

  it("issue14 a bad file is refused with its field path and nothing is imported", async () => {
    const { page } = h;
    const bad = "combos:\n  - { name: broken, strategy: priority, targets: [{ model: ghost/m }] }\n";
    await page.getByLabel("Config file (JSON or YAML)").setInputFiles({ name: "bad.yaml", mimeType: "text/yaml", buffer: Buffer.from(bad) });
    const alert = page.getByRole("alert");
    await alert.getByText(/Nothing was imported: .*combos\.0\.targets\.0\.model/).waitFor();
    await page.getByText("Stopped: nothing was changed.").waitFor();
    expect(await page.getByRole("button", { name: "Apply the import" }).count()).toBe(0);
    expect((await api<Array<{ name: string }>>(h.server, "GET", "/api/combos")).map((c) => c.name)).not.toContain("broken");
  }, 30_000);
});
