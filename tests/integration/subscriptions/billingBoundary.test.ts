// R21.4, R21.5 over HTTP: a Claude Max login (a client-login connection) and a metered key behind
// it. When the login's 5-hour window runs out mid-session, the class's billing boundary decides:
// cross — the turn carries on on the metered key, the row says billingCrossed and names both
// accounts, billing.crossed comes once per episode; stay — 429 window_exhausted with the reset and
// nothing reaches the metered key; wait — a reset within waitOrSwitch.maxWaitMs is waited for and the
// login serves. At the reset (both clocks moved) the traffic returns to the subscription and the
// episode ends (billing.returned).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { startGateway, startSim, type TestGateway } from "../harness.js";

type Json = Record<string, any>;

const MAX_LOGIN = "sk-ant-oat01-FAKE-boundary-login-eeeeeeeeeeeeeeeeeeeeeeeee";
const METERED_KEY = "sk-ant-api03-metered-boundary-key";
const FIVE_HOURS = 5 * 3_600_000;

let gw: TestGateway;
let sim: Simulator;
let events = "";
const stream = new AbortController();

const headers = (extra: Record<string, string> = {}) => ({
  "content-type": "application/json",
  "anthropic-version": "2023-06-01",
  "anthropic-beta": "claude-code-20250219,oauth-2025-04-20",
  "user-agent": "claude-cli/2.1.332 (external, cli)",
  authorization: `Bearer ${MAX_LOGIN}`,
  ...extra,
});

async function turn(text = "carry on with the refactor"): Promise<Response> {
  return fetch(`${gw.url}/v1/messages`, {
    method: "POST",
    headers: headers(),
    body: JSON.stringify({ model: "claude-sonnet-x", max_tokens: 64, messages: [{ role: "user", content: text }] }),
  });
}

async function lastRow(): Promise<Json> {
  const rows = (await gw.api<Json[]>("GET", "/api/logs?limit=1")).body;
  return (await gw.api<Json>("GET", `/api/logs/${rows[0].id}`)).body;
}

const eventsOf = (type: string): Json[] =>
  events
    .split("\n\n")
    .filter((f) => f.startsWith(`event: ${type}\n`))
    .map(
      (f) =>
        JSON.parse(
          f
            .split("\n")
            .find((l) => l.startsWith("data: "))!
            .slice(6),
        ) as Json,
    );

async function settle(): Promise<void> {
  await new Promise((r) => setTimeout(r, 150));
}

const meteredCalls = () => sim.requests.filter((r) => r.key === METERED_KEY).length;
const loginAccount = async () => (await gw.api<Json[]>("GET", "/api/connections?provider=claude-max")).body.find((c) => c.accountOf === "max") ?? null;

async function moveClocks(ms: number): Promise<void> {
  await gw.api("POST", "/api/debug/clock", { advanceMs: ms });
  const r = await fetch(`${sim.url}/__sim/clock`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ advanceMs: ms }) });
  expect(r.status).toBe(200);
}

async function exhaust(resetInSeconds?: number): Promise<void> {
  const r = await fetch(`${sim.url}/__sim/subscriptions/usage`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ login: "max", window: "5h", exhaust: true, ...(resetInSeconds === undefined ? {} : { resetInSeconds }) }),
  });
  expect(r.status).toBe(200);
}

beforeAll(async () => {
  sim = await startSim({
    label: "boundary",
    replyText: "Working on it",
    subscriptions: [{ kind: "anthropic", token: MAX_LOGIN, name: "max", fiveHourLimit: 4 }],
    apiKeys: [METERED_KEY],
  });
  gw = await startGateway({ testClock: true });
  const post = async (route: string, body: Json) => expect((await gw.api("POST", route, body)).status, route).toBe(201);
  await post("/api/providers", { id: "claude-max", format: "anthropic", baseUrl: sim.url, category: "oauth", models: ["claude-sonnet-x"] });
  await post("/api/connections", { id: "max", provider: "claude-max", name: "My Max", credential: "client" });
  await post("/api/providers", { id: "metered", format: "anthropic", baseUrl: sim.url, category: "apikey", models: ["claude-sonnet-x"], priority: 5 });
  await post("/api/connections", { id: "metered-1", provider: "metered", name: "Team key", apiKey: METERED_KEY });
  const res = await fetch(`${gw.url}/api/events`, { headers: { authorization: `Bearer ${gw.token}` }, signal: stream.signal });
  expect(res.status).toBe(200);
  void (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) events += decoder.decode(chunk, { stream: true });
    } catch {
      // aborted at the end
    }
  })();
});

afterAll(async () => {
  stream.abort();
  await gw?.close();
  await sim?.close();
});

