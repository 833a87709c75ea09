// R26.1 with R21.5 and R26.4: a Codex-shaped socket on a ChatGPT login (the simulator's ChatGPT
// account, 5-hour window) with a metered key behind it. When the login's window runs out between
// two turns of one socket, the billing boundary decides as it does over HTTP: cross — the next
// turn is served on the metered key, its row says billingCrossed; stay — the turn is an error
// frame 429 with the reset in its headers, the socket stays open, nothing reaches the metered key.
// Codex's usage view (`/backend-api/wham/usage`, `/api/codex/usage`) shows the session's account
// windows, or, when the session may cross, what the pool can still serve. Also: the live request
// view (GET /api/events) carries the socket's turns like any request (R26.1), and an idle socket
// is closed with 1000 (R26.3). This gateway negotiates permessage-deflate (R26.1).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { startGateway, startSim, type TestGateway } from "../harness.js";
import { fakeChatgptJwt } from "../subscriptions/realClientsHarness.js";
import { openSocket, type Json, type OpenSocket } from "./socketHarness.js";

const ACCOUNT = "acct-FAKE-ws-billing";
const LOGIN = fakeChatgptJwt(ACCOUNT, "plus");
const METERED_KEY = "sk-FAKE-ws-metered-key";
const LOGIN_NAME = "plus-billing";

let gw: TestGateway;
let sim: Simulator;
const sockets: OpenSocket[] = [];
let events = "";
const eventStream = new AbortController();

const loginHeaders = (session: string): Record<string, string> => ({
  authorization: `Bearer ${LOGIN}`,
  "chatgpt-account-id": ACCOUNT,
  "session-id": session,
  originator: "codex_exec",
});

async function socket(session: string): Promise<OpenSocket> {
  const s = await openSocket(gw.url, "/backend-api/codex/responses", loginHeaders(session));
  sockets.push(s);
  return s;
}

const create = (text: string): Json => ({
  type: "response.create",
  model: "gpt-x",
  input: [{ type: "message", role: "user", content: [{ type: "input_text", text }] }],
  store: false,
});

async function usage(path: string, session: string): Promise<Json> {
  const r = await fetch(`${gw.url}${path}`, { headers: loginHeaders(session) });
  expect(r.status).toBe(200);
  return (await r.json()) as Json;
}

async function exhaust(): Promise<void> {
  const r = await fetch(`${sim.url}/__sim/subscriptions/usage`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ login: LOGIN_NAME, window: "5h", exhaust: true }),
  });
  expect(r.status).toBe(200);
}

async function rowOf(id: string): Promise<Json> {
  for (let i = 0; i < 40; i++) {
    const r = await gw.api<Json>("GET", `/api/logs/${id}`);
    if (r.status === 200) return r.body;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`no row ${id}`);
}

beforeAll(async () => {
  sim = await startSim({
    label: "ws-billing",
    subscriptions: [{ kind: "chatgpt", token: LOGIN, chatgptAccountId: ACCOUNT, name: LOGIN_NAME, planType: "plus", fiveHourLimit: 1000 }],
    apiKeys: [METERED_KEY],
  });
  gw = await startGateway({ testClock: true, env: { SWITCHYARD_WS_IDLE_MS: "1500", SWITCHYARD_WS_DEFLATE: "1" } });
  const post = async (route: string, body: Json) => expect((await gw.api("POST", route, body)).status, route).toBe(201);
  await post("/api/providers", { id: "chatgpt-sub", format: "openai-responses", baseUrl: `${sim.url}/backend-api/codex`, category: "oauth", models: ["gpt-x"] });
  await post("/api/connections", { id: "plus", provider: "chatgpt-sub", name: "My Plus", credential: "client" });
  await post("/api/providers", { id: "metered", format: "openai-responses", baseUrl: `${sim.url}/v1`, category: "apikey", models: ["gpt-x"], priority: 5 });
  await post("/api/connections", { id: "metered-1", provider: "metered", name: "Team key", apiKey: METERED_KEY });
  const res = await fetch(`${gw.url}/api/events`, { headers: { authorization: `Bearer ${gw.token}` }, signal: eventStream.signal });
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
  eventStream.abort();
  for (const s of sockets) s.ws.terminate();
  await gw?.close();
  await sim?.close();
});

beforeEach(async () => {
  await gw.api("PATCH", "/api/resilience", { billingBoundary: { main: "cross" }, waitOrSwitch: { maxWaitMs: 0 } });
});

const meteredCalls = () => sim.requests.filter((r) => r.key === METERED_KEY).length;

