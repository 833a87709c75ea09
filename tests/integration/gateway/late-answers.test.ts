// R24.4 through the real gateway and the real simulator over loopback: a streaming request whose
// answer is decided only after keep-alives went out (the 200 and its headers are committed) ends
// with an error event that carries what the status line and headers would have carried — the verdict
// code, `retry_after` and `reset_at` — in each client format's own place: Anthropic's `error` event,
// the Chat and Gemini error chunk, Responses' `response.failed` with `resets_at`/`resets_in_seconds`
// as Codex reads a usage limit.
//
// The decision comes late the way it does for a user: the subscription account (a Claude Max or
// ChatGPT login, or a held OAuth account) is slow to answer, and its answer is a 200 stream that ends
// on the used-up window before any content; the billing boundary says stay, so nothing goes to the
// metered key and the request is answered `window_exhausted` until the reset. The next request meets
// the resting account before any byte, and its 429 status line is what the stream's event is compared with.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, parseSse, startGateway, startSim, type TestGateway } from "../harness.js";
import { fakeChatgptJwt } from "../subscriptions/realClientsHarness.js";

type Json = Record<string, any>;

const MAX_LOGIN = "sk-ant-oat01-FAKE-late-answer-login-aaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const HELD_CHAT = "sk-ant-oat01-FAKE-late-answer-held-chat-bbbbbbbbbbbbbbbbbbbbbbbb";
const HELD_GEMINI = "sk-ant-oat01-FAKE-late-answer-held-gemini-cccccccccccccccccccccc";
const METERED = "sk-ant-api03-late-answer-metered";
const METERED_RESPONSES = "sk-late-answer-metered-responses";
const PLUS_ACCOUNT = "acct-FAKE-late-answer-plus";
const PRO_ACCOUNT = "acct-FAKE-late-answer-pro";
const PLUS_LOGIN = fakeChatgptJwt(PLUS_ACCOUNT);
const PRO_LOGIN = fakeChatgptJwt(PRO_ACCOUNT, "pro");
/** Keep-alives every 100 ms; the subscription answers after 800 ms: several keep-alives go out first. */
const HEARTBEAT_MS = 100;
const SLOW_MS = 800;

let gw: TestGateway;
let sim: Simulator;
/** A simulator without subscriptions: plain keys, programmed faults. */
let plain: Simulator;

