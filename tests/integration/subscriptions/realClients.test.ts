// R21.8 end to end with the real clients: Claude Code 2.1.332 logged in to a Max plan and Codex 0.171
// logged in with ChatGPT (fake login files in a temporary HOME, CLIENTS.md), configured with exactly
// the Connect page's "use your subscription" lines, talk to Switchyard, which passes each login on
// to the simulator's subscription accounts (R21.9) through a client-login connection (R21.1):
// (a) a turn is served on the login, which the simulator sees and Switchyard never keeps;
// (b) when the login's window runs out mid-session, billingBoundary main "cross" carries the session
//     on a metered account (the row says billingCrossed) and "stay" answers 429 window_exhausted;
// (c) after the window's reset (the gateway's test clock and the simulator's clock moved past it)
//     the traffic is back on the subscription.
import { createHash, randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { clientBin } from "../../clients/locate.js";
import { makeTempDir, type ClientRun } from "../../fixtures/clients/clientProcess.js";
import { baseEnv, runCli } from "../cli/agentHarness.js";
import { startGateway, startSim, type TestGateway } from "../harness.js";
import {
  CLAUDE_LOGIN,
  CLAUDE_REFRESH,
  claudeMaxHome,
  CODEX_ACCOUNT,
  CODEX_LOGIN,
  codexChatgptHome,
  describeRun,
  filesUnder,
  RUN_TIMEOUT_MS,
  runClaude,
  runCodex,
  subscriptionSnippet,
} from "./realClientsHarness.js";

type Json = Record<string, any>;

const TEST_TIMEOUT_MS = RUN_TIMEOUT_MS * 3;
const METERED_ANTHROPIC_KEY = "sk-ant-api03-FAKE-metered-key";
const METERED_OPENAI_KEY = "sk-FAKE-metered-openai-key";
/** The simulator names each login in its replies and x-sim-key (never by its token). */
const CLAUDE_NAME = "max-fake";
const CODEX_NAME = "plus-fake";
/**
 * The models the sessions of (b) and (c) ask for, which the subscription and the metered provider both
 * list: a bare name goes to the providers that list it (R1.3), and a name no list names only to the
 * providers that serve logins (R21.10), which (a) relies on with each client's default model.
 */
const CLAUDE_MODEL = "claude-sonnet-4-5";
const CODEX_MODEL = "gpt-5.5";

const digest = (s: string) => createHash("sha256").update(s).digest("hex");

let gw: TestGateway;
let sim: Simulator;
const scratch: string[] = [];
const temp = (prefix: string) => makeTempDir(`switchyard-sub-${prefix}-`, scratch);

beforeAll(async () => {
  sim = await startSim({
    label: "vendor",
    subscriptions: [
      { kind: "anthropic", token: CLAUDE_LOGIN, name: CLAUDE_NAME, fiveHourLimit: 1000 },
      { kind: "chatgpt", token: CODEX_LOGIN, chatgptAccountId: CODEX_ACCOUNT, name: CODEX_NAME, planType: "plus", fiveHourLimit: 1000 },
    ],
    apiKeys: [METERED_ANTHROPIC_KEY],
  });
  gw = await startGateway({ testClock: true });
  const post = async (route: string, body: Json) => {
    const r = await gw.api("POST", route, body);
    expect(r.status, `${route} ${r.text}`).toBe(201);
  };
  // The subscriptions: a client-login connection each (no key: every request brings its login).
  await post("/api/providers", { id: "claude-sub", format: "anthropic", baseUrl: sim.url, category: "oauth", models: [CLAUDE_MODEL] });
  await post("/api/connections", { id: "max", provider: "claude-sub", name: "My Max", credential: "client" });
  await post("/api/providers", { id: "chatgpt-sub", format: "openai-responses", baseUrl: `${sim.url}/backend-api/codex`, category: "oauth", models: [CODEX_MODEL] });
  await post("/api/connections", { id: "plus", provider: "chatgpt-sub", name: "My Plus", credential: "client" });
  // The metered accounts a crossing may move to (lower priority: tried after the subscriptions).
  await post("/api/providers", { id: "anthropic-metered", format: "anthropic", baseUrl: sim.url, category: "apikey", models: [CLAUDE_MODEL], priority: 5 });
  await post("/api/connections", { id: "team-key", provider: "anthropic-metered", name: "Team key", apiKey: METERED_ANTHROPIC_KEY });
  await post("/api/providers", { id: "openai-metered", format: "openai-responses", baseUrl: `${sim.url}/v1`, category: "apikey", models: [CODEX_MODEL], priority: 5 });
  await post("/api/connections", { id: "openai-key", provider: "openai-metered", name: "OpenAI key", apiKey: METERED_OPENAI_KEY });
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await sim?.close();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

async function rowsSince(since: number): Promise<Json[]> {
  const logs = await gw.api<Json[]>("GET", "/api/logs?limit=200");
  expect(logs.status).toBe(200);
  return logs.body.filter((r) => r.time >= since);
}

/** The gateway's clock (rows are stamped by it; under --test-clock it runs ahead of Date.now() once moved). */
async function gatewayNow(): Promise<number> {
  const r = await gw.api<{ now: number }>("GET", "/api/debug/clock");
  expect(r.status, r.text).toBe(200);
  return r.body.now;
}

/** The rows since `since`, with their attempts, for a failure message. */
async function rowsText(since: number): Promise<string> {
  const rows = await rowsSince(since);
  const details = await Promise.all(rows.slice(0, 6).map(async (r) => (await gw.api("GET", `/api/logs/${r.id}`)).body));
  return JSON.stringify(details, null, 1).slice(0, 12_000);
}

const claudeSnippet = () => subscriptionSnippet("claude-code", gw.url, null);
const codexSnippet = () => subscriptionSnippet("codex-cli", gw.url, null);

/** The upstream requests the simulator saw since `from` (an index into sim.requests). */
const seenSince = (from: number) => sim.requests.slice(from);
const generations = (from: number) => seenSince(from).filter((r) => r.path.startsWith("/v1/messages") || r.path.endsWith("/responses"));

describe("R21.8 use your subscription with the real clients: (a) the login is served and never kept", () => {
  it(
    "R21.8 Claude Code on a Max plan, only ANTHROPIC_BASE_URL set: answered on its login, which the simulator saw as Bearer sk-ant-oat01-…",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const snippet = claudeSnippet();
      expect(snippet.text).toBe(`export ANTHROPIC_BASE_URL=${gw.url}\nexport CLAUDE_CODE_GATEWAY_HINT_HEADERS=1\nclaude`);
      const home = temp("claude-a");
      claudeMaxHome(home);
      const from = sim.requests.length;
      const since = await gatewayNow();
      const run = await runClaude(snippet.text, home, temp("claude-a-cwd"), "Say hello");
      expect(run.code, describeRun(run)).toBe(0);
      expect(run.stdout, describeRun(run)).toContain(`Hello from vendor (login ${CLAUDE_NAME})`);
      const upstream = generations(from);
      expect(upstream.length).toBeGreaterThan(0);
      for (const r of upstream) {
        expect(r.headers["authorization"]).toBe(`Bearer ${CLAUDE_LOGIN}`);
        expect(r.headers["x-api-key"]).toBeUndefined();
        expect(String(r.headers["anthropic-beta"])).toContain("oauth-2025-04-20");
      }
      const rows = (await rowsSince(since)).filter((r) => r.clientKind === "claude-code");
      expect(rows.some((r) => r.status === 200 && r.trafficClass === "main")).toBe(true);
      for (const r of rows.filter((x) => x.status === 200)) expect(r.connectionId).toBe(`max~${digest(CLAUDE_LOGIN).slice(0, 12)}`);
    },
  );

  it(
    "R21.8 Codex on a ChatGPT plan, the provider block with requires_openai_auth: answered on its login through /backend-api/codex, with its account id",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const snippet = codexSnippet();
      expect(snippet.text).toContain(`base_url = "${gw.url}/backend-api/codex"`);
      const home = temp("codex-a");
      codexChatgptHome(home, snippet.text);
      const from = sim.requests.length;
      const since = await gatewayNow();
      const run = await runCodex(home, temp("codex-a-cwd"), "Say hello", ["-m", CODEX_MODEL]);
      expect(run.code, describeRun(run)).toBe(0);
      expect(run.stdout, describeRun(run)).toContain(`Hello from vendor (login ${CODEX_NAME})`);
      const upstream = generations(from);
      expect(upstream.length).toBeGreaterThan(0);
      for (const r of upstream) {
        expect(r.path).toBe("/backend-api/codex/responses");
        expect(r.headers["authorization"]).toBe(`Bearer ${CODEX_LOGIN}`);
        expect(r.headers["chatgpt-account-id"]).toBe(CODEX_ACCOUNT);
      }
      const rows = (await rowsSince(since)).filter((r) => r.clientKind === "codex-cli");
      expect(rows.some((r) => r.status === 200 && r.trafficClass === "main")).toBe(true);
      for (const r of rows.filter((x) => x.status === 200)) expect(r.connectionId).toBe(`plus~${digest(CODEX_LOGIN).slice(0, 12)}`);
    },
  );

  it(
    "R21.8 Codex started plainly (no -m) takes its model from Switchyard's ChatGPT-backend catalogue, and that model is served on its login",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const home = temp("codex-plain");
      codexChatgptHome(home, codexSnippet().text);
      const catalogue = await fetch(`${gw.url}/backend-api/codex/models?client_version=0.171.0`, {
        headers: { authorization: `Bearer ${CODEX_LOGIN}`, "chatgpt-account-id": CODEX_ACCOUNT, "user-agent": "codex_cli_rs/0.171.0" },
      });
      const slugs = ((await catalogue.json()) as { models: Array<{ slug: string }> }).models.map((m) => m.slug);
      const run = await runCodex(home, temp("codex-plain-cwd"), "Say hello");
      const why = `${describeRun(run)}\n--- catalogue ${JSON.stringify(slugs)}`;
      expect(run.code, why).toBe(0);
      expect(run.stdout, why).toContain(`Hello from vendor (login ${CODEX_NAME})`);
    },
  );

  it("R21.8 R23.2 `switchyard run claude` and `switchyard run codex` keep each login and are answered on it", { timeout: TEST_TIMEOUT_MS }, async () => {
    const claudeHome = temp("run-claude");
    claudeMaxHome(claudeHome);
    const claudeEnv = baseEnv(claudeHome, { SWITCHYARD_URL: gw.url });
    claudeEnv.PATH = `${path.dirname(clientBin("claude"))}${path.delimiter}${claudeEnv.PATH}`;
    const claude = await runCli(["run", "claude", "--", "-p", "Say hello"], { cwd: temp("run-claude-cwd"), env: claudeEnv });
    expect(claude.code, describeRun(claude)).toBe(0);
    expect(claude.stdout, describeRun(claude)).toContain(`Hello from vendor (login ${CLAUDE_NAME})`);

    // No config.toml: run gives Codex the provider block for this process only (-c), here the ChatGPT backend's path.
    const codexHome = temp("run-codex");
    codexChatgptHome(codexHome, "");
    rmSync(path.join(codexHome, ".codex", "config.toml"));
    const codexEnv = baseEnv(codexHome, { SWITCHYARD_URL: gw.url, SWITCHYARD_AGENT_BIN_CODEX: clientBin("codex") });
    const from = sim.requests.length;
    const codex = await runCli(["run", "codex", "--", "exec", "--skip-git-repo-check", "-m", CODEX_MODEL, "Say hello"], { cwd: temp("run-codex-cwd"), env: codexEnv });
    expect(codex.code, describeRun(codex)).toBe(0);
    expect(codex.stdout, describeRun(codex)).toContain(`Hello from vendor (login ${CODEX_NAME})`);
    expect(generations(from).map((r) => r.path)).toContain("/backend-api/codex/responses");
  });

  it("R21.8 R21.1 neither login is in Switchyard's log rows, API answers, export, /metrics or data folder", async () => {
    const logs = (await gw.api<Json[]>("GET", "/api/logs?limit=200")).body;
    const details = await Promise.all(logs.slice(0, 50).map(async (r) => JSON.stringify((await gw.api("GET", `/api/logs/${r.id}`)).body)));
    const texts = [
      JSON.stringify(logs),
      ...details,
      JSON.stringify((await gw.api("GET", "/api/connections")).body),
      JSON.stringify((await gw.api("GET", "/api/resilience/cooldowns")).body),
      JSON.stringify((await gw.api("GET", "/api/usage/quotas")).body),
      JSON.stringify((await gw.api("GET", "/api/config/export")).body),
      (await gw.api("GET", "/metrics")).text,
    ];
    await new Promise((r) => setTimeout(r, 300)); // the request log's batched writes
    const files = filesUnder(gw.home);
    expect(files.length).toBeGreaterThan(0);
    // The JWT's signature-free middle part alone would identify the ChatGPT login too.
    for (const secret of [CLAUDE_LOGIN, CLAUDE_REFRESH, CODEX_LOGIN, CODEX_LOGIN.split(".")[1]]) {
      for (const [i, t] of texts.entries()) expect(t.includes(secret), `answer ${i} holds ${secret.slice(0, 16)}…`).toBe(false);
      for (const [file, t] of files) expect(t.includes(secret), `${file} holds ${secret.slice(0, 16)}…`).toBe(false);
    }
  });
});