describe("the billing boundary over the socket (R26.1, R21.5) and Codex's usage view (R26.4)", () => {
  it("R26.1 R21.5 R26.4 cross: the login serves the first turn; its window runs out; the next turn of the same socket is served on the metered key, marked billingCrossed; wham/usage shows what the pool can still serve", async () => {
    const s = await socket("ws-cross-session");
    // This gateway negotiates permessage-deflate (SWITCHYARD_WS_DEFLATE=1): the turns work the same.
    expect(s.extensions).toContain("permessage-deflate");
    const first = await s.turn(create("first turn on the login"));
    expect(first.at(-1)!.type).toBe("response.completed");
    expect(sim.requests.at(-1)!.login).toBe(LOGIN_NAME);
    // The session's own account: the login's 5-hour and weekly windows, as ChatGPT names them.
    const own = await usage("/backend-api/wham/usage", "ws-cross-session");
    expect(own.plan_type).toBe("plus");
    expect(own.rate_limit.primary_window).toMatchObject({ limit_window_seconds: 18_000, used_percent: expect.any(Number) });
    expect(own.rate_limit.primary_window.used_percent).toBeGreaterThan(0);
    expect(own.rate_limit.primary_window.used_percent).toBeLessThan(100);
    expect(own.rate_limit.secondary_window).toMatchObject({ limit_window_seconds: 604_800 });
    expect(await usage("/api/codex/usage", "ws-cross-session")).toEqual(own);

    await exhaust();
    const before = meteredCalls();
    const second = await s.turn(create("second turn after the window ran out"));
    expect(second.filter((f) => f.type === "error")).toEqual([]);
    expect(second.at(-1)!.type).toBe("response.completed");
    expect(meteredCalls()).toBe(before + 1);
    const rows = (await gw.api<Json[]>("GET", "/api/logs?limit=1")).body;
    const row = await rowOf(rows[0].id);
    expect(row).toMatchObject({ transport: "websocket", billingCrossed: true, connectionId: "metered-1" });
    // The account's window is used up, the session may cross and a metered key can serve: nothing of the pool's room is used.
    const pool = await usage("/backend-api/wham/usage", "ws-cross-session");
    expect(pool.rate_limit.primary_window.used_percent).toBe(0);
    expect(pool.rate_limit.limit_reached).toBe(false);
  });

  it("R26.1 R21.5 R26.3 R26.4 stay: the exhausted window's turn is an error frame 429 with its reset, the socket stays open, nothing reaches the metered key; wham/usage shows the window used up", async () => {
    await gw.api("PATCH", "/api/resilience", { billingBoundary: { main: "stay" } });
    const s = await socket("ws-stay-session");
    const before = meteredCalls();
    const frames = await s.turn(create("turn while the window is used up"));
    expect(frames).toHaveLength(1);
    expect(frames[0]).toMatchObject({ type: "error", status_code: 429 });
    expect(frames[0].error.code).toEqual(expect.any(String));
    // R25.6 beside R26.3: the window resets hours away, so the frame carries the headers the HTTP answer
    // would: no Retry-After past a minute, x-should-retry: false, and the reset in the error itself.
    const reset = Date.parse(String(frames[0].error.reset_at));
    expect(reset).toBeGreaterThan(Date.now() + 60_000);
    expect(frames[0].error.retry_after).toBeGreaterThan(60);
    expect(frames[0].headers["x-should-retry"]).toBe("false");
    expect(frames[0].headers["retry-after"]).toBeUndefined();
    expect(meteredCalls()).toBe(before);
    expect(s.ws.readyState).toBe(s.ws.OPEN);
    const seen = await usage("/backend-api/wham/usage", "ws-stay-session");
    expect(seen.rate_limit.primary_window.used_percent).toBe(100);
    expect(seen.rate_limit.limit_reached).toBe(true);
  });

  it("R26.1 the live request view (GET /api/events) carries each socket turn as a request event with transport websocket", async () => {
    const rows = (await gw.api<Json[]>("GET", "/api/logs?limit=3")).body;
    const live = events
      .split("\n\n")
      .filter((f) => f.startsWith("event: request\n"))
      .map(
        (f) =>
          JSON.parse(
            f
              .split("\n")
              .find((l) => l.startsWith("data: "))!
              .slice(6),
          ) as Json,
      );
    const socketTurns = live.filter((e) => e.entry.transport === "websocket");
    expect(socketTurns.length).toBeGreaterThanOrEqual(3);
    for (const row of rows) expect(live.map((e) => e.entry.id)).toContain(row.id);
  });

  it("R26.3 a socket with no frame past the idle limit (and no turn running) is closed with 1000", async () => {
    const s = await socket("ws-idle-session");
    const closed = await s.closed;
    expect(closed).toEqual({ code: 1000, reason: "idle" });
  });
});