beforeAll(async () => {
  sim = await startSim({
    label: "late",
    subscriptions: [
      { kind: "anthropic", token: MAX_LOGIN, name: "max" },
      { kind: "anthropic", token: HELD_CHAT, name: "held-chat" },
      { kind: "anthropic", token: HELD_GEMINI, name: "held-gemini" },
      { kind: "chatgpt", token: PLUS_LOGIN, chatgptAccountId: PLUS_ACCOUNT, name: "plus" },
      { kind: "chatgpt", token: PRO_LOGIN, chatgptAccountId: PRO_ACCOUNT, name: "pro", planType: "pro" },
    ],
    apiKeys: [METERED],
  });
  gw = await startGateway({ env: { SWITCHYARD_STREAM_HEARTBEAT_MS: String(HEARTBEAT_MS) } });
  const post = async (route: string, body: Json) => expect((await gw.api("POST", route, body)).status, `${route} ${JSON.stringify(body)}`).toBe(201);
  // Claude Code on its Max login (client-login connection).
  await post("/api/providers", { id: "claude-max", format: "anthropic", baseUrl: sim.url, category: "oauth", models: ["claude-sonnet-x"] });
  await post("/api/connections", { id: "max", provider: "claude-max", name: "My Max", credential: "client" });
  // Held OAuth accounts (subscriptions too, R21.5) serving Chat and Gemini clients through Anthropic.
  await post("/api/providers", { id: "held-chat", format: "anthropic", baseUrl: sim.url, category: "oauth", models: ["chat-sub"] });
  await post("/api/connections", { id: "held-chat-1", provider: "held-chat", name: "Held chat", apiKey: HELD_CHAT });
  await post("/api/providers", { id: "held-gemini", format: "anthropic", baseUrl: sim.url, category: "oauth", models: ["gemini-sub"] });
  await post("/api/connections", { id: "held-gemini-1", provider: "held-gemini", name: "Held gemini", apiKey: HELD_GEMINI });
  await post("/api/providers", { id: "metered", format: "anthropic", baseUrl: sim.url, category: "apikey", models: ["claude-sonnet-x", "chat-sub", "gemini-sub"], priority: 5 });
  await post("/api/connections", { id: "metered-1", provider: "metered", name: "Team key", apiKey: METERED });
  // Codex on a ChatGPT plan (client-login connection on the ChatGPT backend), and a metered Responses key behind it.
  await post("/api/providers", { id: "chatgpt", format: "openai-responses", baseUrl: `${sim.url}/backend-api/codex`, category: "oauth", models: ["gpt-x"] });
  await post("/api/connections", { id: "chatgpt-login", provider: "chatgpt", name: "My ChatGPT", credential: "client" });
  await post("/api/providers", { id: "metered-responses", format: "openai-responses", baseUrl: `${sim.url}/v1`, category: "apikey", models: ["gpt-x"], priority: 5 });
  await post("/api/connections", { id: "metered-responses-1", provider: "metered-responses", name: "Team OpenAI key", apiKey: METERED_RESPONSES });
  plain = await startSim({ label: "plain" });
  // Each late case's stream meets one provider; the status-line answer it is compared with, its twin.
  for (const id of ["shed-s", "shed-l", "array-s", ...FORMATS.flatMap((f) => [`fail-s-${f}`, `fail-l-${f}`])]) await addProvider(gw, id, plain, "openai", [`${id}-key`]);
  // A session's warm account and a cold one: wait-or-switch holds the turn on the warm one (R20.4).
  await addProvider(gw, "warm", plain, "anthropic", ["warm-key"]);
  await addProvider(gw, "cold", plain, "anthropic", ["cold-key"]);
  expect((await gw.api("POST", "/api/combos", { name: "pair", strategy: "priority", targets: [{ model: "warm/m1" }, { model: "cold/m1" }] })).status).toBe(201);
}, 30_000);

afterAll(async () => {
  await gw?.close();
  await sim?.close();
  await plain?.close();
});

beforeEach(async () => {
  const stay = { main: "stay", subagent: "stay", background: "stay", compaction: "stay" };
  expect((await gw.api("PATCH", "/api/resilience", { billingBoundary: stay })).status).toBe(200);
});

const FORMATS = ["openai", "anthropic", "gemini", "openai-responses"] as const;
type ClientFormat = (typeof FORMATS)[number];

const meteredCalls = () => sim.requests.filter((r) => r.key === METERED || r.key === METERED_RESPONSES).length;

/** The subscription account answers slowly (keep-alives go out meanwhile), then its 200 stream ends on the used-up window before content. */
function slowWindowEnd(token: string, login: string): void {
  sim.addFault(token, { latencyMs: SLOW_MS, times: 1 });
  sim.exhaustInStream(login, { afterChunks: 0 });
}

/** The last SSE event of a stream, parsed. */
function lastEvent(text: string): { event?: string; data: Json } {
  const last = parseSse(text).at(-1)!;
  return { event: last.event, data: JSON.parse(last.data) as Json };
}

/** `retry_after` and `reset_at` say the same wait (reset_at = when the answer was written + retry_after, to the second). */
function expectConsistentWait(error: Json, writtenAt: number): void {
  expect(typeof error.retry_after).toBe("number");
  expect(error.retry_after).toBeGreaterThan(0);
  expect(typeof error.reset_at).toBe("string");
  const resetAt = Date.parse(error.reset_at as string);
  expect(Math.abs(resetAt - (writtenAt + (error.retry_after as number) * 1000))).toBeLessThanOrEqual(3_000);
}

