// Budgets per client key and per connection (R18.4), over real HTTP with the test clock: a key over
// its budget is refused with 429 budget_exceeded before anything goes upstream, until its UTC day
// ends; a connection over its budget is skipped like a cooldown (reason `budget`, in the Cooldown
// Manager) without counting against its provider; 80 % and 100 % are announced once each; bad
// budgets are refused naming the field; the use survives a restart (it is read from the rollups).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CooldownRow, MonitoringHealth } from "../../../shared/apiTypes.js";
import type { ApiKeyInfo, Connection, RequestLogEntry, SwitchyardEvent } from "../../../shared/types.js";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;
const events: Array<Extract<SwitchyardEvent, { type: "budget" }>> = [];
const PRICES = { m1: { inputPricePerMTok: 1_000, outputPricePerMTok: 1_000 } };

const chat = (model: string, headers: Record<string, string> = {}) => gw.post("/v1/chat/completions", { model, messages: [{ role: "user", content: "hello there" }] }, headers);
const now = async () => (await gw.api<{ now: number }>("GET", "/api/debug/clock")).body.now;
const nextUtcMidnight = (t: number) => Math.floor(t / 86_400_000) * 86_400_000 + 86_400_000;

async function start(home?: string): Promise<void> {
  gw = await startGateway({ testClock: true, home });
  gw.app.bus.subscribe((e) => {
    if (e.type === "budget") events.push(e);
  });
}

