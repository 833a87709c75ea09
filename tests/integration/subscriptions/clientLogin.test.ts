// R21.1–R21.3, R21.10: a client-login connection sends each request's own login upstream exactly as
// the client sent it (same format only), every distinct login is an account of its own named by its
// digest, a request without a login skips such a connection, the Switchyard key may travel beside a
// login in X-Switchyard-Key and never goes upstream, a refused login gets the vendor's own 401, and
// Claude Code's gateway contract holds: every anthropic-* header forwarded, the serving account's
// rate-limit and request-id headers returned, names the list lacks served on the login.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { startGateway, startSim, type TestGateway } from "../harness.js";
import { filesUnder } from "./realClientsHarness.js";

type Json = Record<string, any>;

const MAX_LOGIN = "sk-ant-oat01-FAKE-max-login-aaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const OTHER_LOGIN = "sk-ant-oat01-FAKE-other-login-bbbbbbbbbbbbbbbbbbbbbbbbbb";
const CHATGPT_TOKEN = "eyFAKE.chatgpt-access-token.cccccccccccccccccccccccccc";
const HELD_KEY = "sk-ant-api03-held-metered-key";
const digest = (s: string) => createHash("sha256").update(s).digest("hex");

let gw: TestGateway;
let sim: Simulator;

const claudeHeaders = (login: string | null, extra: Record<string, string> = {}) => ({
  "content-type": "application/json",
  "anthropic-version": "2023-06-01",
  "anthropic-beta": "claude-code-20250219,oauth-2025-04-20,interleaved-thinking-2025-05-14",
  "user-agent": "claude-cli/2.1.332 (external, cli)",
  ...(login ? { authorization: `Bearer ${login}` } : {}),
  ...extra,
});

async function messages(model: string, headers: Record<string, string>, text = "hello"): Promise<Response> {
  return fetch(`${gw.url}/v1/messages`, { method: "POST", headers, body: JSON.stringify({ model, max_tokens: 32, messages: [{ role: "user", content: text }] }) });
}

const lastSeen = () => sim.requests[sim.requests.length - 1];

async function lastRow(): Promise<Json> {
  const rows = (await gw.api<Json[]>("GET", "/api/logs?limit=1")).body;
  return (await gw.api<Json>("GET", `/api/logs/${rows[0].id}`)).body;
}