/** The status line's wait in seconds: its body's retry_after, or Gemini's RetryInfo. */
function statusLineWait(statusLine: Json): number {
  if (typeof statusLine.retry_after === "number") return statusLine.retry_after;
  const info = (statusLine.details as Json[]).find((d) => String(d["@type"]).endsWith("RetryInfo"));
  return Number(String(info?.retryDelay).replace(/s$/, ""));
}

/**
 * The in-stream wait and the status line's wait name the same reset (within the seconds between the
 * two answers). R25.6: a wait over a minute is no Retry-After header, and the status line says
 * `x-should-retry: false`; the body still names it.
 */
function expectSameReset(inStream: Json, statusLine: Json, line: Response): void {
  expect(Math.abs(Date.parse(inStream.reset_at as string) - Date.parse(statusLine.reset_at as string))).toBeLessThanOrEqual(3_000);
  const wait = statusLineWait(statusLine);
  expect(Math.abs((inStream.retry_after as number) - wait)).toBeLessThanOrEqual(3);
  if (wait > 60) {
    expect(line.headers.get("retry-after")).toBeNull();
    expect(line.headers.get("x-should-retry")).toBe("false");
  } else expect(line.headers.get("retry-after")).toBe(String(wait));
}

describe("R24.4 an answer decided after keep-alives carries the status line's code, retry_after and reset_at", () => {
  it("R24.4 Anthropic (Claude Code on a Max login): the error event's error object has window_exhausted, retry_after and reset_at", async () => {
    slowWindowEnd(MAX_LOGIN, "max");
    const before = meteredCalls();
    const send = (stream: boolean) =>
      fetch(`${gw.url}/v1/messages`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "anthropic-version": "2023-06-01",
          "anthropic-beta": "claude-code-20250219,oauth-2025-04-20",
          "user-agent": "claude-cli/2.1.332 (external, cli)",
          authorization: `Bearer ${MAX_LOGIN}`,
        },
        body: JSON.stringify({ model: "claude-sonnet-x", max_tokens: 64, stream, messages: [{ role: "user", content: "carry on with the refactor" }] }),
      });
    const r = await send(true);
    expect(r.status).toBe(200);
    const text = await r.text();
    const writtenAt = Date.now();
    const events = parseSse(text);
    // Keep-alives first (the status line was spent on them), no content, then the answer.
    expect(events.filter((e) => e.event === "ping").length).toBeGreaterThanOrEqual(2);
    expect(events.map((e) => e.event).filter((e) => e !== "ping")).toEqual(["error"]);
    const { data } = lastEvent(text);
    expect(data).toMatchObject({ type: "error", error: { type: "rate_limit_error", code: "window_exhausted" } });
    expectConsistentWait(data.error as Json, writtenAt);
    expect(meteredCalls()).toBe(before);

    // The status-line answer of the same decision: the next request meets the resting account before any byte.
    const line = await send(false);
    expect(line.status).toBe(429);
    const body = (await line.json()) as Json;
    expect(body.error.code).toBe(data.error.code);
    expect(body.error.type).toBe(data.error.type);
    expectSameReset(data.error as Json, body.error as Json, line);
    expect(meteredCalls()).toBe(before);
  });

  it("R24.4 OpenAI Chat: the error chunk carries window_exhausted, retry_after and reset_at", async () => {
    slowWindowEnd(HELD_CHAT, "held-chat");
    const before = meteredCalls();
    const send = (stream: boolean) =>
      fetch(`${gw.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "chat-sub", stream, messages: [{ role: "user", content: "write the tests" }] }),
      });
    const r = await send(true);
    expect(r.status).toBe(200);
    const text = await r.text();
    const writtenAt = Date.now();
    expect(text.startsWith(": keep-alive\n\n: keep-alive\n\n")).toBe(true);
    // One data line: the error chunk (no content, no [DONE]).
    expect(parseSse(text)).toHaveLength(1);
    const { data } = lastEvent(text);
    expect(data.error).toMatchObject({ type: "rate_limit_error", code: "window_exhausted" });
    expectConsistentWait(data.error as Json, writtenAt);
    expect(meteredCalls()).toBe(before);

    const line = await send(false);
    expect(line.status).toBe(429);
    const body = (await line.json()) as Json;
    expect(body.error.code).toBe(data.error.code);
    expect(body.error.type).toBe(data.error.type);
    expectSameReset(data.error as Json, body.error as Json, line);
  });

  it("R24.4 Gemini streamGenerateContent alt=sse: the error chunk carries the verdict, RetryInfo, retry_after and reset_at", async () => {
    slowWindowEnd(HELD_GEMINI, "held-gemini");
    const before = meteredCalls();
    const body = JSON.stringify({ contents: [{ role: "user", parts: [{ text: "explain the diff" }] }] });
    const r = await fetch(`${gw.url}/v1beta/models/gemini-sub:streamGenerateContent?alt=sse`, { method: "POST", headers: { "content-type": "application/json" }, body });
    expect(r.status).toBe(200);
    const text = await r.text();
    const writtenAt = Date.now();
    // The Gemini CLI's keep-alive is a bare newline (CLIENTS.md).
    expect(text.startsWith("\n\n")).toBe(true);
    expect(parseSse(text)).toHaveLength(1);
    const { data } = lastEvent(text);
    expect(data.error).toMatchObject({ code: 429, status: "RESOURCE_EXHAUSTED" });
    const details = data.error.details as Json[];
    expect(details[0]).toEqual({ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "window_exhausted", domain: "switchyard" });
    expect(details[1]).toEqual({ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${data.error.retry_after}s` });
    expectConsistentWait(data.error as Json, writtenAt);
    expect(meteredCalls()).toBe(before);

    const line = await fetch(`${gw.url}/v1beta/models/gemini-sub:generateContent`, { method: "POST", headers: { "content-type": "application/json" }, body });
    expect(line.status).toBe(429);
    const answer = (await line.json()) as Json;
    expect(answer.error.details[0].reason).toBe("window_exhausted");
    expect(answer.error.status).toBe(data.error.status);
    expectSameReset(data.error as Json, answer.error as Json, line);
  });

  /** Codex's request on a ChatGPT plan; `codex` sends its user agent, so its keep-alives are numbered events. */
  const responsesTurn = (path: string, login: string, account: string, stream: boolean, codex: boolean) =>
    fetch(`${gw.url}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${login}`,
        "chatgpt-account-id": account,
        ...(codex ? { "user-agent": "codex_cli_rs/0.171.0 (Ubuntu 24.4.0; x86_64) xterm", originator: "codex_cli_rs" } : {}),
      },
      body: JSON.stringify({ model: "gpt-x", input: "fix the failing test", stream, store: false }),
    });

  /** The status-line answer of a used-up window on a ChatGPT plan, and the stream's response.failed, say the same. */
  async function expectSameAsStatusLine(error: Json, path: string, login: string, account: string): Promise<void> {
    const line = await responsesTurn(path, login, account, false, false);
    expect(line.status).toBe(429);
    const body = (await line.json()) as Json;
    expect(body.error).toMatchObject({ code: error.code, type: error.type });
    expectSameReset(error, body.error as Json, line);
    expect(Math.abs((error.resets_at as number) - (body.error.resets_at as number))).toBeLessThanOrEqual(3);
    expect(Math.abs((error.resets_in_seconds as number) - (body.error.resets_in_seconds as number))).toBeLessThanOrEqual(3);
  }

  it("R24.4 Responses at /backend-api/codex/responses (Codex on a ChatGPT plan): response.failed after numbered keep-alives says usage_limit_reached with resets_at/resets_in_seconds", async () => {
    slowWindowEnd(PLUS_LOGIN, "plus");
    const before = meteredCalls();
    const r = await responsesTurn("/backend-api/codex/responses", PLUS_LOGIN, PLUS_ACCOUNT, true, true);
    expect(r.status).toBe(200);
    const text = await r.text();
    const writtenAt = Date.now();
    const events = parseSse(text).map((e) => ({ event: e.event, data: JSON.parse(e.data) as Json }));
    const keepAlives = events.filter((e) => e.event === "keepalive");
    expect(keepAlives.length).toBeGreaterThanOrEqual(2);
    expect(events.map((e) => e.event).filter((e) => e !== "keepalive")).toEqual(["response.failed"]);
    const { data } = events.at(-1)!;
    // The failure continues the keep-alives' numbering, as Codex's parser expects.
    expect(data.sequence_number).toBe(keepAlives.length);
    const error = data.response.error as Json;
    expect(error).toMatchObject({ type: "usage_limit_reached", code: "window_exhausted" });
    expectConsistentWait(error, writtenAt);
    expect(error.resets_in_seconds).toBe(error.retry_after);
    expect(error.resets_at).toBe(Math.ceil(Date.parse(error.reset_at as string) / 1000));
    expect(meteredCalls()).toBe(before);
    await expectSameAsStatusLine(error, "/backend-api/codex/responses", PLUS_LOGIN, PLUS_ACCOUNT);
  });

  it("R24.4 Responses at /v1/responses: response.failed after keep-alives carries window_exhausted, retry_after, reset_at, resets_at and resets_in_seconds", async () => {
    slowWindowEnd(PRO_LOGIN, "pro");
    const before = meteredCalls();
    const r = await responsesTurn("/v1/responses", PRO_LOGIN, PRO_ACCOUNT, true, false);
    expect(r.status).toBe(200);
    const text = await r.text();
    const writtenAt = Date.now();
    expect(text.startsWith(": keep-alive\n\n: keep-alive\n\n")).toBe(true);
    const events = parseSse(text);
    expect(events.map((e) => e.event)).toEqual(["response.failed"]);
    const data = JSON.parse(events[0].data) as Json;
    expect(data.sequence_number).toBe(0);
    const error = data.response.error as Json;
    expect(error).toMatchObject({ type: "usage_limit_reached", code: "window_exhausted" });
    expectConsistentWait(error, writtenAt);
    expect(error.resets_in_seconds).toBe(error.retry_after);
    expect(error.resets_at).toBe(Math.ceil(Date.parse(error.reset_at as string) / 1000));
    expect(meteredCalls()).toBe(before);
    await expectSameAsStatusLine(error, "/v1/responses", PRO_LOGIN, PRO_ACCOUNT);
  });
});

