// R24.2, R24.3 over HTTP, on a laptop's mixed day: a Claude Max login (a client-login connection)
// and the user's work key on the same Anthropic provider, another provider that lists a model the
// first does not, an OpenAI provider, and counts between turns.
// - R24.2: a name the login provider's list lacks is served only on a login, never through the held
//   key beside it; without a login such a name is 404 model_not_found with no upstream call, and a
//   name another provider lists goes to that provider.
// - R24.3: counts run the one attempt loop and every hook: the billing boundary's `count` class
//   decides whether a count crosses from a used-up subscription to a metered key.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { startGateway, startSim, type TestGateway } from "../harness.js";

type Json = Record<string, any>;

const MAX_LOGIN = "sk-ant-oat01-FAKE-mixed-login-ffffffffffffffffffffffffffffff";
const WORK_KEY = "sk-ant-api03-work-key-held-beside-the-login";
const HAIKU_KEY = "sk-ant-api03-other-provider-key";
const OPENAI_KEY = "sk-openai-held-key-mixed";
const FIVE_HOURS = 5 * 3_600_000;

let gw: TestGateway;
let sim: Simulator;

const anthropicHeaders = (login: string | null) => ({
  "content-type": "application/json",
  "anthropic-version": "2023-06-01",
  "anthropic-beta": "claude-code-20250219,oauth-2025-04-20",
  "user-agent": "claude-cli/2.1.332 (external, cli)",
  ...(login ? { authorization: `Bearer ${login}` } : {}),
});

async function messages(model: string, login: string | null): Promise<Response> {
  return fetch(`${gw.url}/v1/messages`, {
    method: "POST",
    headers: anthropicHeaders(login),
    body: JSON.stringify({ model, max_tokens: 32, messages: [{ role: "user", content: "hi" }] }),
  });
}

async function count(login: string | null): Promise<Response> {
  return fetch(`${gw.url}/v1/messages/count_tokens`, {
    method: "POST",
    headers: anthropicHeaders(login),
    body: JSON.stringify({ model: "claude-sonnet-x", messages: [{ role: "user", content: "how many tokens is this?" }] }),
  });
}

async function lastRow(): Promise<Json> {
  await new Promise((r) => setTimeout(r, 100));
  const rows = (await gw.api<Json[]>("GET", "/api/logs?limit=1")).body;
  return (await gw.api<Json>("GET", `/api/logs/${rows[0].id}`)).body;
}

async function moveClocks(ms: number): Promise<void> {
  await gw.api("POST", "/api/debug/clock", { advanceMs: ms });
  const r = await fetch(`${sim.url}/__sim/clock`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ advanceMs: ms }) });
  expect(r.status).toBe(200);
}