beforeAll(async () => {
  // A fixed reply: the simulator otherwise names the key it was sent in its answer text, which no vendor does.
  sim = await startSim({ label: "logins", quotaHeaders: true, replyText: "Hello from the simulator" });
  gw = await startGateway();
  const api = async (route: string, body: Json) => expect((await gw.api("POST", route, body)).status, route).toBe(201);
  await api("/api/providers", { id: "claude-max", format: "anthropic", baseUrl: sim.url, category: "oauth", models: ["claude-sonnet-x"] });
  await api("/api/connections", { id: "max", provider: "claude-max", name: "My Max", credential: "client" });
  await api("/api/providers", { id: "metered", format: "anthropic", baseUrl: sim.url, category: "apikey", models: ["claude-sonnet-x"], priority: 5 });
  await api("/api/connections", { id: "metered-1", provider: "metered", name: "Team key", apiKey: HELD_KEY });
  await api("/api/providers", { id: "chatgpt", format: "openai-responses", baseUrl: `${sim.url}/v1`, category: "oauth", models: ["gpt-x"] });
  await api("/api/connections", { id: "plus", provider: "chatgpt", name: "My Plus", credential: "client" });
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

beforeEach(async () => {
  sim.clearFaults();
  await gw.api("PATCH", "/api/settings", { requireClientKey: false });
});

describe("client-login connections (R21.1, R21.2)", () => {
  it("R21.1 a client-login connection is created without a key and refuses one", async () => {
    const made = (await gw.api<Json>("GET", "/api/connections/max")).body;
    expect(made).toMatchObject({ credential: "client", accountOf: null, hasSecret: false });
    const withKey = await gw.api("POST", "/api/connections", { provider: "claude-max", name: "x", credential: "client", apiKey: "sk-nope" });
    expect(withKey.status).toBe(400);
    expect((await gw.api("PATCH", "/api/connections/max", { apiKey: "sk-nope" })).status).toBe(400);
  });

  it("R21.1 R21.10 the login and every anthropic-* header go upstream as the client sent them; the body byte for byte", async () => {
    const before = sim.requests.length;
    const body = JSON.stringify({ model: "claude-sonnet-x", max_tokens: 32, messages: [{ role: "user", content: "keep   my   bytes" }] });
    const r = await fetch(`${gw.url}/v1/messages`, {
      method: "POST",
      headers: claudeHeaders(MAX_LOGIN, { "anthropic-workspace-id": "wrkspc_1", "anthropic-dangerous-direct-browser-access": "true", "anthropic-future-capability": "on" }),
      body,
    });
    expect(r.status).toBe(200);
    expect(sim.requests.length).toBe(before + 1);
    const seen = lastSeen();
    expect(seen.headers["authorization"]).toBe(`Bearer ${MAX_LOGIN}`);
    expect(seen.headers["x-api-key"]).toBeUndefined();
    expect(seen.headers["anthropic-beta"]).toBe("claude-code-20250219,oauth-2025-04-20,interleaved-thinking-2025-05-14");
    expect(seen.headers["anthropic-workspace-id"]).toBe("wrkspc_1");
    expect(seen.headers["anthropic-dangerous-direct-browser-access"]).toBe("true");
    expect(seen.headers["anthropic-future-capability"]).toBe("on");
    expect(seen.rawBody).toBe(body);
    expect(r.headers.get("x-omniroute-selected-connection-id")).toBe(`max~${digest(MAX_LOGIN).slice(0, 12)}`);
    // R21.10: the serving account's rate-limit headers reach the client.
    expect(r.headers.get("anthropic-ratelimit-unified-5h-utilization")).toMatch(/^\d/);
  });

  it("R21.2 each distinct login is an account of its own, named by its digest, never by the login", async () => {
    expect((await messages("claude-sonnet-x", claudeHeaders(OTHER_LOGIN))).status).toBe(200);
    const list = (await gw.api<Json[]>("GET", "/api/connections?provider=claude-max")).body;
    const accounts = list.filter((c) => c.accountOf === "max");
    expect(accounts.map((c) => c.name).sort()).toEqual([`My Max · ${digest(MAX_LOGIN).slice(0, 6)}`, `My Max · ${digest(OTHER_LOGIN).slice(0, 6)}`].sort());
    for (const a of accounts) expect(a).toMatchObject({ credential: "client", hasSecret: false, subscription: true });
    // One login's cooldown is its own: cool the first, the second is still served.
    const first = accounts.find((a) => a.name.endsWith(digest(MAX_LOGIN).slice(0, 6)))!;
    sim.addFault(MAX_LOGIN, {
      status: 429,
      body: JSON.stringify({ type: "error", error: { type: "rate_limit_error", message: "slow down" } }),
      headers: { "retry-after": "30" },
      times: 1,
    });
    const cooled = await messages("claude-max/claude-sonnet-x", claudeHeaders(MAX_LOGIN));
    expect(cooled.status).toBe(429);
    const cooldowns = (await gw.api<Json>("GET", "/api/resilience/cooldowns?provider=claude-max")).body.items as Json[];
    expect(cooldowns.find((c) => c.connectionId === first.id)?.status).toBe("cooling_down");
    expect(cooldowns.find((c) => c.connectionId !== first.id && c.connectionId.startsWith("max~"))?.status ?? "active").not.toBe("cooling_down");
    expect((await messages("claude-max/claude-sonnet-x", claudeHeaders(OTHER_LOGIN))).status).toBe(200);
    await gw.api("POST", "/api/resilience/cooldowns", { all: true });
  });

  it("R21.1 a request without a login skips the client-login connection (no_client_credential) and is served by the held key", async () => {
    const r = await messages("claude-sonnet-x", claudeHeaders(null));
    expect(r.status).toBe(200);
    expect(r.headers.get("x-omniroute-selected-connection-id")).toBe("metered-1");
    expect(lastSeen().headers["x-api-key"]).toBe(HELD_KEY);
    expect(JSON.stringify(await lastRow())).toContain("no_client_credential");
  });

  it("R21.1 a login never crosses formats: a chat client's Bearer is not sent to the Anthropic login connection", async () => {
    const before = sim.requests.length;
    const r = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${MAX_LOGIN}` },
      body: JSON.stringify({ model: "claude-max/claude-sonnet-x", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(sim.requests.length).toBe(before);
    expect(JSON.stringify(await lastRow())).toContain("no_client_credential");
  });

  it("R21.1 a ChatGPT login goes with its chatgpt-account-id to the Responses upstream, through Codex's /backend-api/codex path", async () => {
    const r = await fetch(`${gw.url}/backend-api/codex/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${CHATGPT_TOKEN}`, "chatgpt-account-id": "acct-123" },
      body: JSON.stringify({ model: "chatgpt/gpt-x", input: "hi" }),
    });
    expect(r.status).toBe(200);
    const seen = lastSeen();
    expect(seen.headers["authorization"]).toBe(`Bearer ${CHATGPT_TOKEN}`);
    expect(seen.headers["chatgpt-account-id"]).toBe("acct-123");
    const models = await fetch(`${gw.url}/backend-api/codex/models?client_version=0.171.0`, { headers: { authorization: `Bearer ${CHATGPT_TOKEN}` } });
    expect(models.status).toBe(200);
    expect(((await models.json()) as Json).models.length).toBeGreaterThan(0);
  });

  it("R21.3 with requireClientKey the Switchyard key comes in X-Switchyard-Key beside the login, and never goes upstream", async () => {
    const key = (await gw.api<Json>("POST", "/api/keys", { name: "laptop" })).body.key as string;
    await gw.api("PATCH", "/api/settings", { requireClientKey: true });
    expect((await messages("claude-max/claude-sonnet-x", claudeHeaders(MAX_LOGIN))).status).toBe(401);
    const r = await messages("claude-max/claude-sonnet-x", claudeHeaders(MAX_LOGIN, { "x-switchyard-key": key }));
    expect(r.status).toBe(200);
    const seen = lastSeen();
    expect(seen.headers["authorization"]).toBe(`Bearer ${MAX_LOGIN}`);
    expect(JSON.stringify(seen.headers)).not.toContain(key);
    expect((await lastRow()).apiKeyId).toBeTruthy();
  });

  it("R21.1 a refused login gets the vendor's own 401 in the client's format, and cools nothing", async () => {
    const bad = "sk-ant-oat01-FAKE-revoked-dddddddddddddddddddddddd";
    const vendor = { type: "error", error: { type: "authentication_error", message: "OAuth token has been revoked" } };
    sim.addFault(bad, { status: 401, body: JSON.stringify(vendor) });
    const r = await messages("claude-max/claude-sonnet-x", claudeHeaders(bad));
    expect(r.status).toBe(401);
    expect(await r.json()).toEqual(vendor);
    const again = await messages("claude-max/claude-sonnet-x", claudeHeaders(bad));
    expect(again.status).toBe(401);
    const items = (await gw.api<Json>("GET", "/api/resilience/cooldowns?provider=claude-max")).body.items as Json[];
    expect(items.filter((c) => c.status !== "active" && c.remainingMs > 0)).toEqual([]);
    expect((await messages("claude-max/claude-sonnet-x", claudeHeaders(MAX_LOGIN))).status).toBe(200);
  });

  it("R21.10 a model name the login provider's list lacks is served on the login (Claude Code's small-fast model)", async () => {
    const r = await messages("claude-haiku-small-fast", claudeHeaders(MAX_LOGIN));
    expect(r.status).toBe(200);
    expect(lastSeen().model).toBe("claude-haiku-small-fast");
    expect(r.headers.get("x-omniroute-selected-connection-id")).toMatch(/^max~/);
  });

  it("R21.1 no login appears in a log row, an API answer, an export, /metrics or any file of the data folder", async () => {
    const texts = [
      JSON.stringify((await gw.api("GET", "/api/logs?limit=200")).body),
      JSON.stringify((await gw.api("GET", "/api/connections")).body),
      JSON.stringify((await gw.api("GET", "/api/resilience/cooldowns")).body),
      JSON.stringify((await gw.api("GET", "/api/usage/quotas")).body),
      JSON.stringify((await gw.api("GET", "/api/config/export")).body),
      (await gw.api("GET", "/metrics")).text,
    ];
    await new Promise((r) => setTimeout(r, 300)); // the request log's batched writes
    const files = filesUnder(gw.home);
    expect(files.length).toBeGreaterThan(0);
    for (const secret of [MAX_LOGIN, OTHER_LOGIN, CHATGPT_TOKEN, "FAKE-revoked"]) {
      for (const [i, t] of texts.entries()) expect(t.includes(secret), `answer ${i} holds ${secret.slice(0, 20)}`).toBe(false);
      for (const [file, t] of files) expect(t.includes(secret), `${file} holds ${secret.slice(0, 20)}`).toBe(false);
    }
  });
});