/** A plain request of each client format for `model`; Responses as Codex sends it (numbered keep-alives). */
function request(format: ClientFormat, model: string, stream: boolean): Promise<Response> {
  const json = { "content-type": "application/json" };
  switch (format) {
    case "openai":
      return fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: json, body: JSON.stringify({ model, stream, messages: [{ role: "user", content: "hi" }] }) });
    case "anthropic":
      return fetch(`${gw.url}/v1/messages`, {
        method: "POST",
        headers: { ...json, "anthropic-version": "2023-06-01" },
        body: JSON.stringify({ model, max_tokens: 64, stream, messages: [{ role: "user", content: "hi" }] }),
      });
    case "gemini": {
      const call = stream ? "streamGenerateContent?alt=sse" : "generateContent";
      return fetch(`${gw.url}/v1beta/models/${encodeURIComponent(model)}:${call}`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
      });
    }
    case "openai-responses":
      return fetch(`${gw.url}/backend-api/codex/responses`, {
        method: "POST",
        headers: { ...json, "user-agent": "codex_cli_rs/0.171.0 (Ubuntu 24.4.0; x86_64) xterm", originator: "codex_cli_rs" },
        body: JSON.stringify({ model, input: "hi", stream, store: false }),
      });
  }
}

/** The error object of a stream's closing error event, in each format's place for it. */
function streamError(format: ClientFormat, text: string): Json {
  const { data } = lastEvent(text);
  return (format === "openai-responses" ? data.response.error : data.error) as Json;
}