/** One client's session across the window's end and reset: how to start it, go on with it, and read its rows. */
interface SessionCase {
  client: "Claude Code" | "Codex";
  kind: "claude-code" | "codex-cli";
  login: string;
  /** The login's name at the simulator. */
  name: string;
  /** The client-login connection's id (its accounts are `<id>~<12 hex>`). */
  connection: string;
  /** The metered connection a crossing moves to, and the key the simulator then saw. */
  metered: string;
  meteredKey: string;
  /** What the client tells its user when its plan's limit is reached. */
  limitMessage: RegExp;
  /** Sets up a HOME; returns a function running one turn (the first starts the session, the others go on with it). */
  start(): Turn;
}

type Turn = (prompt: string, timeoutMs?: number) => Promise<ClientRun>;

/** A client that keeps retrying a refusal for the hour to the reset is as bad as a hang: the stay answer must end the turn. */
const STAY_TIMEOUT_MS = 45_000;

const SESSIONS: SessionCase[] = [
  {
    client: "Claude Code",
    kind: "claude-code",
    login: CLAUDE_LOGIN,
    name: CLAUDE_NAME,
    connection: "max",
    metered: "team-key",
    meteredKey: METERED_ANTHROPIC_KEY,
    // What Claude Code prints for Anthropic's own 429 with the unified status rejected (measured against the simulator).
    limitMessage: /hit your 5-hour limit · resets/,
    start() {
      const home = temp("claude-session");
      claudeMaxHome(home);
      const cwd = temp("claude-session-cwd");
      const session = randomUUID();
      let turns = 0;
      return (prompt, timeoutMs) =>
        runClaude(claudeSnippet().text, home, cwd, prompt, ["--model", CLAUDE_MODEL, ...(turns++ === 0 ? ["--session-id", session] : ["--resume", session])], timeoutMs);
    },
  },
  {
    client: "Codex",
    kind: "codex-cli",
    login: CODEX_LOGIN,
    name: CODEX_NAME,
    connection: "plus",
    metered: "openai-key",
    meteredKey: METERED_OPENAI_KEY,
    // What Codex prints for the ChatGPT backend's own usage_limit_reached (measured against the simulator).
    limitMessage: /hit your usage limit/,
    start() {
      const home = temp("codex-session");
      codexChatgptHome(home, codexSnippet().text);
      const cwd = temp("codex-session-cwd");
      let turns = 0;
      // `codex exec resume --last` goes on with the latest session of this CODEX_HOME.
      return (prompt, timeoutMs) => runCodex(home, cwd, prompt, turns++ === 0 ? ["-m", CODEX_MODEL] : ["resume", "--last", "-m", CODEX_MODEL], timeoutMs);
    },
  },
];

