// R21.8 in Chromium: the Connect page's "Use your subscription" says which provider and client-login
// connection carries a Claude Pro/Max or a ChatGPT login, adds one with its button, and hands out the
// lines; the real Claude Code and Codex, logged in with fake login files and configured with exactly
// the lines read off the page, are then answered on their logins by the simulator's subscription
// accounts, also with requireClientKey on (the key in X-Switchyard-Key beside the login).
// Screenshots: test-artifacts/e2e/connect-subscription.png and connect-subscription-cards.png.
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../main/simulator/index.js";
import { buildSubscriptionSnippets } from "../../renderer/src/pages/connect/subscription.js";
import type { RequestLogEntry } from "../../shared/types.js";
import { makeTempDir } from "../fixtures/clients/clientProcess.js";
import { CLAUDE_LOGIN, claudeMaxHome, CODEX_ACCOUNT, CODEX_LOGIN, codexChatgptHome, describeRun, runClaude, runCodex } from "../integration/subscriptions/realClientsHarness.js";
import { api, ARTIFACTS, layoutAndLabelProblems, openPage, screenshot, useHarness } from "./harness.js";

const CLAUDE_CARD = "Claude Pro or Max plan";
const CODEX_CARD = "ChatGPT plan (Codex)";

describe("R21.8 use your subscription on the Connect page, run by the real clients", () => {
  let vendor: Simulator | undefined;
  const scratch: string[] = [];
  const temp = (prefix: string) => makeTempDir(`switchyard-e2e-sub-${prefix}-`, scratch);
  afterAll(async () => {
    await vendor?.close();
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  });

  const h = useHarness(async (h) => {
    vendor = await startSimulator({
      label: "vendor",
      subscriptions: [
        { kind: "anthropic", token: CLAUDE_LOGIN, name: "max-e2e" },
        { kind: "chatgpt", token: CODEX_LOGIN, chatgptAccountId: CODEX_ACCOUNT, name: "plus-e2e" },
      ],
    });
    // Providers for the vendors' logins, without a client-login connection yet.
    await api(h.server, "POST", "/api/providers", { id: "claude-max", format: "anthropic", baseUrl: vendor.url, category: "oauth", models: [], passthroughModels: true });
    await api(h.server, "POST", "/api/providers", {
      id: "chatgpt",
      format: "openai-responses",
      baseUrl: `${vendor.url}/backend-api/codex`,
      category: "oauth",
      models: [],
      passthroughModels: true,
    });
    await openPage(h, "Connect your tools", "Connect your tools");
  });

  const card = (name: string) => h.page.getByRole("region", { name, exact: true });
  /** The run line and the lines of a card, as the page shows (and copies) them. */
  const blocks = async (name: string) => card(name).locator("pre code").allInnerTexts();

  it("R21.8 R21.1 each card says no client-login connection carries the login yet, and its button adds one to the provider that takes it", async () => {
    const { page, server } = h;
    await page.getByRole("heading", { name: "Use your subscription", level: 2 }).waitFor();
    for (const [name, provider, baseUrl, login] of [
      [CLAUDE_CARD, "claude-max", vendor!.url, "Claude"],
      [CODEX_CARD, "chatgpt", `${vendor!.url}/backend-api/codex`, "ChatGPT"],
    ] as const) {
      await card(name).getByText(`No provider has a client-login connection for your ${login} login yet`).waitFor();
      await card(name).getByText("no client-login connection").waitFor();
      await card(name)
        .getByRole("button", { name: `Add a client-login connection for ${name}` })
        .click();
      await card(name)
        .getByRole("status")
        .filter({ hasText: `Added the client-login connection "${name}" to provider ${provider}` })
        .waitFor({ timeout: 10_000 });
      await card(name).getByText(`Your ${login} login is carried by provider ${provider}, connection ${name} (client login) to ${baseUrl}`).waitFor();
      await card(name).getByText("login carried").waitFor();
      const made = await api<Array<{ credential: string; accountOf: string | null; hasSecret: boolean; name: string }>>(server, "GET", `/api/connections?provider=${provider}`);
      expect(made).toEqual([expect.objectContaining({ name, credential: "client", accountOf: null, hasSecret: false })]);
    }
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    await screenshot(page, "connect-subscription");
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.getByRole("region", { name: "Use your subscription", exact: true }).screenshot({ path: path.join(ARTIFACTS, "connect-subscription-cards.png") });
  }, 30_000);

  it("R21.8 the lines read off the page run the real Claude Code and Codex on their own logins", async () => {
    const { server } = h;
    const expected = buildSubscriptionSnippets({ url: server.base, key: null });
    const [claudeRun, claudeLines] = await blocks(CLAUDE_CARD);
    const [codexRun, codexLines] = await blocks(CODEX_CARD);
    expect([claudeRun, claudeLines]).toEqual([expected[0].run, expected[0].text]);
    expect([codexRun, codexLines]).toEqual([expected[1].run, expected[1].text]);
    expect(claudeLines).toBe(`export ANTHROPIC_BASE_URL=${server.base}\nexport CLAUDE_CODE_GATEWAY_HINT_HEADERS=1\nclaude`);
    expect(codexLines).toContain(`base_url = "${server.base}/backend-api/codex"`);
    expect(codexLines).toContain("requires_openai_auth = true");

    const claudeHome = temp("claude");
    claudeMaxHome(claudeHome);
    const claude = await runClaude(claudeLines, claudeHome, temp("claude-cwd"), "Say hello");
    expect(claude.code, describeRun(claude)).toBe(0);
    expect(claude.stdout, describeRun(claude)).toContain("Hello from vendor (login max-e2e)");

    const codexHome = temp("codex");
    codexChatgptHome(codexHome, codexLines);
    const codex = await runCodex(codexHome, temp("codex-cwd"), "Say hello", ["-m", "gpt-5.5"]);
    expect(codex.code, describeRun(codex)).toBe(0);
    expect(codex.stdout, describeRun(codex)).toContain("Hello from vendor (login plus-e2e)");

    const upstream = vendor!.requests.filter((r) => r.path.startsWith("/v1/messages") || r.path.endsWith("/responses"));
    expect(upstream.some((r) => r.headers["authorization"] === `Bearer ${CLAUDE_LOGIN}`)).toBe(true);
    expect(upstream.some((r) => r.headers["authorization"] === `Bearer ${CODEX_LOGIN}` && r.headers["chatgpt-account-id"] === CODEX_ACCOUNT)).toBe(true);
  }, 300_000);

  it("R21.8 R21.3 with requireClientKey on, the key minted on the page rides beside the login in X-Switchyard-Key, and both clients are served", async () => {
    const { page, server } = h;
    await api(server, "PATCH", "/api/settings", { requireClientKey: true });
    try {
      await page.getByRole("button", { name: "Create a key for these tools" }).click();
      const key = (await page.getByText(/^sk-sy-/).innerText()).trim();
      await card(CLAUDE_CARD).getByText(`export ANTHROPIC_CUSTOM_HEADERS="X-Switchyard-Key: ${key}"`).waitFor();
      await card(CODEX_CARD).getByText(`http_headers = { "X-Switchyard-Key" = "${key}" }`).waitFor();
      const [, claudeLines] = await blocks(CLAUDE_CARD);
      const [, codexLines] = await blocks(CODEX_CARD);
      expect([claudeLines, codexLines]).toEqual(buildSubscriptionSnippets({ url: server.base, key }).map((s) => s.text));

      const before = vendor!.requests.length;
      const since = Date.now();
      const claudeHome = temp("claude-key");
      claudeMaxHome(claudeHome);
      const claude = await runClaude(claudeLines, claudeHome, temp("claude-key-cwd"), "Say hello");
      expect(claude.code, describeRun(claude)).toBe(0);
      expect(claude.stdout, describeRun(claude)).toContain("Hello from vendor (login max-e2e)");
      const codexHome = temp("codex-key");
      codexChatgptHome(codexHome, codexLines);
      const codex = await runCodex(codexHome, temp("codex-key-cwd"), "Say hello", ["-m", "gpt-5.5"]);
      expect(codex.code, describeRun(codex)).toBe(0);
      expect(codex.stdout, describeRun(codex)).toContain("Hello from vendor (login plus-e2e)");

      // The key named the clients at Switchyard and went no further.
      for (const r of vendor!.requests.slice(before)) expect(JSON.stringify(r.headers)).not.toContain(key);
      const rows = (await api<RequestLogEntry[]>(server, "GET", "/api/logs?limit=50")).filter((r) => r.status === 200 && r.time >= since - 60_000);
      for (const kind of ["claude-code", "codex-cli"] as const)
        expect(
          rows.some((r) => r.clientKind === kind && r.apiKeyId !== null),
          kind,
        ).toBe(true);
    } finally {
      await api(server, "PATCH", "/api/settings", { requireClientKey: false });
    }
  }, 300_000);
});
