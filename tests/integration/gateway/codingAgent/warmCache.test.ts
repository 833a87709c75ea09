// R20.2 and R20.4: a session's warm prompt cache is what a coding agent pays for. The simulator
// caches prompts per API key (a later prompt that starts with an earlier one reads it), so the
// rows' cache-read share, the "moved to a cold account" mark and the wait-or-switch choice are
// all measured against real cache reads.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../../main/simulator/index.js";
import { addProvider, parseSse, startGateway, startSim, type TestGateway } from "../../harness.js";

type Json = Record<string, any>;

let gw: TestGateway;
let sim: Simulator;
let session = 0;

/** A system prompt well past the vendors' caching minimum of 1 024 tokens. */
const SYSTEM = [{ type: "text", text: "You are a careful coding agent. Read the code before you change it. ".repeat(120), cache_control: { type: "ephemeral" } }];
const HEADERS = { "user-agent": "claude-cli/2.1.332 (external, cli)", "anthropic-version": "2023-06-01", "x-api-key": "x" };

beforeAll(async () => {
  sim = await startSim();
  gw = await startGateway({ env: { SWITCHYARD_STREAM_HEARTBEAT_MS: "200" } });
  await addProvider(gw, "warm-a", sim, "anthropic", ["wkey-a"]);
  await addProvider(gw, "warm-b", sim, "anthropic", ["wkey-b"]);
  expect((await gw.api("POST", "/api/combos", { name: "pair", strategy: "priority", targets: [{ model: "warm-a/m1" }, { model: "warm-b/m1" }] })).status).toBe(201);
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

beforeEach(async () => {
  sim.clearFaults();
  await gw.api("PATCH", "/api/resilience", { waitOrSwitch: { enabled: true, maxWaitMs: 8_000 } });
  await gw.api("POST", "/api/resilience/cooldowns", { all: true });
  session++;
});

/** The conversation after `turns` user turns, each answered (the simulator's answer is deterministic text). */
function conversation(turns: number): Json[] {
  const messages: Json[] = [];
  for (let i = 1; i <= turns; i++) {
    if (i > 1) messages.push({ role: "assistant", content: [{ type: "text", text: `Answer ${i - 1}` }] });
    messages.push({ role: "user", content: [{ type: "text", text: `Step ${i}: carry on with the refactor.`, ...(i === turns ? { cache_control: { type: "ephemeral" } } : {}) }] });
  }
  return messages;
}

async function turn(turns: number, stream = false) {
  const body = { model: "pair", max_tokens: 1024, stream, system: SYSTEM, messages: conversation(turns) };
  return gw.post("/v1/messages", body, { ...HEADERS, "x-claude-code-session-id": `warm-session-${session}` });
}

async function lastRow(): Promise<Json> {
  return (await gw.api<Json[]>("GET", "/api/logs?limit=1")).body[0];
}

const keysSeen = (from: number) => sim.requests.slice(from).map((r) => r.key);

describe("R20.2 cache-read share and the cold-move mark", () => {
  it("R20.2 each row shows its cache-read share: the second turn of a session reads most of its prompt from the cache", async () => {
    expect((await turn(1)).status).toBe(200);
    const first = await lastRow();
    expect(first.cacheReadShare).toBe(0);
    expect((await turn(2)).status).toBe(200);
    const second = await lastRow();
    expect(second.cacheReadTokens).toBeGreaterThan(1_024);
    expect(second.cacheReadShare).toBeCloseTo(second.cacheReadTokens / second.inputTokens, 3);
    expect(second.cacheReadShare).toBeGreaterThan(0.8);
    expect(second.cacheMove ?? null).toBeNull();
  });

  it("R20.2 a failover that moves a warm session to a cold account is marked with the tokens it re-sent", async () => {
    await turn(1);
    await turn(2);
    sim.addFault("wkey-a", { status: 529, times: 1 });
    const moved = await turn(3);
    expect(moved.status).toBe(200);
    const row = await lastRow();
    expect(row.connectionId).toBe("warm-b-c1");
    expect(row.cacheReadTokens ?? 0).toBe(0);
    expect(row.cacheMove).toEqual({ fromConnectionId: "warm-a-c1", toConnectionId: "warm-b-c1", resentTokens: row.inputTokens });
    expect(row.cacheMove.resentTokens).toBeGreaterThan(1_024);
  });
});

describe("R20.4 wait or switch at a short 429 on the warm account", () => {
  it("R20.4 a 429 whose hint is within waitOrSwitch.maxWaitMs is waited out on the warm account, with keep-alives, and its cache stays warm", async () => {
    await turn(1);
    await turn(2);
    const from = sim.requests.length;
    sim.addFault("wkey-a", { status: 429, retryAfter: 1, times: 1 });
    const started = Date.now();
    const res = await turn(3, true);
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(parseSse(res.text).filter((e) => e.event === "ping").length).toBeGreaterThanOrEqual(2);
    expect(keysSeen(from)).toEqual(["wkey-a", "wkey-a"]);
    const row = await lastRow();
    expect(row.connectionId).toBe("warm-a-c1");
    expect(row.cacheReadShare).toBeGreaterThan(0.8);
    expect(row.cacheMove ?? null).toBeNull();
    expect(row.waitOrSwitch).toEqual([{ choice: "wait", reason: "within_max_wait", connectionId: "warm-a-c1", hintMs: 1_000, waitedMs: expect.any(Number), maxWaitMs: 8_000 }]);
    expect(row.waitOrSwitch[0].waitedMs).toBeGreaterThanOrEqual(900);
  });

  it("R20.4 a hint longer than maxWaitMs moves the session to the cold account at once, and says why", async () => {
    await turn(1);
    await turn(2);
    sim.addFault("wkey-a", { status: 429, retryAfter: 30, times: 1 });
    const started = Date.now();
    expect((await turn(3)).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(2_000);
    const row = await lastRow();
    expect(row.connectionId).toBe("warm-b-c1");
    expect(row.waitOrSwitch).toEqual([{ choice: "switch", reason: "longer_than_max_wait", connectionId: "warm-a-c1", hintMs: 30_000, waitedMs: 0, maxWaitMs: 8_000 }]);
    expect(row.cacheMove).toMatchObject({ fromConnectionId: "warm-a-c1", toConnectionId: "warm-b-c1" });
  });

  it("R20.4 with waitOrSwitch off the same short 429 switches, and the timeline says it was the setting", async () => {
    expect((await gw.api("PATCH", "/api/resilience", { waitOrSwitch: { enabled: false } })).status).toBe(200);
    await turn(1);
    await turn(2);
    sim.addFault("wkey-a", { status: 429, retryAfter: 1, times: 1 });
    expect((await turn(3)).status).toBe(200);
    const row = await lastRow();
    expect(row.connectionId).toBe("warm-b-c1");
    expect(row.waitOrSwitch).toEqual([expect.objectContaining({ choice: "switch", reason: "disabled" })]);
  });

  it("R20.4 a session with no warm cache fails over as before, with no decision to make", async () => {
    sim.addFault("wkey-a", { status: 429, retryAfter: 1, times: 1 });
    expect((await turn(1)).status).toBe(200);
    const row = await lastRow();
    expect(row.connectionId).toBe("warm-b-c1");
    expect(row.waitOrSwitch).toBeUndefined();
    expect(row.cacheMove ?? null).toBeNull();
  });
});