async function setBoundary(main: "cross" | "stay"): Promise<void> {
  const r = await gw.api("PATCH", "/api/resilience", { billingBoundary: { main } });
  expect(r.status, r.text).toBe(200);
  expect(r.body.billingBoundary.main).toBe(main);
}

describe("R21.8 R21.5 the window runs out mid-session, and comes back at its reset (real clients)", () => {
  beforeAll(async () => {
    await gw.api("POST", "/api/resilience/cooldowns", { all: true });
  });

  for (const c of SESSIONS) {
    describe(c.client, () => {
      const account = () => `${c.connection}~${digest(c.login).slice(0, 12)}`;
      const onLogin = `Hello from vendor (login ${c.name})`;
      const onMetered = `Hello from vendor (key ${c.meteredKey})`;
      let turn: Turn;
      let stayedRun: ClientRun | undefined;

      it(`R21.8 ${c.client}: the session's first turn is served on the login`, { timeout: TEST_TIMEOUT_MS }, async () => {
        await setBoundary("stay");
        turn = c.start();
        const first = await turn("Say hello");
        expect(first.code, describeRun(first)).toBe(0);
        expect(first.stdout, describeRun(first)).toContain(onLogin);
      });

      it(
        `R21.8 R21.5 ${c.client}: (b) the window runs out mid-session; billingBoundary main "stay" answers 429 window_exhausted and nothing goes to a metered account`,
        { timeout: TEST_TIMEOUT_MS },
        async () => {
          // The 5-hour window runs out, its reset an hour away.
          sim.setSubscriptionUsage(c.name, { window: "5h", exhaust: true, resetInSeconds: 3600 });
          await setBoundary("stay");
          const since = await gatewayNow();
          const from = sim.requests.length;
          const stayed = await turn("Say hello once more", STAY_TIMEOUT_MS);
          const why = `${describeRun(stayed)}\n--- rows\n${await rowsText(since)}`;
          const rows = (await rowsSince(since)).filter((r) => r.clientKind === c.kind && r.trafficClass === "main");
          expect(rows.length, why).toBeGreaterThan(0);
          for (const r of rows) expect(r, why).toMatchObject({ status: 429, errorCode: "window_exhausted" });
          expect(generations(from).filter((r) => r.key === c.meteredKey)).toEqual([]);
          expect(stayed.stdout).not.toContain(onMetered);
          stayedRun = stayed;
        },
      );

      it(`R21.8 R21.5 ${c.client}: under "stay" the client tells its user the plan's limit is reached and ends the turn, as the vendor's own answer makes it`, () => {
        expect(stayedRun, "the stay turn ran").toBeDefined();
        const why = describeRun(stayedRun!);
        expect(stayedRun!.timedOut, why).toBe(false);
        expect(stayedRun!.code, why).not.toBe(0);
        expect(stayedRun!.stdout + stayedRun!.stderr, why).toMatch(c.limitMessage);
      });

      it(
        `R21.8 R21.5 ${c.client}: (b) with "cross" the same session carries on on the metered account, and the row says billingCrossed`,
        { timeout: TEST_TIMEOUT_MS },
        async () => {
          await setBoundary("cross");
          const since = await gatewayNow();
          const from = sim.requests.length;
          const crossed = await turn("Say hello again");
          const why = `${describeRun(crossed)}\n--- rows\n${await rowsText(since)}`;
          expect(crossed.code, why).toBe(0);
          expect(crossed.stdout, why).toContain(onMetered);
          const rows = (await rowsSince(since)).filter((r) => r.clientKind === c.kind && r.trafficClass === "main");
          expect(
            rows.find((r) => r.status === 200),
            why,
          ).toMatchObject({ connectionId: c.metered, billingCrossed: true, billingCrossing: { fromConnectionId: account(), toConnectionId: c.metered } });
          // The metered account got the turn with its own key, never the login.
          const metered = generations(from).filter((r) => r.key === c.meteredKey);
          expect(metered.length).toBeGreaterThan(0);
          for (const r of metered) expect(JSON.stringify(r.headers)).not.toContain(c.login);
        },
      );

      it(
        `R21.8 R21.4 ${c.client}: (c) past the window's reset (gateway test clock and simulator clock) the session is back on the login`,
        { timeout: TEST_TIMEOUT_MS },
        async () => {
          const advanceMs = 3600_000 + 60_000;
          const moved = await gw.api("POST", "/api/debug/clock", { advanceMs });
          expect(moved.status, moved.text).toBe(200);
          sim.advanceClock(advanceMs);
          const since = await gatewayNow();
          const back = await turn("Say hello after the reset");
          const why = `${describeRun(back)}\n--- rows\n${await rowsText(since)}`;
          expect(back.code, why).toBe(0);
          expect(back.stdout, why).toContain(onLogin);
          const rows = (await rowsSince(since)).filter((r) => r.clientKind === c.kind && r.trafficClass === "main" && r.status === 200);
          expect(rows.length, why).toBeGreaterThan(0);
          for (const r of rows) expect(r, why).toMatchObject({ connectionId: account() });
          for (const r of rows) expect(r.billingCrossed ?? false, why).toBe(false);
        },
      );

      it(
        `R21.8 R21.4 ${c.client}: the window runs out inside a 200 stream before any content; with "cross" the turn fails over invisibly to the metered account`,
        { timeout: TEST_TIMEOUT_MS },
        async () => {
          await setBoundary("cross");
          sim.exhaustInStream(c.name, { afterChunks: 0 });
          const since = await gatewayNow();
          const run = await turn("Say hello while the window ends");
          const why = `${describeRun(run)}\n--- rows\n${await rowsText(since)}`;
          expect(run.code, why).toBe(0);
          expect(run.stdout, why).toContain(onMetered);
          expect(run.stdout + run.stderr, why).not.toMatch(/usage limit|rate limit/i);
          const rows = (await rowsSince(since)).filter((r) => r.clientKind === c.kind && r.trafficClass === "main" && r.status === 200);
          expect(rows[0], why).toMatchObject({ connectionId: c.metered, billingCrossed: true });
          expect(rows[rows.length - 1]?.attempts?.[0], why).toMatchObject({ connectionId: account(), verdict: "quota_exhausted" });
        },
      );
    });
  }
});