/** Keep-alives went out before the answer: the stream's first bytes are its format's keep-alive. */
function expectKeepAlivesFirst(format: ClientFormat, text: string): void {
  const first: Record<ClientFormat, string> = {
    openai: ": keep-alive\n\n",
    anthropic: 'event: ping\ndata: {"type":"ping"}\n\n',
    gemini: "\n",
    "openai-responses": 'event: keepalive\ndata: {"type":"keepalive","sequence_number":0}\n\n',
  };
  expect(text.startsWith(first[format])).toBe(true);
}

describe("R24.4 other answers decided after keep-alives", () => {
  beforeEach(async () => {
    plain.clearFaults();
    await gw.api("PATCH", "/api/resilience", { waitOrSwitch: { enabled: true, maxWaitMs: 8_000 }, trafficClasses: { enabled: true } });
  });

  for (const format of FORMATS) {
    it(`R24.4 ${format}: every target failing with a 429 after keep-alives ends the stream with rate_limit_error, retry_after and reset_at, as the status line says it`, async () => {
      // The only target answers a 30-second 429 (beyond waitOrSwitch.maxWaitMs) after 600 ms of keep-alives.
      plain.addFault(`fail-s-${format}-key`, { status: 429, retryAfter: 30, latencyMs: 600, times: 1 });
      const r = await request(format, `fail-s-${format}/m1`, true);
      expect(r.status).toBe(200);
      const text = await r.text();
      const writtenAt = Date.now();
      expectKeepAlivesFirst(format, text);
      const error = streamError(format, text);
      expect(format === "gemini" ? error.details[0].reason : error.code).toBe("rate_limit_error");
      expectConsistentWait(error, writtenAt);
      expect(error.retry_after).toBeGreaterThanOrEqual(28);
      expect(error.retry_after).toBeLessThanOrEqual(30);
      if (format === "openai-responses") {
        expect(error.resets_in_seconds).toBe(error.retry_after);
        expect(error.resets_at).toBe(Math.ceil(Date.parse(error.reset_at as string) / 1000));
      }
      if (format === "gemini") expect(error.details[1]).toEqual({ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${error.retry_after}s` });

      // The same decision before any byte, on the twin provider: its status line and body.
      plain.addFault(`fail-l-${format}-key`, { status: 429, retryAfter: 30, times: 1 });
      const line = await request(format, `fail-l-${format}/m1`, false);
      expect(line.status).toBe(429);
      const body = ((await line.json()) as Json).error as Json;
      if (format === "gemini") expect(body.details[0].reason).toBe(error.details[0].reason);
      else expect(body.code).toBe(error.code);
      expect(format === "gemini" ? body.status : body.type).toBe(format === "gemini" ? error.status : error.type);
      expect(Math.abs((error.retry_after as number) - Number(line.headers.get("retry-after")))).toBeLessThanOrEqual(2);
      expect(body.retry_after).toBe(Number(line.headers.get("retry-after")));
    });
  }

  it("R24.4 gemini without alt=sse (a JSON array streamed): the closing element carries rate_limit_error, RetryInfo, retry_after and reset_at", async () => {
    plain.addFault("array-s-key", { status: 429, retryAfter: 30, latencyMs: 600, times: 1 });
    const r = await fetch(`${gw.url}/v1beta/models/${encodeURIComponent("array-s/m1")}:streamGenerateContent`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
    });
    expect(r.status).toBe(200);
    const text = await r.text();
    const writtenAt = Date.now();
    expect(text.startsWith("\n")).toBe(true);
    // Keep-alive newlines and all, the body is one JSON array whose only element is the error.
    const elements = JSON.parse(text) as Json[];
    expect(elements).toHaveLength(1);
    const error = elements[0].error as Json;
    expect(error).toMatchObject({ code: 429, status: "RESOURCE_EXHAUSTED" });
    expect(error.details[0].reason).toBe("rate_limit_error");
    expect(error.details[1]).toEqual({ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${error.retry_after}s` });
    expectConsistentWait(error, writtenAt);
  });

  it("R24.4 Anthropic: background work shed after keep-alives (traffic_shed) carries retry_after and reset_at, as the status line says it", async () => {
    const captures = (JSON.parse(readFileSync("tests/fixtures/clients/trafficCaptures.json", "utf8")) as { captures: Json[] }).captures;
    const title = captures.find((c) => c.client === "claude-code" && String(c.what).startsWith("session title"))!;
    const headers = { ...(title.headers as Record<string, string>), "content-type": "application/json", "x-api-key": "x" };
    const send = (model: string, stream: boolean) => fetch(`${gw.url}/v1/messages?beta=true`, { method: "POST", headers, body: JSON.stringify({ ...title.body, model, stream }) });
    plain.addFault("shed-s-key", { status: 429, retryAfter: 20, latencyMs: 600, times: 1 });
    const r = await send("shed-s/m1", true);
    expect(r.status).toBe(200);
    const text = await r.text();
    const writtenAt = Date.now();
    expectKeepAlivesFirst("anthropic", text);
    const error = streamError("anthropic", text);
    expect(error).toMatchObject({ type: "rate_limit_error", code: "traffic_shed", retry_after: 20 });
    expectConsistentWait(error, writtenAt);

    plain.addFault("shed-l-key", { status: 429, retryAfter: 20, times: 1 });
    const line = await send("shed-l/m1", false);
    expect(line.status).toBe(429);
    const body = ((await line.json()) as Json).error as Json;
    expect(body).toMatchObject({ type: error.type, code: error.code, retry_after: error.retry_after });
    expect(line.headers.get("retry-after")).toBe(String(error.retry_after));
  });

  it("R24.4 Anthropic: a key that ran over its budget while wait-or-switch held the turn ends the stream with budget_exceeded, retry_after and reset_at", async () => {
    const key = (await gw.api("POST", "/api/keys", { name: "late-budget" })).body as { id: string; key: string };
    const system = [{ type: "text", text: "You are a careful coding agent. Read the code before you change it. ".repeat(120), cache_control: { type: "ephemeral" } }];
    const messages = (turns: number) =>
      Array.from({ length: turns * 2 - 1 }, (_, i) => ({
        role: i % 2 === 0 ? "user" : "assistant",
        content: [{ type: "text", text: i % 2 === 0 ? `Step ${i / 2 + 1}` : "Done" }],
      }));
    const turn = (turns: number, stream: boolean) =>
      fetch(`${gw.url}/v1/messages`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "anthropic-version": "2023-06-01",
          "user-agent": "claude-cli/2.1.332 (external, cli)",
          "x-api-key": key.key,
          "x-claude-code-session-id": "late-budget-session",
        },
        body: JSON.stringify({ model: "pair", max_tokens: 256, stream, system, messages: messages(turns) }),
      });
    // The first turn warms the session's account and spends some of the key's tokens.
    expect((await turn(1, false)).status).toBe(200);
    // The warm account answers a 2-second 429: the turn waits for it (keep-alives go out) ...
    plain.addFault("warm-key", { status: 429, retryAfter: 2, times: 1 });
    const pending = turn(2, true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    // ... and meanwhile the key's budget is lowered below what it already spent.
    expect((await gw.api("PATCH", `/api/keys/${key.id}`, { budget: { period: "day", maxTokens: 1 } })).status).toBe(200);
    const r = await pending;
    expect(r.status).toBe(200);
    const text = await r.text();
    const writtenAt = Date.now();
    expectKeepAlivesFirst("anthropic", text);
    const error = streamError("anthropic", text);
    expect(error).toMatchObject({ type: "rate_limit_error", code: "budget_exceeded" });
    expectConsistentWait(error, writtenAt);
    // The budget's period is the UTC day: the wait ends at its end.
    const midnight = Math.floor(writtenAt / 86_400_000) * 86_400_000 + 86_400_000;
    expect(Math.abs(Date.parse(error.reset_at as string) - midnight)).toBeLessThanOrEqual(2_000);

    // The status-line answer of the same refusal: the key's next request, before any byte.
    const line = await turn(3, false);
    expect(line.status).toBe(429);
    const body = ((await line.json()) as Json).error as Json;
    expect(body).toMatchObject({ type: error.type, code: error.code });
    expectSameReset(error, body, line);
  });
});