beforeAll(async () => {
  sim = await startSim({
    label: "mixed",
    replyText: "Working on it",
    subscriptions: [{ kind: "anthropic", token: MAX_LOGIN, name: "max", fiveHourLimit: 100 }],
    apiKeys: [WORK_KEY, HAIKU_KEY, OPENAI_KEY],
  });
  gw = await startGateway({ testClock: true });
  const post = async (route: string, body: Json) => expect((await gw.api("POST", route, body)).status, route).toBe(201);
  // One Anthropic provider: the Max login is a subscription by its shape (an OAuth token), the work key beside it is metered.
  await post("/api/providers", { id: "claude-max", format: "anthropic", baseUrl: sim.url, category: "apikey", models: ["claude-sonnet-x"] });
  await post("/api/connections", { id: "max", provider: "claude-max", name: "My Max", credential: "client" });
  await post("/api/connections", { id: "work", provider: "claude-max", name: "Work key", apiKey: WORK_KEY, priority: 5 });
  await post("/api/providers", { id: "haiku-host", format: "anthropic", baseUrl: sim.url, category: "apikey", models: ["claude-haiku-y"], priority: 5 });
  await post("/api/connections", { id: "haiku-1", provider: "haiku-host", name: "Haiku key", apiKey: HAIKU_KEY });
  await post("/api/providers", { id: "oai", format: "openai", baseUrl: `${sim.url}/v1`, category: "apikey", models: ["gpt-x"] });
  await post("/api/connections", { id: "oai-1", provider: "oai", name: "OpenAI key", apiKey: OPENAI_KEY });
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

beforeEach(async () => {
  sim.clearFaults();
  // Each test starts with every account free (a test's faults leave its login cooling).
  expect((await gw.api("POST", "/api/resilience/cooldowns", { all: true })).status).toBe(200);
  expect((await gw.api("POST", "/api/resilience/reset", {})).status).toBe(200);
});

describe("R24.2 model names beside a login provider", () => {
  it("R24.2 a typo from an Anthropic client without a login is 404 model_not_found, and nothing goes upstream", async () => {
    const before = sim.requests.length;
    const r = await messages("claude-sonet-4-5", null);
    expect(r.status).toBe(404);
    expect(((await r.json()) as Json).error.code).toBe("model_not_found");
    expect(sim.requests.length).toBe(before);
  });

  it("R24.2 a name no provider lists, from a chat client, is 404 model_not_found with no upstream call", async () => {
    const before = sim.requests.length;
    const r = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer switchyard" },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(r.status).toBe(404);
    expect(((await r.json()) as Json).error.code).toBe("model_not_found");
    expect(sim.requests.length).toBe(before);
  });

  it("R24.2 a name only another provider lists goes to that provider, never to the login provider's held key", async () => {
    const before = sim.requests.length;
    const r = await messages("claude-haiku-y", null);
    expect(r.status).toBe(200);
    const seen = sim.requests.slice(before);
    expect(seen.map((s) => s.key)).toEqual([HAIKU_KEY]);
  });

  it("R24.2 with a login, a name the list lacks is served on the login only: when the login fails it never falls to the held key", async () => {
    const ok = await messages("claude-new-model", MAX_LOGIN);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-omniroute-selected-connection-id")).toMatch(/^max~/);
    for (let i = 0; i < 6; i++) sim.addFault(MAX_LOGIN, { status: 500 });
    const before = sim.requests.length;
    const failed = await messages("claude-new-model", MAX_LOGIN);
    expect(failed.status).toBeGreaterThanOrEqual(500);
    const keys = sim.requests.slice(before).map((s) => s.key);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((k) => k === MAX_LOGIN)).toBe(true);
  });

  it("R24.2 a name the list holds is still served by the held key without a login", async () => {
    const r = await messages("claude-sonnet-x", null);
    expect(r.status).toBe(200);
    expect(r.headers.get("x-omniroute-selected-connection-id")).toBe("work");
  });
});

describe("R24.3 counts run the one attempt loop and every hook", () => {
  it("R24.3 the billing boundary's count class: stay holds a count on the used-up subscription, cross lets it count on the metered key", async () => {
    await gw.api("PATCH", "/api/resilience", { billingBoundary: { main: "stay", count: "stay" } });
    // A count on the login while its window has room is counted by the subscription.
    const fine = await count(MAX_LOGIN);
    expect(fine.status).toBe(200);
    expect(fine.headers.get("x-switchyard-token-count")).toBeNull();
    // The window runs out: a turn meets it (stay: 429), and the account rests until the reset.
    const used = await fetch(`${sim.url}/__sim/subscriptions/usage`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ login: "max", window: "5h", exhaust: true }),
    });
    expect(used.status).toBe(200);
    expect((await messages("claude-sonnet-x", MAX_LOGIN)).status).toBe(429);
    // stay: the count is refused as the turn was, and the work key is never asked.
    const workCountsBefore = sim.requests.filter((s) => s.key === WORK_KEY && s.path.includes("count_tokens")).length;
    const stayed = await count(MAX_LOGIN);
    expect(stayed.status).toBe(429);
    expect(((await stayed.json()) as Json).error.code).toBe("window_exhausted");
    // R25.6: the window resets hours away: no Retry-After, x-should-retry: false.
    expect(stayed.headers.get("x-should-retry")).toBe("false");
    expect(sim.requests.filter((s) => s.key === WORK_KEY && s.path.includes("count_tokens")).length).toBe(workCountsBefore);
    expect((await lastRow()).trafficClass).toBe("count");
    // cross: the count is exact, from the metered key, and the row says it crossed.
    await gw.api("PATCH", "/api/resilience", { billingBoundary: { count: "cross" } });
    const crossed = await count(MAX_LOGIN);
    expect(crossed.status).toBe(200);
    expect(crossed.headers.get("x-switchyard-token-count")).toBeNull();
    expect(crossed.headers.get("x-omniroute-selected-connection-id")).toBe("work");
    expect(sim.requests.filter((s) => s.key === WORK_KEY && s.path.includes("count_tokens")).length).toBe(workCountsBefore + 1);
    expect((await lastRow()).billingCrossed).toBe(true);
    await moveClocks(FIVE_HOURS + 60_000);
  });
});
