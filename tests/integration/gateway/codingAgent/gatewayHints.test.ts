// R25.5: Claude Code's gateway hints (`CLAUDE_CODE_GATEWAY_HINT_HEADERS=1`). Its
// `x-claude-code-request-class` names the request's class ahead of every body signal (main → main,
// subagent and workflow → subagent, compaction → compaction, auxiliary → background; any other
// value leaves the body's signals to decide), and `x-claude-code-context-compacted`, sent once on
// the first request after a compaction, ends the session's warm-cache hold on the old prefix.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../../harness.js";

type Json = Record<string, any>;

const captures = (JSON.parse(readFileSync("tests/fixtures/clients/trafficCaptures.json", "utf8")) as { captures: Json[] }).captures;
const TITLE = captures.find((c) => c.client === "claude-code" && String(c.what).startsWith("session title"))!;
const CLAUDE = { "user-agent": "claude-cli/2.1.332 (external, cli)", "anthropic-version": "2023-06-01", "x-api-key": "x" };

let gw: TestGateway;
let sim: Simulator;
let session = 0;

beforeAll(async () => {
  sim = await startSim({ label: "hints" });
  gw = await startGateway();
  await addProvider(gw, "hint-a", sim, "anthropic", ["hkey-a"]);
  await addProvider(gw, "hint-b", sim, "anthropic", ["hkey-b"]);
  expect((await gw.api("POST", "/api/combos", { name: "hpair", strategy: "priority", targets: [{ model: "hint-a/m1" }, { model: "hint-b/m1" }] })).status).toBe(201);
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

beforeEach(async () => {
  sim.clearFaults();
  await gw.api("PATCH", "/api/resilience", { trafficClasses: { enabled: true }, waitOrSwitch: { enabled: true, maxWaitMs: 8_000 } });
  await gw.api("POST", "/api/resilience/cooldowns", { all: true });
  session++;
});

async function lastRow(): Promise<Json> {
  return (await gw.api<Json[]>("GET", "/api/logs?limit=1")).body[0];
}

const mainBody = { model: "hint-a/m1", max_tokens: 256, system: "You are Claude Code.", messages: [{ role: "user", content: "Fix the failing test." }] };
const titleBody = { ...TITLE.body, model: "hint-a/m1", stream: false };
const suggestionBody = { ...mainBody, messages: [{ role: "user", content: "[SUGGESTION MODE: suggest what the user might type next]" }] };

async function classOf(body: Json, hint: string | null, headers: Record<string, string> = CLAUDE): Promise<string> {
  const res = await gw.post("/v1/messages?beta=true", body, { ...headers, ...(hint === null ? {} : { "x-claude-code-request-class": hint }) });
  expect(res.status).toBe(200);
  const row = await lastRow();
  expect(row.id).toBe(res.headers.get("x-switchyard-request-id"));
  return row.trafficClass as string;
}

describe("R25.5 x-claude-code-request-class", () => {
  it("R25.5 each hinted class maps as the gateway reference says: main, subagent, workflow → subagent, compaction, auxiliary → background", async () => {
    expect(await classOf(mainBody, "main")).toBe("main");
    expect(await classOf(mainBody, "subagent")).toBe("subagent");
    expect(await classOf(mainBody, "workflow")).toBe("subagent");
    expect(await classOf(mainBody, "compaction")).toBe("compaction");
    expect(await classOf(mainBody, "auxiliary")).toBe("background");
  });

  it("R25.5 the hint comes ahead of the body's signals: a title-shaped body hinted main is main, a plain turn hinted auxiliary is background", async () => {
    expect(await classOf(titleBody, null)).toBe("background");
    expect(await classOf(titleBody, "main")).toBe("main");
    expect(await classOf(suggestionBody, "subagent")).toBe("subagent");
    expect(await classOf(mainBody, "auxiliary")).toBe("background");
  });

  it("R25.5 an unknown value (Claude Code's side_reply, a typo) is ignored: the body's signals decide", async () => {
    expect(await classOf(titleBody, "side_reply")).toBe("background");
    expect(await classOf(mainBody, "side_reply")).toBe("main");
    expect(await classOf(suggestionBody, "SOMETHING-else")).toBe("background");
  });

  it("R25.5 the hint classes whatever client sends it (the header is the client's own statement)", async () => {
    expect(await classOf(mainBody, "subagent", { "anthropic-version": "2023-06-01", "x-api-key": "x", "user-agent": "my-script/1.0" })).toBe("subagent");
  });

  it("R25.5 an auxiliary request is shed at a 429 like any background work (R20.3)", async () => {
    sim.addFault("hkey-a", { status: 429, retryAfter: 2, times: 1 });
    const res = await gw.post("/v1/messages?beta=true", { ...mainBody, model: "hpair" }, { ...CLAUDE, "x-claude-code-request-class": "auxiliary" });
    expect(res.status).toBe(429);
    expect((await lastRow()).errorCode).toBe("traffic_shed");
  });
});

/** A system prompt well past the vendors' caching minimum of 1 024 tokens. */
const SYSTEM = [{ type: "text", text: "You are a careful coding agent. Read the code before you change it. ".repeat(120), cache_control: { type: "ephemeral" } }];

function conversation(turns: number): Json[] {
  const messages: Json[] = [];
  for (let i = 1; i <= turns; i++) {
    if (i > 1) messages.push({ role: "assistant", content: [{ type: "text", text: `Answer ${i - 1}` }] });
    messages.push({ role: "user", content: [{ type: "text", text: `Step ${i}: carry on.`, ...(i === turns ? { cache_control: { type: "ephemeral" } } : {}) }] });
  }
  return messages;
}

async function turn(turns: number, extra: Record<string, string> = {}) {
  const body = { model: "hpair", max_tokens: 512, system: SYSTEM, messages: conversation(turns) };
  return gw.post("/v1/messages", body, { ...CLAUDE, "x-claude-code-session-id": `hint-session-${session}`, ...extra });
}

describe("R25.5 x-claude-code-context-compacted", () => {
  it("R25.5 before a compaction, a short 429 on the warm account is waited out (R20.4): the hold is there", async () => {
    await turn(1);
    await turn(2);
    expect((await lastRow()).cacheReadTokens).toBeGreaterThan(0);
    sim.addFault("hkey-a", { status: 429, retryAfter: 1, times: 1 });
    expect((await turn(3)).status).toBe(200);
    const row = await lastRow();
    expect(row.connectionId).toBe("hint-a-c1");
    expect(row.waitOrSwitch?.[0]?.choice).toBe("wait");
  });

  it("R25.5 the first request after a compaction ends the hold: the same 429 moves it at once, with no wait and no cold-move mark", async () => {
    await turn(1);
    await turn(2);
    expect((await lastRow()).cacheReadTokens).toBeGreaterThan(0);
    sim.addFault("hkey-a", { status: 429, retryAfter: 1, times: 1 });
    const started = Date.now();
    expect((await turn(3, { "x-claude-code-context-compacted": "auto" })).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(900);
    const row = await lastRow();
    expect(row.connectionId).toBe("hint-b-c1");
    expect(row.waitOrSwitch ?? null).toBeNull();
    expect(row.cacheMove ?? null).toBeNull();
  });
});
