// R21.9: the simulator's subscription accounts, over real HTTP on loopback: Claude OAuth logins on
// /v1/messages and ChatGPT logins on /backend-api/codex, their windows rising per request, running
// out (429 in each vendor's shape, or inside a 200 stream) and serving again at the stated reset.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../main/simulator/index.js";
import { parseSse } from "../unit/simulator/helpers.js";

const CLAUDE = "sk-ant-oat01-simulated-claude-login-AAAA";
const CLAUDE_WEEK = "sk-ant-oat01-simulated-claude-login-BBBB";
const CHATGPT = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJzaW0ifQ.simulated-chatgpt-access";
const ACCOUNT = "acct-sim-1";
const METERED = "sk-ant-api03-metered-key";
const REPLY = "one two three four five six seven eight";
const HOUR_MS = 3_600_000;

type Reply = { status: number; headers: Headers; text: string; json: () => any };

async function call(sim: { url: string }, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Reply> {
  const res = await fetch(`${sim.url}${path}`, {
    method,
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

const messages = (stream = false) => ({ model: "sim-smart", max_tokens: 64, stream, messages: [{ role: "user", content: "hi" }] });
const responsesBody = (stream = false) => ({ model: "sim-smart", stream, input: "hi" });
const claude = (token: string) => ({ authorization: `Bearer ${token}`, "anthropic-version": "2023-06-01", "anthropic-beta": "oauth-2025-04-20" });
/** ChatGPT login headers; `account` null sends no chatgpt-account-id. */
const chatgpt = (token = CHATGPT, account: string | null = ACCOUNT): Record<string, string> =>
  account === null ? { authorization: `Bearer ${token}` } : { authorization: `Bearer ${token}`, "chatgpt-account-id": account };

const controlJson = async (sim: Simulator, method: string, path: string, body?: unknown) => (await call(sim, method, path, {}, body)).json();
const simNow = async (sim: Simulator): Promise<number> => (await controlJson(sim, "GET", "/__sim/clock")).now as number;
const events = (text: string) => parseSse(text).filter((e) => !e.comment);

/** Everything the answer exposes, to prove a login's token never comes back. */
const exposed = (r: Reply) => `${JSON.stringify([...r.headers.entries()])}\n${r.text}`;

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({
    label: "subs",
    replyText: REPLY,
    apiKeys: [METERED],
    subscriptions: [
      { kind: "anthropic", token: CLAUDE, fiveHourLimit: 4, weekLimit: 10 },
      { kind: "anthropic", token: CLAUDE_WEEK, name: "weekly", fiveHourLimit: 100, weekLimit: 100 },
      { kind: "chatgpt", token: CHATGPT, chatgptAccountId: ACCOUNT, fiveHourLimit: 2, weekLimit: 20 },
    ],
  });
});
afterAll(async () => {
  await sim.close();
});

describe("R21.9 without subscriptions nothing changes", () => {
  let plain: Simulator;
  beforeAll(async () => {
    plain = await startSimulator({ label: "plain" });
  });
  afterAll(async () => {
    await plain.close();
  });

  it("R21.9 any Anthropic key is served as before, with a req_ request-id on every Anthropic answer only", async () => {
    const ok = await call(plain, "POST", "/v1/messages", { "x-api-key": "whatever", "anthropic-version": "2023-06-01" }, messages());
    expect(ok.status).toBe(200);
    expect(ok.headers.get("request-id")).toMatch(/^req_[0-9a-f]+$/);
    expect(ok.headers.get("anthropic-ratelimit-unified-status")).toBeNull();
    const oauth = await call(plain, "POST", "/v1/messages", claude("sk-ant-oat01-anyone"), messages());
    expect(oauth.status).toBe(200);
    const other = await call(plain, "POST", "/v1/messages", { "x-api-key": "whatever" }, messages());
    expect(other.headers.get("request-id")).not.toBe(ok.headers.get("request-id"));
    const missing = await call(plain, "POST", "/v1/messages/nothing", { "x-api-key": "whatever" }, {});
    expect(missing.status).toBe(404);
    expect(missing.headers.get("request-id")).toMatch(/^req_/);
    const chat = await call(plain, "POST", "/v1/chat/completions", { authorization: "Bearer k" }, { model: "m", messages: [{ role: "user", content: "hi" }] });
    expect(chat.status).toBe(200);
    expect(chat.headers.get("request-id")).toBeNull();
  });

  it("R21.9 the ChatGPT backend serves nobody when no ChatGPT login is configured", async () => {
    const r = await call(plain, "POST", "/backend-api/codex/responses", chatgpt(), responsesBody());
    expect(r.status).toBe(401);
    expect(r.json().error.type).toBe("authentication_error");
  });
});

describe("R21.9 Claude logins", () => {
  afterEach(async () => {
    // Each test starts on fresh windows: past every reset.
    await controlJson(sim, "POST", "/__sim/clock", { advanceMs: 8 * 24 * HOUR_MS });
  });

  it("R21.9 a known OAuth login is served (Bearer or x-api-key); unknown ones get Anthropic's 401; listed API keys still pass", async () => {
    const bearer = await call(sim, "POST", "/v1/messages", claude(CLAUDE), messages());
    expect(bearer.status).toBe(200);
    expect(bearer.json().content[0].text).toBe(REPLY);
    expect(bearer.headers.get("x-sim-key")).toBe("claude-1");
    expect(sim.requests.at(-1)).toMatchObject({ login: "claude-1", key: CLAUDE });
    const viaKey = await call(sim, "POST", "/v1/messages", { "x-api-key": CLAUDE, "anthropic-version": "2023-06-01" }, messages());
    expect(viaKey.status).toBe(200);

    const unknown = await call(sim, "POST", "/v1/messages", claude("sk-ant-oat01-not-a-known-login"), messages());
    expect(unknown.status).toBe(401);
    expect(unknown.json()).toEqual({ type: "error", error: { type: "authentication_error", message: "Invalid bearer token" } });
    expect(unknown.headers.get("request-id")).toMatch(/^req_/);
    const badKey = await call(sim, "POST", "/v1/messages", { "x-api-key": "sk-ant-api03-unknown" }, messages());
    expect(badKey.status).toBe(401);
    expect(badKey.json().error).toEqual({ type: "authentication_error", message: "invalid x-api-key" });
    const none = await call(sim, "POST", "/v1/messages", {}, messages());
    expect(none.status).toBe(401);
    const counted = await call(sim, "POST", "/v1/messages/count_tokens", { "x-api-key": "sk-ant-api03-unknown" }, messages());
    expect(counted.status).toBe(401);
    const chatgptOnClaude = await call(sim, "POST", "/v1/messages", { authorization: `Bearer ${CHATGPT}` }, messages());
    expect(chatgptOnClaude.status).toBe(401);

    const metered = await call(sim, "POST", "/v1/messages", { "x-api-key": METERED }, messages());
    expect(metered.status).toBe(200);
    expect(metered.headers.get("anthropic-ratelimit-unified-status")).toBeNull();
    // Only Anthropic routes are guarded: Chat Completions serves any key as before.
    const chat = await call(sim, "POST", "/v1/chat/completions", { authorization: "Bearer anything" }, { model: "m", messages: [{ role: "user", content: "hi" }] });
    expect(chat.status).toBe(200);
  });

  it("R21.9 the unified 5h/7d headers rise per request of that login and name the binding window", async () => {
    const now = await simNow(sim);
    const seen: Array<Record<string, string | null>> = [];
    for (let i = 0; i < 4; i++) {
      const r = await call(sim, "POST", "/v1/messages", claude(CLAUDE), messages(i % 2 === 1));
      expect(r.status).toBe(200);
      expect(exposed(r)).not.toContain(CLAUDE);
      seen.push(
        Object.fromEntries(
          ["5h-utilization", "7d-utilization", "5h-status", "7d-status", "status", "representative-claim", "5h-reset", "7d-reset", "reset"].map((h) => [
            h,
            r.headers.get(`anthropic-ratelimit-unified-${h}`),
          ]),
        ),
      );
    }
    expect(seen.map((h) => h["5h-utilization"])).toEqual(["0.25", "0.5", "0.75", "1"]);
    expect(seen.map((h) => h["7d-utilization"])).toEqual(["0.1", "0.2", "0.3", "0.4"]);
    expect(seen.map((h) => h["5h-status"])).toEqual(["allowed", "allowed", "allowed", "allowed_warning"]);
    expect(seen.map((h) => h.status)).toEqual(["allowed", "allowed", "allowed", "allowed_warning"]);
    expect(seen.every((h) => h["7d-status"] === "allowed" && h["representative-claim"] === "five_hour")).toBe(true);
    const reset5h = Number(seen[0]["5h-reset"]);
    expect(Math.abs(reset5h - (now + 5 * HOUR_MS) / 1000)).toBeLessThan(5);
    expect(Math.abs(Number(seen[0]["7d-reset"]) - (now + 7 * 24 * HOUR_MS) / 1000)).toBeLessThan(5);
    expect(seen.every((h) => h["5h-reset"] === String(reset5h) && h.reset === String(reset5h))).toBe(true);

    // Another login's windows are its own.
    const weekly = await call(sim, "POST", "/v1/messages", claude(CLAUDE_WEEK), messages());
    expect(weekly.headers.get("anthropic-ratelimit-unified-5h-utilization")).toBe("0.01");
  });

  it("R21.9 a used-up 5-hour window answers 429 rejected with its reset, and serves again at that reset on the simulator clock", async () => {
    for (let i = 0; i < 4; i++) expect((await call(sim, "POST", "/v1/messages", claude(CLAUDE), messages())).status).toBe(200);
    const now = await simNow(sim);
    const refused = await call(sim, "POST", "/v1/messages", claude(CLAUDE), messages(true));
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toContain("application/json");
    expect(refused.json()).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
    expect(refused.headers.get("anthropic-ratelimit-unified-status")).toBe("rejected");
    expect(refused.headers.get("anthropic-ratelimit-unified-5h-status")).toBe("rejected");
    expect(refused.headers.get("anthropic-ratelimit-unified-7d-status")).toBe("allowed");
    expect(refused.headers.get("anthropic-ratelimit-unified-representative-claim")).toBe("five_hour");
    expect(refused.headers.get("request-id")).toMatch(/^req_/);
    const reset = Number(refused.headers.get("anthropic-ratelimit-unified-5h-reset"));
    expect(refused.headers.get("anthropic-ratelimit-unified-reset")).toBe(String(reset));
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(Math.abs(retryAfter - (reset * 1000 - now) / 1000)).toBeLessThanOrEqual(2);
    expect(retryAfter).toBeGreaterThan(5 * 3600 - 60);
    expect(exposed(refused)).not.toContain(CLAUDE);

    // One second short of the reset it is still refused; at the reset it serves a fresh period.
    await controlJson(sim, "POST", "/__sim/clock", { advanceMs: reset * 1000 - (await simNow(sim)) - 1_000 });
    expect((await call(sim, "POST", "/v1/messages", claude(CLAUDE), messages())).status).toBe(429);
    await controlJson(sim, "POST", "/__sim/clock", { advanceMs: 1_000 });
    const again = await call(sim, "POST", "/v1/messages", claude(CLAUDE), messages());
    expect(again.status).toBe(200);
    expect(again.headers.get("anthropic-ratelimit-unified-5h-utilization")).toBe("0.25");
    expect(again.headers.get("anthropic-ratelimit-unified-7d-utilization")).toBe("0.5");
    expect(Number(again.headers.get("anthropic-ratelimit-unified-5h-reset"))).toBeGreaterThan(reset);
  });

  it("R21.9 a used-up week claims seven_day and outlasts the 5-hour reset; the control route sets it", async () => {
    const state = await controlJson(sim, "POST", "/__sim/subscriptions/usage", { login: "weekly", window: "7d", exhaust: true, resetInSeconds: 3 * 86_400 });
    expect(state.login).toMatchObject({ name: "weekly", windows: { "7d": { used: 100, limit: 100, exhausted: true } } });
    const refused = await call(sim, "POST", "/v1/messages", claude(CLAUDE_WEEK), messages());
    expect(refused.status).toBe(429);
    expect(refused.headers.get("anthropic-ratelimit-unified-representative-claim")).toBe("seven_day");
    expect(refused.headers.get("anthropic-ratelimit-unified-7d-status")).toBe("rejected");
    expect(refused.headers.get("anthropic-ratelimit-unified-5h-status")).toBe("allowed");
    expect(refused.headers.get("anthropic-ratelimit-unified-reset")).toBe(refused.headers.get("anthropic-ratelimit-unified-7d-reset"));
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(3 * 86_400 - 60);
    await controlJson(sim, "POST", "/__sim/clock", { advanceMs: 6 * HOUR_MS });
    expect((await call(sim, "POST", "/v1/messages", claude(CLAUDE_WEEK), messages())).status).toBe(429);
    await controlJson(sim, "POST", "/__sim/clock", { advanceMs: 3 * 86_400_000 });
    expect((await call(sim, "POST", "/v1/messages", claude(CLAUDE_WEEK), messages())).status).toBe(200);
  });

  it("R21.9 a Claude stream can run into the limit inside a 200: an error event before any content, or after some text", async () => {
    await controlJson(sim, "POST", "/__sim/subscriptions/stream-exhaustion", { login: "claude-1" });
    // A request that does not stream leaves the switch for the next streamed one.
    expect((await call(sim, "POST", "/v1/messages", claude(CLAUDE), messages())).status).toBe(200);
    const early = await call(sim, "POST", "/v1/messages", claude(CLAUDE), messages(true));
    expect(early.status).toBe(200);
    expect(early.headers.get("content-type")).toBe("text/event-stream");
    expect(early.headers.get("anthropic-ratelimit-unified-status")).toBe("rejected");
    expect(early.headers.get("anthropic-ratelimit-unified-5h-status")).toBe("rejected");
    const first = events(early.text);
    expect(first.map((e) => e.event)).toEqual(["message_start", "error"]);
    expect(JSON.parse(first[1].data)).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
    // The window is used up now: the next call is refused until the reset.
    expect((await call(sim, "POST", "/v1/messages", claude(CLAUDE), messages(true))).status).toBe(429);

    await controlJson(sim, "POST", "/__sim/clock", { advanceMs: 5 * HOUR_MS + 1_000 });
    sim.exhaustInStream("claude-1", { afterChunks: 2 });
    const late = await call(sim, "POST", "/v1/messages", claude(CLAUDE), messages(true));
    expect(late.status).toBe(200);
    const second = events(late.text);
    expect(second.map((e) => e.event)).toEqual(["message_start", "content_block_start", "ping", "content_block_delta", "content_block_delta", "error"]);
    const text = second.filter((e) => e.event === "content_block_delta").map((e) => JSON.parse(e.data).delta.text as string);
    expect(text.join("")).toBe("one two");
    expect(late.text).not.toContain("message_stop");
    expect((await call(sim, "POST", "/v1/messages", claude(CLAUDE), messages())).status).toBe(429);
  });
});

describe("R21.9 the ChatGPT backend", () => {
  afterEach(async () => {
    await controlJson(sim, "POST", "/__sim/clock", { advanceMs: 8 * 24 * HOUR_MS });
  });

  it("R21.9 needs a known ChatGPT token and that account's chatgpt-account-id, refused in OpenAI's shape", async () => {
    const none = await call(sim, "POST", "/backend-api/codex/responses", {}, responsesBody());
    expect(none.status).toBe(401);
    expect(none.json().error).toMatchObject({ type: "authentication_error", code: "invalid_api_key" });
    expect((await call(sim, "POST", "/backend-api/codex/responses", chatgpt("not-a-login"), responsesBody())).status).toBe(401);
    expect((await call(sim, "POST", "/backend-api/codex/responses", chatgpt(CLAUDE), responsesBody())).status).toBe(401);
    const noAccount = await call(sim, "POST", "/backend-api/codex/responses", chatgpt(CHATGPT, null), responsesBody());
    expect(noAccount.status).toBe(401);
    expect(noAccount.json().error.message).toContain("chatgpt-account-id");
    const otherAccount = await call(sim, "POST", "/backend-api/codex/responses", chatgpt(CHATGPT, "acct-someone-else"), responsesBody());
    expect(otherAccount.status).toBe(403);
    expect(otherAccount.json().error.type).toBe("permission_error");
    expect((await call(sim, "GET", "/backend-api/codex/models?client_version=0.171.0", chatgpt(CHATGPT, null))).status).toBe(401);

    const ok = await call(sim, "POST", "/backend-api/codex/responses", chatgpt(), responsesBody());
    expect(ok.status).toBe(200);
    expect(ok.json()).toMatchObject({ object: "response", status: "completed", output: [{ type: "message", content: [{ text: REPLY }] }] });
    expect(exposed(ok)).not.toContain(CHATGPT);
    expect(ok.headers.get("x-sim-key")).toBe(ACCOUNT);
    expect(ok.headers.get("request-id")).toBeNull();
  });

  it("R21.9 lists models in the catalogue shape Codex decodes, without counting against the windows", async () => {
    const r = await call(sim, "GET", "/backend-api/codex/models?client_version=0.171.0", chatgpt());
    expect(r.status).toBe(200);
    const models = r.json().models as Array<Record<string, any>>;
    expect(models.map((m) => m.slug)).toEqual(["sim-fast", "sim-smart", "sim-reasoner"]);
    for (const m of models) {
      for (const field of [
        "display_name",
        "priority",
        "visibility",
        "supported_in_api",
        "shell_type",
        "support_verbosity",
        "supported_reasoning_levels",
        "truncation_policy",
        "experimental_supported_tools",
      ]) {
        expect(m, field).toHaveProperty(field);
      }
      expect(typeof m.model_messages.instructions_template).toBe("string");
      expect(m.context_window).toBeGreaterThan(0);
    }
    expect(r.headers.get("x-codex-primary-used-percent")).toBeNull();
    const state = (await controlJson(sim, "GET", "/__sim/subscriptions")).logins.find((l: { name: string }) => l.name === ACCOUNT);
    expect(state.windows["5h"].used).toBe(0);
  });

  it("R21.9 x-codex-* windows rise per request; a used-up window answers 429 usage_limit_reached until its reset", async () => {
    const now = await simNow(sim);
    const first = await call(sim, "POST", "/backend-api/codex/responses", chatgpt(), responsesBody(true));
    expect(first.status).toBe(200);
    expect(events(first.text).at(-1)?.event).toBe("response.completed");
    expect(first.headers.get("x-codex-primary-used-percent")).toBe("50");
    expect(first.headers.get("x-codex-secondary-used-percent")).toBe("5");
    expect(first.headers.get("x-codex-primary-window-minutes")).toBe("300");
    expect(first.headers.get("x-codex-secondary-window-minutes")).toBe("10080");
    const resetAt = Number(first.headers.get("x-codex-primary-reset-at"));
    expect(Math.abs(resetAt - (now + 5 * HOUR_MS) / 1000)).toBeLessThan(5);
    expect(Math.abs(Number(first.headers.get("x-codex-primary-reset-after-seconds")) - 5 * 3600)).toBeLessThan(5);
    expect(Math.abs(Number(first.headers.get("x-codex-secondary-reset-at")) - (now + 7 * 24 * HOUR_MS) / 1000)).toBeLessThan(5);
    const second = await call(sim, "POST", "/backend-api/codex/responses", chatgpt(), responsesBody());
    expect(second.headers.get("x-codex-primary-used-percent")).toBe("100");
    expect(second.headers.get("x-codex-secondary-used-percent")).toBe("10");

    const refused = await call(sim, "POST", "/backend-api/codex/responses", chatgpt(), responsesBody(true));
    expect(refused.status).toBe(429);
    const body = refused.json();
    expect(body).toEqual({
      error: { type: "usage_limit_reached", message: "The usage limit has been reached", plan_type: "plus", resets_at: resetAt, resets_in_seconds: expect.any(Number) },
    });
    expect(Math.abs(body.error.resets_in_seconds - (resetAt * 1000 - (await simNow(sim))) / 1000)).toBeLessThanOrEqual(2);
    expect(refused.headers.get("x-codex-primary-used-percent")).toBe("100");
    expect(exposed(refused)).not.toContain(CHATGPT);

    await controlJson(sim, "POST", "/__sim/clock", { advanceMs: resetAt * 1000 - (await simNow(sim)) - 1_000 });
    expect((await call(sim, "POST", "/backend-api/codex/responses", chatgpt(), responsesBody())).status).toBe(429);
    await controlJson(sim, "POST", "/__sim/clock", { advanceMs: 1_000 });
    const again = await call(sim, "POST", "/backend-api/codex/responses", chatgpt(), responsesBody());
    expect(again.status).toBe(200);
    expect(again.headers.get("x-codex-primary-used-percent")).toBe("50");
    expect(again.headers.get("x-codex-secondary-used-percent")).toBe("15");
  });

  it("R21.9 a Responses stream can hit the usage limit inside a 200: response.failed before any content, response.incomplete after some text", async () => {
    await controlJson(sim, "POST", "/__sim/subscriptions/stream-exhaustion", { login: ACCOUNT });
    const early = await call(sim, "POST", "/backend-api/codex/responses", chatgpt(), responsesBody(true));
    expect(early.status).toBe(200);
    // The headers still show the window as the stream began; the stream's end carries the limit.
    expect(early.headers.get("x-codex-primary-used-percent")).toBe("50");
    const first = events(early.text).map((e) => JSON.parse(e.data) as Record<string, any>);
    expect(first.map((e) => e.type)).toEqual(["response.created", "response.in_progress", "response.failed"]);
    expect(first.map((e) => e.sequence_number)).toEqual([0, 1, 2]);
    expect(first[2].response).toMatchObject({ id: first[0].response.id, status: "failed", error: { code: "usage_limit_reached" } });
    const refused = await call(sim, "POST", "/backend-api/codex/responses", chatgpt(), responsesBody());
    expect(refused.status).toBe(429);
    expect(refused.json().error.type).toBe("usage_limit_reached");

    await controlJson(sim, "POST", "/__sim/clock", { advanceMs: 5 * HOUR_MS + 1_000 });
    await controlJson(sim, "POST", "/__sim/subscriptions/stream-exhaustion", { login: ACCOUNT, afterChunks: 3, as: "incomplete" });
    const late = await call(sim, "POST", "/backend-api/codex/responses", chatgpt(), responsesBody(true));
    expect(late.status).toBe(200);
    const second = events(late.text).map((e) => JSON.parse(e.data) as Record<string, any>);
    const deltas = second.filter((e) => e.type === "response.output_text.delta").map((e) => e.delta as string);
    expect(deltas.join("")).toBe("one two three");
    expect(second.at(-1)).toMatchObject({ type: "response.incomplete", response: { status: "incomplete", incomplete_details: { reason: "usage_limit_reached" } } });
    expect(second.some((e) => e.type === "response.completed")).toBe(false);
    expect((await call(sim, "POST", "/backend-api/codex/responses", chatgpt(), responsesBody())).status).toBe(429);
  });

  it("R21.9 compaction on the backend needs the login and counts against its windows", async () => {
    expect((await call(sim, "POST", "/backend-api/codex/responses/compact", chatgpt(CHATGPT, "acct-x"), { model: "sim-smart", input: "hi" })).status).toBe(403);
    const r = await call(sim, "POST", "/backend-api/codex/responses/compact", chatgpt(), { model: "sim-smart", input: "hi" });
    expect(r.status).toBe(200);
    expect(r.json().object).toBe("response.compaction");
    expect(r.headers.get("x-codex-primary-used-percent")).toBe("50");
  });
});

describe("R21.9 control routes and options", () => {
  it("R21.9 list logins by name without their tokens, refuse unknown logins and bad bodies with 400", async () => {
    const listed = await call(sim, "GET", "/__sim/subscriptions", {});
    expect(listed.status).toBe(200);
    expect(listed.json().logins.map((l: { name: string; kind: string }) => `${l.kind}:${l.name}`)).toEqual(["anthropic:claude-1", "anthropic:weekly", `chatgpt:${ACCOUNT}`]);
    for (const token of [CLAUDE, CLAUDE_WEEK, CHATGPT]) expect(listed.text).not.toContain(token);
    expect((await call(sim, "POST", "/__sim/subscriptions/usage", {}, { login: "nobody", window: "5h", used: 1 })).status).toBe(400);
    expect((await call(sim, "POST", "/__sim/subscriptions/usage", {}, { login: "weekly", window: "1d", used: 1 })).status).toBe(400);
    expect((await call(sim, "POST", "/__sim/subscriptions/stream-exhaustion", {}, { login: "weekly", as: "sideways" })).status).toBe(400);
    expect((await call(sim, "POST", "/__sim/clock", {}, { advanceMs: -5 })).status).toBe(400);
    // A login may be named by its token too; the answer still shows only its name.
    const byToken = await call(sim, "POST", "/__sim/subscriptions/usage", {}, { login: CLAUDE_WEEK, window: "5h", used: 7 });
    expect(byToken.status).toBe(200);
    expect(byToken.json().login).toMatchObject({ name: "weekly", windows: { "5h": { used: 7, utilisation: 0.07 } } });
    expect(byToken.text).not.toContain(CLAUDE_WEEK);
    expect((await call(sim, "DELETE", "/__sim/subscriptions/stream-exhaustion", {})).status).toBe(200);
  });

  it("R21.9 a stream switch set with times ends that many streams, and DELETE clears it", async () => {
    await controlJson(sim, "POST", "/__sim/clock", { advanceMs: 8 * 24 * HOUR_MS });
    await controlJson(sim, "POST", "/__sim/subscriptions/stream-exhaustion", { login: "weekly", times: 2, window: "7d" });
    expect((await controlJson(sim, "GET", "/__sim/subscriptions")).logins[1].streamExhaustion).toBe(2);
    await controlJson(sim, "DELETE", "/__sim/subscriptions/stream-exhaustion?login=weekly");
    const served = await call(sim, "POST", "/v1/messages", claude(CLAUDE_WEEK), messages(true));
    expect(events(served.text).at(-1)?.event).toBe("message_stop");
    expect(served.headers.get("anthropic-ratelimit-unified-status")).toBe("allowed");
  });

  it("R21.9 invalid subscription options fail at start", async () => {
    await expect(startSimulator({ subscriptions: [{ kind: "chatgpt", token: "t" }] })).rejects.toThrow(/chatgptAccountId/);
    await expect(startSimulator({ subscriptions: [{ kind: "anthropic", token: "t", fiveHourLimit: 0 }] })).rejects.toThrow(/fiveHourLimit/);
    await expect(
      startSimulator({
        subscriptions: [
          { kind: "anthropic", token: "same" },
          { kind: "anthropic", token: "same" },
        ],
      }),
    ).rejects.toThrow(/twice/);
  });
});

describe("R21.9 OAuth beta", () => {
  it("R21.9 with requireOAuthBeta a Bearer login without oauth-2025-04-20 gets Anthropic's 401; with it, or as x-api-key, it is served", async () => {
    const strict = await startSimulator({ requireOAuthBeta: true, subscriptions: [{ kind: "anthropic", token: CLAUDE }] });
    try {
      const noBeta = await call(strict, "POST", "/v1/messages", { authorization: `Bearer ${CLAUDE}`, "anthropic-beta": "claude-code-20250219" }, messages());
      expect(noBeta.status).toBe(401);
      expect(noBeta.json().error).toEqual({ type: "authentication_error", message: "OAuth authentication is currently not supported." });
      const withBeta = await call(strict, "POST", "/v1/messages", { authorization: `Bearer ${CLAUDE}`, "anthropic-beta": "claude-code-20250219, oauth-2025-04-20" }, messages());
      expect(withBeta.status).toBe(200);
      expect((await call(strict, "POST", "/v1/messages", { "x-api-key": CLAUDE }, messages())).status).toBe(200);
    } finally {
      await strict.close();
    }
  });
});

/** Transpiles the simulator sources to plain ESM in a temp dir, so the real CLI entry runs under node. */
function transpileSimulator(): string {
  const out = mkdtempSync(path.join(tmpdir(), "sim-subs-cli-"));
  const src = fileURLToPath(new URL("../../main/simulator", import.meta.url));
  const walk = (dir: string, rel: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const from = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        mkdirSync(path.join(out, rel, entry.name), { recursive: true });
        walk(from, path.join(rel, entry.name));
      } else if (entry.name.endsWith(".ts")) {
        const js = ts.transpileModule(readFileSync(from, "utf8"), { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
        writeFileSync(path.join(out, rel, entry.name.replace(/\.ts$/, ".js")), js);
      }
    }
  };
  walk(src, "");
  writeFileSync(path.join(out, "package.json"), '{"type":"module"}');
  return out;
}

describe("R21.9 the CLI", () => {
  let dir: string;
  beforeAll(() => {
    dir = transpileSimulator();
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("R21.9 --subscriptions @file configures logins the CLI then serves", async () => {
    const file = path.join(dir, "logins.json");
    writeFileSync(file, JSON.stringify([{ kind: "chatgpt", token: CHATGPT, chatgptAccountId: ACCOUNT, fiveHourLimit: 1 }]));
    const child = spawn(process.execPath, [path.join(dir, "cli.js"), "--port", "0", "--subscriptions", `@${file}`], { stdio: ["ignore", "pipe", "pipe"] });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).once("line", resolve);
        child.once("exit", (code) => reject(new Error(`cli exited with ${code}`)));
      });
      const url = /^Simulator listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line)?.[1];
      expect(url).toBeDefined();
      const viaCli = { url: url ?? "" };
      expect((await call(viaCli, "POST", "/backend-api/codex/responses", chatgpt(), responsesBody())).status).toBe(200);
      expect((await call(viaCli, "POST", "/backend-api/codex/responses", chatgpt(), responsesBody())).status).toBe(429);
      expect((await call(viaCli, "POST", "/backend-api/codex/responses", chatgpt("someone-else"), responsesBody())).status).toBe(401);
    } finally {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    }
  });

  it("R21.9 a bad --subscriptions value exits 2 without repeating the logins it holds", async () => {
    for (const flag of [`[{"kind":"anthropic","token":"${CLAUDE}"`, JSON.stringify([{ kind: "chatgpt", token: CHATGPT }])]) {
      const child = spawn(process.execPath, [path.join(dir, "cli.js"), "--port", "0", "--subscriptions", flag], { stdio: ["ignore", "pipe", "pipe"] });
      let output = "";
      child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
      child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      expect(code).toBe(2);
      expect(output).toMatch(/subscriptions/);
      expect(output).not.toContain(CLAUDE);
      expect(output).not.toContain(CHATGPT);
    }
  });
});
