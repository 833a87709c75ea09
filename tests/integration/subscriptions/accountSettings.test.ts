// R24.5: a setting the API accepts is one the engine reads. A login's account row (R21.2,
// `<connection>~<12 hex>`) takes its own active, priority, weight, budget and usage-wall opt-ins,
// and they act on the request path (an inactive account is not used; priority and weight order
// it among the provider's connections; its budget limits it), persisted across a restart. Any other
// field on an account row is a 400 naming it, and nothing is saved.
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { startGateway, startSim, type TestGateway } from "../harness.js";

type Json = Record<string, any>;

const LOGIN_A = "sk-ant-oat01-FAKE-settings-login-a-aaaaaaaaaaaaaaaaaaaaaa";
const LOGIN_B = "sk-ant-oat01-FAKE-settings-login-b-bbbbbbbbbbbbbbbbbbbbbb";
const HELD = "sk-ant-api03-held-settings-work-key";
const accountOf = (login: string) => `max~${createHash("sha256").update(login).digest("hex").slice(0, 12)}`;
const A = accountOf(LOGIN_A);
const B = accountOf(LOGIN_B);

let gw: TestGateway;
let sim: Simulator;
/** Kept across the restart (the harness removes only a home it made itself). */
const home = mkdtempSync(path.join(tmpdir(), "switchyard-account-settings-"));

