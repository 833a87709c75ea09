// R24.1: a login is a credential in the vendor's own shape for the client's format. A laptop runs
// Claude Code on its Max login beside a work key on the same provider, and opencode, pi, Qwen Code
// and SDK scripts with Switchyard's placeholder key: the placeholder (and `dummy`, an empty value,
// a random string, a Switchyard key) is not a login, so the request skips the client-login
// connection, is served by the held key, goes upstream with the held key only, and creates no
// account row; a real-shaped login is still served on its own account. A credential of no
// vendor's shape, or of another vendor's, never reaches an upstream it does not belong to and
// never makes state.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { startGateway, startSim, type TestGateway } from "../harness.js";

type Json = Record<string, any>;

const MAX_LOGIN = "sk-ant-oat01-FAKE-shape-max-login-aaaaaaaaaaaaaaaaaaaaaaaa";
const ANTHROPIC_API_LOGIN = "sk-ant-api03-FAKE-shape-api-login-bbbbbbbbbbbbbbbbbbbbbb";
const OPENAI_LOGIN = "sk-proj-FAKE-shape-openai-login-cccccccccccccccccccc";
const GOOGLE_LOGIN = "AIzaFAKE-shape-google-login-dddddddddddd";
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const CHATGPT_LOGIN = `${b64url({ alg: "RS256", typ: "JWT" })}.${b64url({ "https://api.openai.com/auth": { chatgpt_account_id: "acct-shape" } })}.FAKE-signature`;

const HELD_ANTHROPIC = "sk-ant-api03-held-shape-work-key";
const HELD_OPENAI = "sk-held-shape-openai-work-key";
const HELD_RESPONSES = "sk-held-shape-responses-work-key";
const HELD_GEMINI = "held-shape-gemini-work-key";
const HELD = [HELD_ANTHROPIC, HELD_OPENAI, HELD_RESPONSES, HELD_GEMINI];

const digest = (s: string) => createHash("sha256").update(s).digest("hex");

let gw: TestGateway;
let sim: Simulator;
let switchyardKey = "";

/** What is not a login, whatever header carries it (the Switchyard key is filled in once it is made). */
const notLogins = (): Array<[string, string]> => [
  ["the placeholder the Connect page hands out", "switchyard"],
  ["dummy", "dummy"],
  ["an empty value", ""],
  ["a random string", "hello-there-1234567890-not-a-key"],
  ["a Switchyard key", switchyardKey],
];

