// R21.5 beside R25.1/R25.2 over HTTP: a Claude Max login whose model has a small window (declared in
// modelInfo, enforced by its simulator) and a metered key with an unknown window behind it. A prompt
// too long for the login's window meets the billing boundary like a used-up window does: where the
// class crosses, the context fit passes the login over and the row says billingCrossed; where it
// waits or stays, the login is tried, and its refusal reaches the client as Anthropic's own context
// error (the agent compacts), never the metered key's answer. Found by the simulation (seed 315 × 56:
// a Codex turn on a used-up ChatGPT login, skipped for its window, was served on the metered key).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { startGateway, startSim, type TestGateway } from "../harness.js";

type Json = Record<string, any>;

const MAX_LOGIN = "sk-ant-oat01-FAKE-context-boundary-login-ffffffffffffffffff";
const METERED_KEY = "sk-ant-api03-metered-context-boundary-key";
const WINDOW = 2_000;

let gw: TestGateway;
let loginSim: Simulator;
let meteredSim: Simulator;

async function turn(text: string): Promise<Response> {
  return fetch(`${gw.url}/v1/messages`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "anthropic-version": "2023-06-01",
      "anthropic-beta": "claude-code-20250219,oauth-2025-04-20",
      "user-agent": "claude-cli/2.1.332 (external, cli)",
      authorization: `Bearer ${MAX_LOGIN}`,
    },
    body: JSON.stringify({ model: "claude-sonnet-x", max_tokens: 64, messages: [{ role: "user", content: text }] }),
  });
}

/** About 4 000 tokens by any estimate: twice the login's window. */
const LONG = "refactor the parser module again ".repeat(500);

async function lastRow(): Promise<Json> {
  const rows = (await gw.api<Json[]>("GET", "/api/logs?limit=1")).body;
  return (await gw.api<Json>("GET", `/api/logs/${rows[0].id}`)).body;
}

const loginCalls = () => loginSim.requests.filter((r) => r.key === MAX_LOGIN).length;
const meteredCalls = () => meteredSim.requests.length;

beforeAll(async () => {
  loginSim = await startSim({
    label: "max",
    subscriptions: [{ kind: "anthropic", token: MAX_LOGIN, name: "max", fiveHourLimit: 1_000 }],
    contextWindows: { "claude-sonnet-x": WINDOW },
  });
  meteredSim = await startSim({ label: "metered", apiKeys: [METERED_KEY] });
  gw = await startGateway({ testClock: true });
  const post = async (route: string, body: Json) => expect((await gw.api("POST", route, body)).status, route).toBe(201);
  await post("/api/providers", {
    id: "claude-max",
    format: "anthropic",
    baseUrl: loginSim.url,
    category: "oauth",
    models: ["claude-sonnet-x"],
    modelInfo: { "claude-sonnet-x": { contextWindow: WINDOW } },
  });
  await post("/api/connections", { id: "max", provider: "claude-max", name: "My Max", credential: "client" });
  await post("/api/providers", { id: "metered", format: "anthropic", baseUrl: meteredSim.url, category: "apikey", models: ["claude-sonnet-x"], priority: 5 });
  await post("/api/connections", { id: "metered-1", provider: "metered", name: "Team key", apiKey: METERED_KEY });
});

afterAll(async () => {
  await gw?.close();
  await loginSim?.close();
  await meteredSim?.close();
});

beforeEach(async () => {
  await gw.api("PATCH", "/api/resilience", { billingBoundary: { main: "cross" }, waitOrSwitch: { maxWaitMs: 1_000 } });
});

describe("a prompt too long for a subscription's window meets the billing boundary (R21.5, R25.1, R25.2)", () => {
  it("R21.5 R25.1 cross: the login is passed over for its window, the metered key serves, and the row says billingCrossed", async () => {
    const [login, metered] = [loginCalls(), meteredCalls()];
    const r = await turn(LONG);
    expect(r.status).toBe(200);
    expect(r.headers.get("x-omniroute-selected-connection-id")).toBe("metered-1");
    expect(loginCalls()).toBe(login);
    expect(meteredCalls()).toBe(metered + 1);
    const row = await lastRow();
    expect(row.skipped.map((s: Json) => s.reason)).toContain("context_too_small");
    expect(row.billingCrossed).toBe(true);
    expect(row.billingCrossing.toConnectionId).toBe("metered-1");
    expect(row.billingCrossing.fromConnectionId).toMatch(/^max~/);
  });

  it("R21.5 R25.2 a short prompt stays on the login, unmarked", async () => {
    const r = await turn("carry on");
    expect(r.status).toBe(200);
    expect(r.headers.get("x-omniroute-selected-connection-id")).toMatch(/^max~/);
    expect((await lastRow()).billingCrossed).toBeUndefined();
  });

  for (const choice of ["stay", "wait"] as const) {
    it(`R21.5 R25.2 ${choice}: the login is tried, and its context refusal reaches the client in Anthropic's words; the metered key is never called`, async () => {
      await gw.api("PATCH", "/api/resilience", { billingBoundary: { main: choice } });
      const [login, metered] = [loginCalls(), meteredCalls()];
      const r = await turn(LONG);
      expect(r.status).toBe(400);
      const body = (await r.json()) as Json;
      expect(body.type).toBe("error");
      expect(body.error.type).toBe("invalid_request_error");
      expect(body.error.message).toMatch(/^prompt is too long: \d+ tokens > \d+ maximum/);
      expect(r.headers.get("x-should-retry")).toBe("false");
      expect(loginCalls()).toBe(login + 1);
      expect(meteredCalls()).toBe(metered);
      const row = await lastRow();
      expect(row.attempts.map((a: Json) => a.verdict)).toEqual(["context_overflow"]);
      expect(row.billingCrossed).toBeUndefined();
    });
  }

  it("R21.5 R25.1 stay: a long prompt on a login whose window is used up gets window_exhausted, not the metered key", async () => {
    await gw.api("PATCH", "/api/resilience", { billingBoundary: { main: "stay" } });
    const exhausted = await fetch(`${loginSim.url}/__sim/subscriptions/usage`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ login: "max", window: "5h", exhaust: true, resetInSeconds: 600 }),
    });
    expect(exhausted.status).toBe(200);
    // The used-up window is learned from the login's own answer to a short turn.
    expect((await turn("carry on")).status).toBe(429);
    const metered = meteredCalls();
    const r = await turn(LONG);
    expect(r.status).toBe(429);
    expect(((await r.json()) as Json).error.code).toBe("window_exhausted");
    expect(meteredCalls()).toBe(metered);
  });
});
