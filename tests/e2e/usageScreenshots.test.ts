// R18.6 with realistic data, for docs/screenshots: a day and a half of traffic (the test clock
// moves an hour at a time, and the quota simulator's clock with it) from Claude Code, aider, the
// Codex CLI and the Gemini CLI over three providers, five connections and five models, with client
// keys, budgets and a flat-rate subscription. The Usage page must read well at 1024 px with it.
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../main/simulator/index.js";
import { api, ARTIFACTS, layoutAndLabelProblems, openPage, screenshot, useHarness, type Server } from "./harness.js";
import { anthropicMessages, geminiGenerate, openaiChat } from "./usageTraffic.js";

const HOUR_MS = 3_600_000;
const HOURS = 36;
/** Requests per hour of the (server's) local day: quiet nights, busy working hours. */
const LOAD = [0, 0, 0, 0, 0, 0, 1, 2, 4, 6, 7, 6, 3, 5, 7, 8, 6, 5, 3, 2, 2, 1, 1, 0];

const price = (input: number, output: number) => ({
  inputPricePerMTok: input,
  outputPricePerMTok: output,
  cacheReadPricePerMTok: input / 10,
  cacheWritePricePerMTok: input * 1.25,
});

async function setUp(server: Server, quotaSim: Simulator): Promise<void> {
  const provider = (body: Record<string, unknown>) => api(server, "POST", "/api/providers", { category: "apikey", ...body });
  const connection = (body: Record<string, unknown>) => api(server, "POST", "/api/connections", body);
  await provider({
    id: "claude",
    format: "anthropic",
    baseUrl: quotaSim.url,
    models: ["claude-opus-4-1", "claude-haiku-4-5"],
    modelInfo: { "claude-opus-4-1": price(15, 75), "claude-haiku-4-5": price(1, 5) },
  });
  await connection({ id: "claude-max", provider: "claude", name: "Claude Max", apiKey: "claude-max-key", subscription: true });
  await connection({ id: "claude-team", provider: "claude", name: "Claude team key", apiKey: "claude-team-key", priority: 1 });
  await provider({
    id: "openai",
    format: "openai",
    baseUrl: `${quotaSim.url}/v1`,
    models: ["gpt-5", "gpt-5-mini"],
    modelInfo: { "gpt-5": price(1.25, 10), "gpt-5-mini": price(0.25, 2) },
  });
  await connection({ id: "openai-team", provider: "openai", name: "OpenAI team", apiKey: "openai-team-key", budget: { period: "day", maxCostUsd: 0.25 } });
  await connection({ id: "openai-spare", provider: "openai", name: "OpenAI spare", apiKey: "openai-spare-key", priority: 1 });
  await provider({ id: "gemini", format: "gemini", baseUrl: `${quotaSim.url}/v1beta`, models: ["gemini-2.5-pro"], modelInfo: { "gemini-2.5-pro": price(1.25, 10) } });
  await connection({ id: "gemini-key", provider: "gemini", name: "Gemini key", apiKey: "gemini-key" });
  for (const [name, budget] of [
    ["laptop", { period: "day", maxCostUsd: 1 }],
    ["ci-bot", { period: "month", maxTokens: 600_000 }],
    ["pair-session", null],
  ] as const) {
    KEYS[name] = (await api<{ key: string }>(server, "POST", "/api/keys", { name, budget })).key;
  }
}

/** An agent's working context, most of it the same each turn: thousands of prompt tokens (Claude Code's kept small, so its subscription windows stay under their walls). */
const CONTEXT_LINE = "Repository map, coding rules and the files open in the editor, as a coding agent sends them. ";
const CONTEXT_LINES: Record<string, number> = { "claude-code": 170, aider: 1_200, codex: 1_200, "gemini-cli": 1_200 };
const REPLY = "I read the failing test, traced it to the date parsing in the scheduler, and changed the parser to accept offsets. ".repeat(16);

interface Tool {
  send(server: Server, session: SessionTurn): Promise<number>;
}

interface SessionTurn {
  system: string;
  turns: number;
}

const TOOLS: Record<string, Tool> = {
  "claude-code": { send: (s, t) => anthropicMessages(s, t.turns % 3 === 2 ? "claude/claude-haiku-4-5" : "claude/claude-opus-4-1", { key: KEYS.laptop, ...t }) },
  aider: { send: (s, t) => openaiChat(s, "openai/gpt-5", { key: KEYS["pair-session"], ...t }) },
  codex: { send: (s, t) => openaiChat(s, "openai/gpt-5-mini", { key: KEYS["ci-bot"], userAgent: "codex_cli_rs/0.171.0", ...t }) },
  "gemini-cli": { send: (s, t) => geminiGenerate(s, "gemini/gemini-2.5-pro", t) },
};
const ROTATION = ["claude-code", "aider", "claude-code", "codex", "gemini-cli", "claude-code", "aider"];
const KEYS: Record<string, string> = {};