beforeEach(async () => {
  await gw.api("PATCH", "/api/resilience", { billingBoundary: { main: "cross" }, waitOrSwitch: { maxWaitMs: 8_000 } });
});

describe("the billing boundary (R21.5) on a subscription window (R21.4)", () => {
  it("R21.4 R21.5 cross: the window runs out mid-session, the turn carries on on the metered key, marked, announced once", async () => {
    // The session's first turns are the subscription's.
    for (let i = 0; i < 4; i++) {
      const r = await turn();
      expect(r.status).toBe(200);
      expect(r.headers.get("x-omniroute-selected-connection-id")).toMatch(/^max~/);
    }
    expect(meteredCalls()).toBe(0);
    // The fifth meets the used-up window: the login's 429 never reaches the client.
    const crossed = await turn();
    expect(crossed.status).toBe(200);
    expect(crossed.headers.get("x-omniroute-selected-connection-id")).toBe("metered-1");
    const account = (await loginAccount())!;
    const row = await lastRow();
    expect(row.billingCrossed).toBe(true);
    expect(row.billingCrossing).toEqual({ fromConnectionId: account.id, toConnectionId: "metered-1" });
    // The account rests until the window's reset (hours away), not maxCooldownMs.
    const cooling = ((await gw.api<Json>("GET", "/api/resilience/cooldowns?provider=claude-max")).body.items as Json[]).find((c) => c.connectionId === account.id)!;
    expect(cooling.status).toBe("cooling_down");
    expect(cooling.remainingMs).toBeGreaterThan(60 * 60_000);
    // The next turn skips the resting account and crosses again, without a second announcement.
    const again = await turn();
    expect(again.headers.get("x-omniroute-selected-connection-id")).toBe("metered-1");
    expect((await lastRow()).billingCrossed).toBe(true);
    await settle();
    expect(eventsOf("billing.crossed").map((e) => [e.fromConnectionId, e.toConnectionId, e.trafficClass])).toEqual([[account.id, "metered-1", "main"]]);
  });

  it("R21.5 stay: 429 window_exhausted in Anthropic's format with the reset, and nothing goes to the metered key", async () => {
    await gw.api("PATCH", "/api/resilience", { billingBoundary: { main: "stay" } });
    const before = meteredCalls();
    const r = await turn();
    expect(r.status).toBe(429);
    const body = (await r.json()) as Json;
    expect(body).toMatchObject({ type: "error", error: { type: "rate_limit_error", code: "window_exhausted" } });
    // R25.6: a wait over a minute is no Retry-After but x-should-retry: false; the body names it.
    expect(r.headers.get("retry-after")).toBeNull();
    expect(r.headers.get("x-should-retry")).toBe("false");
    const retryAfter = body.error.retry_after as number;
    expect(retryAfter).toBeGreaterThan(3_600);
    expect(retryAfter).toBeLessThanOrEqual(5 * 3_600);
    expect(typeof body.error.reset_at).toBe("string");
    expect(meteredCalls()).toBe(before);
    expect((await lastRow()).errorCode).toBe("window_exhausted");
  });

  it("R21.4 R21.5 at the window's reset the traffic returns to the subscription and the episode ends", async () => {
    await moveClocks(FIVE_HOURS + 60_000);
    const r = await turn();
    expect(r.status).toBe(200);
    expect(r.headers.get("x-omniroute-selected-connection-id")).toMatch(/^max~/);
    expect((await lastRow()).billingCrossed).toBeUndefined();
    await settle();
    const account = (await loginAccount())!;
    expect(eventsOf("billing.returned").map((e) => e.connectionId)).toEqual([account.id]);
  });

  it("R21.5 wait: a reset within waitOrSwitch.maxWaitMs is waited for, and the login serves", async () => {
    await gw.api("PATCH", "/api/resilience", { billingBoundary: { main: "wait" }, waitOrSwitch: { maxWaitMs: 8_000 } });
    await exhaust(2);
    const before = meteredCalls();
    const started = Date.now();
    const r = await turn();
    expect(r.status).toBe(200);
    expect(r.headers.get("x-omniroute-selected-connection-id")).toMatch(/^max~/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
    expect(meteredCalls()).toBe(before);
    expect((await lastRow()).billingCrossed).toBeUndefined();
  });

  it("R21.5 wait: a reset beyond the budget is answered as stay", async () => {
    await gw.api("PATCH", "/api/resilience", { billingBoundary: { main: "wait" }, waitOrSwitch: { maxWaitMs: 1_000 } });
    await exhaust(600);
    const before = meteredCalls();
    const r = await turn();
    expect(r.status).toBe(429);
    expect(((await r.json()) as Json).error.code).toBe("window_exhausted");
    expect(meteredCalls()).toBe(before);
  });
});