async function post(path: string, headers: Record<string, string>, body: Json): Promise<Response> {
  return fetch(`${gw.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
}

const messages = (headers: Record<string, string>) =>
  post("/v1/messages", { "anthropic-version": "2023-06-01", ...headers }, { model: "claude/claude-shape", max_tokens: 16, messages: [{ role: "user", content: "hi" }] });
const chat = (headers: Record<string, string>) => post("/v1/chat/completions", headers, { model: "oai/gpt-shape", messages: [{ role: "user", content: "hi" }] });
const responses = (headers: Record<string, string>) => post("/v1/responses", headers, { model: "resp/codex-shape", input: "hi" });
const gemini = (headers: Record<string, string>, query = "") =>
  post(`/v1beta/models/goo/gemini-shape:generateContent${query}`, headers, { contents: [{ role: "user", parts: [{ text: "hi" }] }] });

async function accounts(): Promise<Json[]> {
  const r = await gw.api<Json[]>("GET", "/api/connections");
  expect(r.status).toBe(200);
  return r.body.filter((c) => c.accountOf !== null);
}

/** Every credential header the upstream saw since `from`, as one text (to prove a credential never reached it). */
const seenText = (from: number) =>
  JSON.stringify(sim.requests.slice(from).map((r) => [r.headers["authorization"], r.headers["x-api-key"], r.headers["x-goog-api-key"], r.key, r.path]));

/** The credentials the upstream saw since `from` (Bearer without its scheme). */
const credentialsSeen = (from: number): string[] =>
  sim.requests
    .slice(from)
    .flatMap((r) => [r.headers["authorization"], r.headers["x-api-key"], r.headers["x-goog-api-key"]])
    .filter((v): v is string => typeof v === "string")
    .map((v) => v.replace(/^Bearer /, ""));

beforeAll(async () => {
  sim = await startSim({
    label: "shape",
    replyText: "Hello from the simulator",
    subscriptions: [{ kind: "anthropic", token: MAX_LOGIN, name: "max" }],
    apiKeys: [HELD_ANTHROPIC, ANTHROPIC_API_LOGIN],
  });
  gw = await startGateway();
  switchyardKey = (await gw.api<Json>("POST", "/api/keys", { name: "laptop" })).body.key as string;
  const made = async (route: string, body: Json) => expect((await gw.api("POST", route, body)).status, route).toBe(201);
  // One provider per format, each with the login connection first and a held work key beside it.
  const providers: Array<[string, string, string, string]> = [
    ["claude", "anthropic", sim.url, "claude-shape"],
    ["oai", "openai", `${sim.url}/v1`, "gpt-shape"],
    ["resp", "openai-responses", `${sim.url}/v1`, "codex-shape"],
    ["goo", "gemini", `${sim.url}/v1beta`, "gemini-shape"],
  ];
  for (const [i, [id, format, baseUrl, model]] of providers.entries()) {
    await made("/api/providers", { id, format, baseUrl, category: "oauth", models: [model] });
    await made("/api/connections", { id: `${id}-login`, provider: id, name: `${id} login`, credential: "client", priority: 0 });
    await made("/api/connections", { id: `${id}-held`, provider: id, name: `${id} work key`, apiKey: HELD[i], priority: 1 });
  }
  // A provider with nothing but a login connection: a non-login has nowhere to go there.
  await made("/api/providers", { id: "only-login", format: "anthropic", baseUrl: sim.url, category: "oauth", models: ["claude-only-login"] });
  await made("/api/connections", { id: "only-login-c", provider: "only-login", name: "only login", credential: "client" });
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

beforeEach(() => sim.clearFaults());

describe("R24.1 what a login is", () => {
  it("R24.1 Anthropic: a placeholder, dummy, empty, random or Switchyard key beside a login connection is served by the held key, which alone goes upstream; no account row", async () => {
    for (const [what, value] of notLogins()) {
      const shapes: Array<Record<string, string>> = [{ authorization: `Bearer ${value}` }, { "x-api-key": value }];
      for (const headers of shapes) {
        const from = sim.requests.length;
        const r = await messages(headers);
        const label = `${what} in ${Object.keys(headers)[0]}`;
        expect(r.status, `${label}: ${await r.clone().text()}`).toBe(200);
        expect(r.headers.get("x-omniroute-selected-connection-id"), label).toBe("claude-held");
        expect(sim.requests.length, label).toBe(from + 1);
        const seen = sim.requests[from];
        expect(seen.headers["x-api-key"], label).toBe(HELD_ANTHROPIC);
        expect(seen.headers["authorization"], label).toBeUndefined();
        if (value) expect(seenText(from).includes(value), label).toBe(false);
      }
    }
    expect(await accounts()).toEqual([]);
  });

  it("R24.1 Anthropic: a real-shaped login (OAuth in Bearer, API key in x-api-key) is still served on its own account", async () => {
    const oauth = await messages({ authorization: `Bearer ${MAX_LOGIN}`, "anthropic-beta": "oauth-2025-04-20" });
    expect(oauth.status, await oauth.clone().text()).toBe(200);
    expect(oauth.headers.get("x-omniroute-selected-connection-id")).toBe(`claude-login~${digest(MAX_LOGIN).slice(0, 12)}`);
    expect(sim.requests[sim.requests.length - 1].headers["authorization"]).toBe(`Bearer ${MAX_LOGIN}`);
    const apiKey = await messages({ "x-api-key": ANTHROPIC_API_LOGIN });
    expect(apiKey.status, await apiKey.clone().text()).toBe(200);
    expect(apiKey.headers.get("x-omniroute-selected-connection-id")).toBe(`claude-login~${digest(ANTHROPIC_API_LOGIN).slice(0, 12)}`);
    expect(sim.requests[sim.requests.length - 1].headers["x-api-key"]).toBe(ANTHROPIC_API_LOGIN);
    const ids = (await accounts()).map((c) => c.id).sort();
    expect(ids).toEqual([`claude-login~${digest(MAX_LOGIN).slice(0, 12)}`, `claude-login~${digest(ANTHROPIC_API_LOGIN).slice(0, 12)}`].sort());
  });

  it("R24.1 OpenAI chat and Responses: placeholders go nowhere as a login; an sk-… key and a ChatGPT JWT with its account id are logins", async () => {
    const before = (await accounts()).length;
    for (const [what, value] of notLogins()) {
      for (const [send, held, id] of [
        [chat, HELD_OPENAI, "oai-held"],
        [responses, HELD_RESPONSES, "resp-held"],
      ] as const) {
        const from = sim.requests.length;
        const r = await send({ authorization: `Bearer ${value}` });
        expect(r.status, `${what}: ${await r.clone().text()}`).toBe(200);
        expect(r.headers.get("x-omniroute-selected-connection-id"), what).toBe(id);
        expect(sim.requests[from].headers["authorization"], what).toBe(`Bearer ${held}`);
      }
    }
    // A JWT without its chatgpt-account-id is no ChatGPT login either.
    const bare = await responses({ authorization: `Bearer ${CHATGPT_LOGIN}` });
    expect(bare.headers.get("x-omniroute-selected-connection-id")).toBe("resp-held");
    expect((await accounts()).length).toBe(before);

    const key = await chat({ authorization: `Bearer ${OPENAI_LOGIN}` });
    expect(key.status).toBe(200);
    expect(key.headers.get("x-omniroute-selected-connection-id")).toBe(`oai-login~${digest(OPENAI_LOGIN).slice(0, 12)}`);
    expect(sim.requests[sim.requests.length - 1].headers["authorization"]).toBe(`Bearer ${OPENAI_LOGIN}`);
    const plan = await responses({ authorization: `Bearer ${CHATGPT_LOGIN}`, "chatgpt-account-id": "acct-shape" });
    expect(plan.status).toBe(200);
    expect(plan.headers.get("x-omniroute-selected-connection-id")).toBe(`resp-login~${digest(CHATGPT_LOGIN).slice(0, 12)}`);
    expect(sim.requests[sim.requests.length - 1].headers["chatgpt-account-id"]).toBe("acct-shape");
    expect((await accounts()).length).toBe(before + 2);
  });

  it("R24.1 Gemini: a placeholder in x-goog-api-key, ?key= or a Bearer is served by the held key; an AIza… key is a login", async () => {
    const before = (await accounts()).length;
    for (const [what, value] of notLogins()) {
      for (const [headers, query] of [
        [{ "x-goog-api-key": value }, ""],
        [{}, `?key=${encodeURIComponent(value)}`],
        [{ authorization: `Bearer ${value}` }, ""],
      ] as const) {
        const from = sim.requests.length;
        const r = await gemini(headers, query);
        expect(r.status, `${what}: ${await r.clone().text()}`).toBe(200);
        expect(r.headers.get("x-omniroute-selected-connection-id"), what).toBe("goo-held");
        expect(sim.requests[from].headers["x-goog-api-key"], what).toBe(HELD_GEMINI);
        if (value) expect(seenText(from).includes(value), what).toBe(false);
      }
    }
    expect((await accounts()).length).toBe(before);
    const login = await gemini({ "x-goog-api-key": GOOGLE_LOGIN });
    expect(login.status).toBe(200);
    expect(login.headers.get("x-omniroute-selected-connection-id")).toBe(`goo-login~${digest(GOOGLE_LOGIN).slice(0, 12)}`);
    expect(sim.requests[sim.requests.length - 1].headers["x-goog-api-key"]).toBe(GOOGLE_LOGIN);
  });

  it("R24.1 a malformed or foreign credential never reaches an upstream it does not belong to and makes no state", async () => {
    const before = await accounts();
    const foreign: Array<[string, () => Promise<Response>, string, string]> = [
      ["an Anthropic login sent to the chat route", () => chat({ authorization: `Bearer ${MAX_LOGIN}` }), MAX_LOGIN, "oai-held"],
      ["an Anthropic login sent to the Responses route", () => responses({ authorization: `Bearer ${MAX_LOGIN}`, "chatgpt-account-id": "acct-shape" }), MAX_LOGIN, "resp-held"],
      ["an OpenAI key sent to the messages route", () => messages({ authorization: `Bearer ${OPENAI_LOGIN}` }), OPENAI_LOGIN, "claude-held"],
      ["a Google key sent to the messages route", () => messages({ "x-api-key": GOOGLE_LOGIN }), GOOGLE_LOGIN, "claude-held"],
      ["a ChatGPT token sent to the Gemini route", () => gemini({ authorization: `Bearer ${CHATGPT_LOGIN}` }), CHATGPT_LOGIN, "goo-held"],
      ["a Google key as a Gemini Bearer", () => gemini({ authorization: `Bearer ${GOOGLE_LOGIN}` }), GOOGLE_LOGIN, "goo-held"],
      ["a truncated Anthropic key", () => messages({ "x-api-key": "sk-ant-oat" }), "sk-ant-oat", "claude-held"],
      ["a key with a space in it", () => messages({ "x-api-key": "sk-ant-oat01-FAKE with spaces inside" }), "with spaces", "claude-held"],
      ["a Basic credential", () => messages({ authorization: `Basic ${Buffer.from("u:p").toString("base64")}` }), "Basic", "claude-held"],
    ];
    for (const [what, send, secret, held] of foreign) {
      const from = sim.requests.length;
      const r = await send();
      expect(r.status, `${what}: ${await r.clone().text()}`).toBe(200);
      expect(r.headers.get("x-omniroute-selected-connection-id"), what).toBe(held);
      expect(seenText(from).includes(secret), what).toBe(false);
      for (const credential of credentialsSeen(from)) expect(HELD, what).toContain(credential);
    }
    // Where only a login connection serves, a non-login reaches no upstream at all.
    for (const [what, value] of notLogins()) {
      const from = sim.requests.length;
      const r = await post(
        "/v1/messages",
        { "anthropic-version": "2023-06-01", "x-api-key": value },
        { model: "only-login/claude-only-login", max_tokens: 16, messages: [{ role: "user", content: "hi" }] },
      );
      expect(r.status, what).toBeGreaterThanOrEqual(400);
      expect(sim.requests.length, what).toBe(from);
    }
    const rows = (await gw.api<Json[]>("GET", "/api/logs?limit=1")).body;
    expect(JSON.stringify((await gw.api("GET", `/api/logs/${rows[0].id}`)).body)).toContain("no_client_credential");
    expect(await accounts()).toEqual(before);
    const cooling = ((await gw.api<Json>("GET", "/api/resilience/cooldowns")).body.items as Json[]).filter((c) => c.status !== "active");
    expect(cooling).toEqual([]);
  });
});