/** Each tool runs sessions of up to six turns; a new session is a new prompt, not yet cached. */
function createSessions() {
  const state = new Map<string, { session: number; turns: number }>();
  return (tool: string): SessionTurn => {
    const s = state.get(tool) ?? { session: 0, turns: -1 };
    s.turns += 1;
    if (s.turns === 6) Object.assign(s, { session: s.session + 1, turns: 0 });
    state.set(tool, s);
    return { system: `${tool} session ${s.session}. ${CONTEXT_LINE.repeat(CONTEXT_LINES[tool])}`, turns: s.turns };
  };
}

async function hourOfTraffic(server: Server, count: number, next: (tool: string) => SessionTurn, seq: { n: number }): Promise<void> {
  for (let i = 0; i < count; i++) {
    const tool = ROTATION[seq.n++ % ROTATION.length];
    await TOOLS[tool].send(server, next(tool));
  }
}

describe("Usage page with a day and a half of traffic", () => {
  let quotaSim: Simulator;
  let offset = 0;
  const h = useHarness(
    async (h) => {
      quotaSim = await startSimulator({ quotaHeaders: true, label: "quota", replyText: REPLY, quotaClock: () => Date.now() + offset });
      await setUp(h.server, quotaSim);
      const advance = async (ms: number) => {
        await api(h.server, "POST", "/api/debug/clock", { advanceMs: ms });
        offset += ms;
      };
      // The test clock only moves forward: the history starts at the next 03:00 (server time).
      const { now } = await api<{ now: number }>(h.server, "GET", "/api/debug/clock");
      const start = new Date(now);
      start.setHours(3, 0, 0, 0);
      if (start.getTime() <= now) start.setDate(start.getDate() + 1);
      await advance(start.getTime() - now);
      const next = createSessions();
      const seq = { n: 0 };
      for (let hour = 0; hour < HOURS; hour++) {
        if (hour > 0) await advance(HOUR_MS);
        await hourOfTraffic(h.server, LOAD[new Date(now + offset).getHours()], next, seq);
      }
      await openPage(h, "Usage", "Usage");
    },
    { testClock: true },
  );
  afterAll(async () => quotaSim?.close());

  it("R18.6 the Usage page with realistic traffic: totals, charts by provider, quotas and budgets fit 1024 px", async () => {
    const { page } = h;
    const week = page
      .getByRole("table", { name: "Usage today, in the last 7 days and in the last 30 days" })
      .getByRole("row")
      .filter({ has: page.getByRole("rowheader", { name: "Last 7 days" }) });
    await expect.poll(async () => Number((await week.getByRole("cell").first().innerText()).replace(/,/g, "")), { timeout: 15_000 }).toBeGreaterThan(80);
    await expect
      .poll(async () => (await page.getByRole("list", { name: "Series in the usage charts" }).getByRole("listitem").allInnerTexts()).sort(), { timeout: 10_000 })
      .toEqual(["claude", "gemini", "openai"]);
    await page.getByRole("meter", { name: "Quota Claude Max (claude) · 5h" }).waitFor({ timeout: 10_000 });
    await page.getByRole("meter", { name: "Budget of laptop" }).waitFor();
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    await screenshot(page, "usage-realistic");

    const quotas = await page.getByRole("region", { name: "Quotas" }).boundingBox();
    const budgets = await page.getByRole("region", { name: "Budgets" }).boundingBox();
    const top = Math.floor(quotas!.y) - 12;
    const clip = { x: Math.floor(quotas!.x) - 12, y: top, width: Math.ceil(quotas!.width) + 24, height: Math.ceil(budgets!.y + budgets!.height) + 12 - top };
    await page.screenshot({ path: path.join(ARTIFACTS, "usage-budgets.png"), fullPage: true, clip });

    await page.getByLabel("Group by").selectOption("model");
    await page.getByLabel("Range").selectOption("7d");
    await expect.poll(async () => page.getByRole("list", { name: "Series in the usage charts" }).getByRole("listitem").count(), { timeout: 10_000 }).toBe(5);
    expect(await layoutAndLabelProblems(page)).toEqual([]);
    await screenshot(page, "usage-by-model");
    expect(h.problems).toEqual([]);
  }, 60_000);
});