beforeAll(async () => {
  sim = await startSim({ label: "budget" });
  await start();
  await addProvider(gw, "pay", sim, "openai", ["pay-k1", "pay-k2"], { modelInfo: PRICES });
  await addProvider(gw, "solo", sim, "openai", ["solo-k1"], { modelInfo: PRICES });
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

describe("key budgets (R18.4)", () => {
  let key: { id: string; key: string };

  it("R18.4 bad budgets are refused naming the field, and nothing is saved", async () => {
    key = (await gw.api("POST", "/api/keys", { name: "ci", budget: { period: "day", maxTokens: 40 } })).body;
    for (const [budget, path] of [
      [{ period: "day", maxCostUsd: -1 }, "budget.maxCostUsd"],
      [{ period: "day", maxTokens: "lots" }, "budget.maxTokens"],
      [{ period: "week", maxTokens: 10 }, "budget.period"],
      [{ period: "day" }, "budget.maxCostUsd"],
    ] as const) {
      const res = await gw.api("PATCH", `/api/keys/${key.id}`, { budget });
      expect(res.status, JSON.stringify(budget)).toBe(400);
      expect(res.body.error.path).toBe(path);
    }
    const bad = await gw.api("POST", "/api/connections", { id: "pay-c9", provider: "pay", apiKey: "x", budget: { period: "month", maxCostUsd: -5 } });
    expect(bad.status).toBe(400);
    expect((await gw.api("GET", "/api/connections/pay-c9")).status).toBe(404);
    const keys = (await gw.api<ApiKeyInfo[]>("GET", "/api/keys")).body;
    expect(keys.find((k) => k.id === key.id)?.budget).toEqual({ period: "day", maxTokens: 40 });
  });

  it("R18.4 a key over its budget gets 429 budget_exceeded with retry_after/reset_at at the day's end, and nothing goes upstream", async () => {
    const headers = { authorization: `Bearer ${key.key}` };
    let served = 0;
    for (;;) {
      const res = await chat("solo/m1", headers);
      if (res.status === 429) {
        const t = await now();
        expect(res.body.error.code).toBe("budget_exceeded");
        const resetAt = nextUtcMidnight(t);
        expect(Date.parse(res.body.error.reset_at)).toBeGreaterThanOrEqual(resetAt);
        expect(Date.parse(res.body.error.reset_at)).toBeLessThan(resetAt + 2_000);
        expect(res.body.error.retry_after).toBe(Math.ceil((Date.parse(res.body.error.reset_at) - t) / 1000));
        // R25.6: the period ends later than a minute from now: the agent is told not to retry.
        expect(res.headers.get("retry-after")).toBeNull();
        expect(res.headers.get("x-should-retry")).toBe("false");
        break;
      }
      expect(res.status).toBe(200);
      served++;
      expect(served).toBeLessThan(20);
    }
    expect(served).toBeGreaterThan(0);
    const upstreamBefore = sim.requests.length;
    expect((await chat("solo/m1", headers)).status).toBe(429);
    expect(sim.requests.length).toBe(upstreamBefore);
    // The refusal is in the request log, and a request without the key still goes through.
    const rows = (await gw.api<RequestLogEntry[]>("GET", "/api/logs?limit=1")).body;
    expect(rows[0]).toMatchObject({ status: 429, errorCode: "budget_exceeded", apiKeyId: key.id, attempts: [] });
    expect((await chat("solo/m1")).status).toBe(200);
    const listed = (await gw.api<ApiKeyInfo[]>("GET", "/api/keys")).body.find((k) => k.id === key.id)!;
    expect(listed.budgetUsed!.tokens).toBeGreaterThanOrEqual(40);
    expect(listed.budgetUsed!.resetAt).toBe(nextUtcMidnight(await now()));
  });

  it("R18.4 80 % and 100 % are announced once each (an event and a log line headless)", () => {
    const mine = events.filter((e) => e.scope === "key" && e.id === key.id);
    expect(mine.map((e) => e.percent)).toEqual([80, 100]);
    expect(mine[1]).toMatchObject({ name: "ci", usedTokens: expect.any(Number) });
  });

  it("R18.4 the next UTC day serves the key again", async () => {
    const t = await now();
    expect((await gw.api("POST", "/api/debug/clock", { advanceMs: nextUtcMidnight(t) - t + 1_000 })).status).toBe(200);
    expect((await chat("solo/m1", { authorization: `Bearer ${key.key}` })).status).toBe(200);
  });
});

describe("connection budgets (R18.4)", () => {
  it("R18.4 a connection over budget is skipped like a cooldown (reason budget) and counts nothing against the provider", async () => {
    const patched = await gw.api<Connection>("PATCH", "/api/connections/pay-c1", { budget: { period: "month", maxCostUsd: 0.01 } });
    expect(patched.status).toBe(200);
    expect(patched.body.budgetUsed).toMatchObject({ costUsd: 0, tokens: 0 });
    const servedBy: string[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await chat("pay/m1");
      expect(res.status).toBe(200);
      servedBy.push((await gw.api<RequestLogEntry>("GET", `/api/logs/${res.headers.get("x-switchyard-request-id")}`)).body.connectionId!);
    }
    const firstC2 = servedBy.indexOf("pay-c2");
    expect(firstC2).toBeGreaterThan(0);
    expect(servedBy.slice(0, firstC2).every((c) => c === "pay-c1")).toBe(true);
    expect(servedBy.slice(firstC2).every((c) => c === "pay-c2")).toBe(true);
    const c1 = (await gw.api<Connection>("GET", "/api/connections/pay-c1")).body;
    expect(c1.budgetUsed!.costUsd).toBeGreaterThanOrEqual(0.01);
    // Nothing against the provider or the connection's own resilience state.
    expect([c1.testStatus, c1.rateLimitedUntil, c1.backoffLevel]).toEqual(["active", null, 0]);
    const health = (await gw.api<MonitoringHealth>("GET", "/api/monitoring/health")).body;
    expect(health.providerBreakers.find((b) => b.provider === "pay")).toMatchObject({ state: "CLOSED", failureCount: 0 });
    const rows = (await gw.api<{ items: CooldownRow[] }>("GET", "/api/resilience/cooldowns")).body.items;
    const row = rows.find((r) => r.connectionId === "pay-c1")!;
    expect(row.status).toBe("budget");
    const t = await now();
    const d = new Date(t);
    // The clock runs between the two readings: the row's wait ends at the month's end.
    expect(Math.abs(row.remainingMs! - (Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - t))).toBeLessThan(1_000);
    const skipped = (await gw.api<RequestLogEntry[]>("GET", "/api/logs?limit=1")).body[0].skipped;
    expect(skipped).toContainEqual(expect.objectContaining({ connectionId: "pay-c1", reason: "budget" }));
  });

  it("R18.4 every connection over budget: 503 with the wait until the earliest period ends", async () => {
    expect((await gw.api("PATCH", "/api/connections/solo-c1", { budget: { period: "day", maxTokens: 0 } })).status).toBe(200);
    const res = await chat("solo/m1");
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe("all_targets_cooling_down");
    const t = await now();
    expect(res.body.error.diagnostics.excluded[0].remainingSeconds).toBe(Math.ceil((nextUtcMidnight(t) - t) / 1000));
    // R25.6: a wait over a minute is no Retry-After but x-should-retry: false.
    expect(res.headers.get("retry-after")).toBeNull();
    expect(res.headers.get("x-should-retry")).toBe("false");
    // Removing the budget serves it again at once.
    expect((await gw.api("PATCH", "/api/connections/solo-c1", { budget: null })).status).toBe(200);
    expect((await chat("solo/m1")).status).toBe(200);
  });

  it("R18.4 what a period used survives a restart (read back from the rollups)", async () => {
    const before = (await gw.api<Connection>("GET", "/api/connections/pay-c1")).body.budgetUsed!;
    const clock = await now();
    const home = gw.home;
    await gw.app.close();
    await start(home);
    await gw.api("POST", "/api/debug/clock", { advanceMs: clock - (await now()) + 1 });
    const after = (await gw.api<Connection>("GET", "/api/connections/pay-c1")).body.budgetUsed!;
    expect(after.costUsd).toBeCloseTo(before.costUsd, 12);
    expect(after.tokens).toBe(before.tokens);
    expect((await gw.api<{ items: CooldownRow[] }>("GET", "/api/resilience/cooldowns")).body.items.find((r) => r.connectionId === "pay-c1")?.status).toBe("budget");
  });
});