async function served(login: string): Promise<{ status: number; connection: string | null; key: unknown; authorization: unknown }> {
  const from = sim.requests.length;
  const r = await fetch(`${gw.url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", "anthropic-beta": "oauth-2025-04-20", authorization: `Bearer ${login}` },
    body: JSON.stringify({ model: "claude/claude-settings", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }),
  });
  await r.text();
  const seen = sim.requests[from];
  return { status: r.status, connection: r.headers.get("x-omniroute-selected-connection-id"), key: seen?.headers["x-api-key"], authorization: seen?.headers["authorization"] };
}

const patch = (id: string, body: Json) => gw.api<Json>("PATCH", `/api/connections/${encodeURIComponent(id)}`, body);
const row = async (id: string) => (await gw.api<Json>("GET", `/api/connections/${encodeURIComponent(id)}`)).body;

async function setUp(): Promise<void> {
  gw = await startGateway({ home });
}

beforeAll(async () => {
  sim = await startSim({
    label: "settings",
    replyText: "Hello from the simulator",
    subscriptions: [
      { kind: "anthropic", token: LOGIN_A, name: "a" },
      { kind: "anthropic", token: LOGIN_B, name: "b" },
    ],
    apiKeys: [HELD],
  });
  await setUp();
  const made = async (route: string, body: Json) => expect((await gw.api("POST", route, body)).status, route).toBe(201);
  await made("/api/providers", { id: "claude", format: "anthropic", baseUrl: sim.url, category: "oauth", models: ["claude-settings"] });
  await made("/api/connections", { id: "max", provider: "claude", name: "My Max", credential: "client", priority: 0 });
  await made("/api/connections", { id: "work", provider: "claude", name: "Work key", apiKey: HELD, priority: 1 });
  // Each login's first request makes its account.
  expect(await served(LOGIN_A)).toMatchObject({ status: 200, connection: A });
  expect(await served(LOGIN_B)).toMatchObject({ status: 200, connection: B });
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
  rmSync(home, { recursive: true, force: true });
});

// Each test starts from rested accounts: what one test leaves cooling must not decide the next.
beforeEach(async () => {
  sim.clearUsageWall();
  expect((await gw.api("POST", "/api/resilience/cooldowns", { all: true })).status).toBe(200);
});

describe("R24.5 a login's account takes its own settings, and they act", () => {
  it("R24.5 active: an inactive account is not used (its request goes to the held key); its sibling login still is", async () => {
    expect((await patch(A, { active: false })).status).toBe(200);
    expect(await served(LOGIN_A)).toMatchObject({ status: 200, connection: "work", key: HELD, authorization: undefined });
    expect(await served(LOGIN_B)).toMatchObject({ status: 200, connection: B });
    expect((await patch(A, { active: true })).status).toBe(200);
    expect(await served(LOGIN_A)).toMatchObject({ status: 200, connection: A });
  });

  it("R24.5 priority and weight order the account among the provider's connections", async () => {
    expect((await patch(A, { priority: 5 })).status).toBe(200);
    expect(await served(LOGIN_A)).toMatchObject({ connection: "work", key: HELD });
    expect(await served(LOGIN_B)).toMatchObject({ connection: B });
    // Weight 0 is a standby: after every connection of positive weight, whatever the priorities.
    expect((await patch(A, { priority: -1, weight: 0 })).status).toBe(200);
    expect(await served(LOGIN_A)).toMatchObject({ connection: "work" });
    expect((await patch(A, { weight: 1 })).status).toBe(200);
    expect(await served(LOGIN_A)).toMatchObject({ connection: A });
  });

  it("R24.5 budget: an account over its own budget is skipped (reason budget); the sibling login is not", async () => {
    // Its earlier requests today already used more than one token.
    expect((await patch(A, { budget: { period: "day", maxTokens: 1 } })).status).toBe(200);
    expect(await served(LOGIN_A)).toMatchObject({ connection: "work", key: HELD });
    const logs = (await gw.api<Json[]>("GET", "/api/logs?limit=1")).body;
    expect(JSON.stringify((await gw.api("GET", `/api/logs/${logs[0].id}`)).body)).toContain('"budget"');
    expect(await served(LOGIN_B)).toMatchObject({ connection: B });
    expect((await row(A)).budgetUsed?.tokens).toBeGreaterThan(1);
    expect((await patch(A, { budget: null })).status).toBe(200);
    expect(await served(LOGIN_A)).toMatchObject({ connection: A });
  });

  it("R24.5 usage-wall opt-ins: an account's own lowPriorityMode takes the slow lane at the wall, on that account", async () => {
    const r = await patch(A, { providerSpecificData: { lowPriorityMode: true } });
    expect(r.status, r.text).toBe(200);
    expect((await row(A)).providerSpecificData).toEqual({ lowPriorityMode: true });
    const from = sim.requests.length;
    sim.setUsageWall(LOGIN_A, { resetAt: Math.floor(Date.now() / 1000) + 3_600 });
    expect(await served(LOGIN_A)).toMatchObject({ status: 200, connection: A });
    const lane = sim.requests.slice(from).map((q) => [q.headers["authorization"], q.headers["anthropic-usage-limit"] ?? null]);
    expect(lane).toEqual([
      [`Bearer ${LOGIN_A}`, null],
      [`Bearer ${LOGIN_A}`, "slow"],
    ]);
    sim.clearUsageWall(LOGIN_A);
    // The sibling login did not opt in: at its wall it fails over to the held key.
    sim.setUsageWall(LOGIN_B, { resetAt: Math.floor(Date.now() / 1000) + 3_600 });
    expect(await served(LOGIN_B)).toMatchObject({ status: 200, connection: "work" });
    sim.clearUsageWall(LOGIN_B);
    await gw.api("POST", "/api/resilience/cooldowns", { all: true });
  });

  it("R24.5 usage-wall opt-ins: an account's own autoLimitReset claims the reset for its organization with its own login", async () => {
    const r = await patch(A, { providerSpecificData: { autoLimitReset: true, organizationUUID: "org-a" } });
    expect(r.status, r.text).toBe(200);
    const from = sim.requests.length;
    sim.setUsageWall(LOGIN_A, { resetAt: Math.floor(Date.now() / 1000) + 3_600, resettable: true });
    expect(await served(LOGIN_A)).toMatchObject({ status: 200, connection: A });
    const generations = sim.requests.slice(from).filter((q) => q.path.startsWith("/v1/messages"));
    expect(generations.map((q) => [q.headers["authorization"], q.headers["anthropic-usage-limit"] ?? null])).toEqual([
      [`Bearer ${LOGIN_A}`, null],
      [`Bearer ${LOGIN_A}`, null],
    ]);
    sim.clearUsageWall(LOGIN_A);
    expect((await patch(A, { providerSpecificData: {} })).status).toBe(200);
  });

  it("R24.5 any other field on an account row is a 400 naming it, and nothing is saved", async () => {
    const before = await row(A);
    const refused: Array<[Json, string]> = [
      [{ name: "renamed" }, "name"],
      [{ maxConcurrent: 2 }, "maxConcurrent"],
      [{ rateLimitOverrides: { maxWaitMs: 10 } }, "rateLimitOverrides"],
      [{ disableCooling: true }, "disableCooling"],
      [{ subscription: false }, "subscription"],
      [{ apiKey: "sk-ant-api03-nope-nope-nope" }, "apiKey"],
      [{ active: false, name: "renamed" }, "name"],
      [{ priority: 9, providerSpecificData: { lowPriorityMode: false, egressIp: "127.0.0.1" } }, "providerSpecificData.egressIp"],
      [{ providerSpecificData: { rotationOverrides: { rateLimitResetSeconds: 5 } } }, "providerSpecificData.rotationOverrides"],
    ];
    for (const [body, field] of refused) {
      const r = await patch(A, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.path, JSON.stringify(body)).toBe(field);
      expect(r.body.error.message).toContain(field);
    }
    const put = await gw.api<Json>("PUT", `/api/connections/${encodeURIComponent(A)}`, { priority: 2, name: "renamed" });
    expect(put.status).toBe(400);
    expect(put.body.error.path).toBe("name");
    // A config document may not slip one past either (it finds the account by its name).
    const imported = await gw.api<Json>("POST", "/api/config/import", { connections: [{ name: before.name, provider: "claude", maxConcurrent: 3 }] });
    expect(imported.status).toBe(400);
    expect(imported.body.error.path).toBe("connections.0.maxConcurrent");
    expect(await row(A)).toEqual(before);
  });

  it("R24.5 PUT on an account row sets its own settings, absent ones at their defaults", async () => {
    const { name } = await row(A);
    const put = await gw.api<Json>("PUT", `/api/connections/${encodeURIComponent(A)}`, { provider: "claude", priority: 3 });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ priority: 3, weight: 1, active: true, budget: null, providerSpecificData: {}, name });
    expect(await served(LOGIN_A)).toMatchObject({ connection: "work" });
  });

  it("R24.5 the account's settings survive a restart and still act", async () => {
    expect((await patch(A, { active: false, priority: 0 })).status).toBe(200);
    await gw.close();
    await setUp();
    expect(await row(A)).toMatchObject({ active: false, priority: 0, accountOf: "max" });
    expect(await served(LOGIN_A)).toMatchObject({ connection: "work", key: HELD });
    expect(await served(LOGIN_B)).toMatchObject({ connection: B });
  });
});
