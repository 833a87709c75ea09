// R12.6 over real HTTP: the simulator puts a Claude account behind the 5-hour usage wall; the
// gateway takes the slow lane (lowPriorityMode), waits out a busy slot, ends a lane that would wait
// too long, claims a session-limit reset (autoLimitReset), and without the opt-in treats the wall
// as an ordinary rate limit.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { startGateway, startSim, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;

const ask = () => gw.post("/v1/messages", { model: "claude/m1", max_tokens: 64, messages: [{ role: "user", content: "hi" }] });
const now = async (): Promise<number> => (await gw.api("GET", "/api/debug/clock")).body.now;
const slowHeaders = (key: string) => sim.requests.filter((r) => r.key === key).map((r) => r.headers["anthropic-usage-limit"] ?? null);

async function account(id: string, key: string, priority: number, data: Record<string, unknown>): Promise<void> {
  const c = await gw.api("POST", "/api/connections", { id, provider: "claude", apiKey: key, priority, providerSpecificData: data });
  expect(c.status).toBe(201);
}

beforeAll(async () => {
  sim = await startSim({ label: "claude" });
  gw = await startGateway({ testClock: true });
  const p = await gw.api("POST", "/api/providers", { id: "claude", format: "anthropic", baseUrl: sim.url, category: "oauth", models: ["m1"] });
  expect(p.status).toBe(201);
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

const setActive = async (only: string) => {
  for (const id of ["cl-lane", "cl-plain", "cl-busy", "cl-reset"]) await gw.api("PATCH", `/api/connections/${id}`, { active: id === only });
};

describe("Claude usage wall (R12.6)", () => {
  it("R12.6 lowPriorityMode: a wall 429 is retried at once on the same account with the slow header, and a later request still carries it", async () => {
    await account("cl-lane", "lane-key", 0, { lowPriorityMode: true });
    await account("cl-plain", "plain-key", 1, {});
    await account("cl-busy", "busy-key", 2, { lowPriorityMode: true });
    await account("cl-reset", "reset-key", 3, { autoLimitReset: true, organizationUUID: "org-1" });
    await setActive("cl-lane");
    const resetAt = Math.floor((await now()) / 1000) + 3_600;
    sim.setUsageWall("lane-key", { resetAt });

    const first = await ask();
    expect(first.status).toBe(200);
    expect(first.headers.get("x-omniroute-selected-connection-id")).toBe("cl-lane");
    expect(slowHeaders("lane-key")).toEqual([null, "slow"]);
    const row = (await gw.api("GET", "/api/connections/cl-lane")).body;
    expect(row).toMatchObject({ testStatus: "active", rateLimitedUntil: null });

    const later = await ask();
    expect(later.status).toBe(200);
    expect(slowHeaders("lane-key")).toEqual([null, "slow", "slow"]);

    // The Cooldown Manager shows the account in the slow lane and until when (reset + 60 s).
    const lanes = (await gw.api("GET", "/api/resilience/cooldowns?provider=claude")).body.items;
    expect(lanes).toEqual([expect.objectContaining({ connectionId: "cl-lane", status: "slow_lane", slowLaneUntil: resetAt * 1000 + 60_000 })]);

    // Past the reset + 60 s the lane is over: no slow header any more.
    sim.clearUsageWall("lane-key");
    await gw.api("POST", "/api/debug/clock", { advanceMs: resetAt * 1000 + 60_000 - (await now()) + 10 });
    await ask();
    expect(slowHeaders("lane-key")).toEqual([null, "slow", "slow", null]);
    expect((await gw.api("GET", "/api/resilience/cooldowns?provider=claude")).body.items).toEqual([]);
  });

  it("R12.6 without the opt-in a wall 429 is an ordinary rate limit: the account cools, the next one answers, no slow header is ever sent", async () => {
    await gw.api("PATCH", "/api/connections/cl-plain", { active: true });
    await gw.api("PATCH", "/api/connections/cl-lane", { priority: 5 });
    sim.setUsageWall("plain-key", { resetAt: Math.floor((await now()) / 1000) + 3_600 });
    const r = await ask();
    expect(r.status).toBe(200);
    expect(r.headers.get("x-omniroute-selected-connection-id")).toBe("cl-lane");
    expect(slowHeaders("plain-key")).toEqual([null]);
    const plain = (await gw.api("GET", "/api/connections/cl-plain")).body;
    expect(plain.testStatus).toBe("unavailable");
    expect(plain.rateLimitedUntil).toBeGreaterThan(await now());
    sim.clearUsageWall("plain-key");
    await gw.api("PATCH", "/api/connections/cl-lane", { priority: 0 });
  });

  it("R12.6 a slot_busy answer in the lane is waited out (5–600 s, ±30 %) and the same account asked again", async () => {
    await setActive("cl-busy");
    sim.setUsageWall("busy-key", { resetAt: Math.floor((await now()) / 1000) + 3_600, slotBusy: 1, retryAfterSec: 5 });
    const started = Date.now();
    const r = await ask();
    const took = Date.now() - started;
    expect(r.status).toBe(200);
    expect(slowHeaders("busy-key")).toEqual([null, "slow", "slow"]);
    expect(took).toBeGreaterThanOrEqual(3_500);
    expect(took).toBeLessThan(9_000);
  }, 20_000);

  it("R12.6 a wait that would outlast the request's timeout − 5 s ends the lane, and re-entry is blocked for 10 minutes", async () => {
    await gw.api("PATCH", "/api/resilience", { streamRecovery: { attemptDeadlineMs: 8_000 } });
    sim.setUsageWall("busy-key", { resetAt: Math.floor((await now()) / 1000) + 3_600, slotBusy: 1, retryAfterSec: 5 });
    const before = slowHeaders("busy-key").length;
    const ended = await ask();
    expect(ended.status).not.toBe(200);
    expect(slowHeaders("busy-key").slice(before)).toEqual(["slow"]);
    await gw.api("POST", "/api/resilience/cooldowns", { connectionIds: ["cl-busy"] });
    const blocked = await ask();
    expect(blocked.status).toBe(429);
    expect(slowHeaders("busy-key").slice(before)).toEqual(["slow", null]);
    await gw.api("PATCH", "/api/resilience", { streamRecovery: { attemptDeadlineMs: 600_000 } });
    sim.clearUsageWall("busy-key");
  });

  it("R12.6 autoLimitReset: at the wall a usage probe and a reset claim lift it, and the request goes on at full speed", async () => {
    await setActive("cl-reset");
    sim.setUsageWall("reset-key", { resetAt: Math.floor((await now()) / 1000) + 3_600, resettable: true });
    const r = await ask();
    expect(r.status).toBe(200);
    expect(r.headers.get("x-omniroute-selected-connection-id")).toBe("cl-reset");
    expect(slowHeaders("reset-key")).toEqual([null, null]);
    // The claim was used: a new wall this week is not reset again (memoised next_available_at) and cools as usual.
    sim.setUsageWall("reset-key", { resetAt: Math.floor((await now()) / 1000) + 3_600, resettable: true });
    const again = await ask();
    expect(again.status).toBe(429);
    expect(slowHeaders("reset-key")).toEqual([null, null, null]);
  });
});
