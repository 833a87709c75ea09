// R21.4 through the real gateway over HTTP: a tiny fake upstream on loopback answers per account
// (its key) as programmed — a used-up window (Anthropic unified `rejected`, Codex
// `usage_limit_reached`), a bare burst 429, or a 200 stream that ends on the usage limit — and the
// tests watch where the next request goes, what GET /api/resilience/cooldowns says, and (under
// --test-clock) that the account serves again once the clock passes the window's reset.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseSse, startGateway, type TestGateway } from "../harness.js";

const HOUR = 3_600_000;
const MINUTE = 60_000;

type Mode =
  /** A good answer; with `utilization`, its unified headers say the 5-hour window is that used (0..1). */
  | { kind: "ok"; utilization?: number; resetAt?: number }
  /** Anthropic 429, unified status rejected, the 5-hour window resetting at `resetAt`. */
  | { kind: "unified_rejected"; resetAt: number }
  /** A 429 whose window headers show the windows fine, with a usage-limit text (R21.4(c)). */
  | { kind: "burst" }
  /** Codex 429 usage_limit_reached with resets_in_seconds. */
  | { kind: "codex_limit"; seconds: number }
  /** A 200 stream whose headers say unified rejected, ending in an `error` event before any content. */
  | { kind: "anthropic_stream_limit"; resetAt: number; afterContent?: boolean }
  /** A 200 Responses stream that ends `response.failed` with usage_limit_reached before any content. */
  | { kind: "responses_stream_limit"; resetAt: number };

interface FakeUpstream {
  url: string;
  modes: Map<string, Mode>;
  /** The key of each request served, in order. */
  seen: string[];
  close(): Promise<void>;
}

const epochS = (ms: number) => String(Math.floor(ms / 1_000));

function unifiedHeaders(status: "allowed" | "allowed_warning" | "rejected", resetAt: number, utilization = status === "rejected" ? 1 : 0.2): Record<string, string> {
  return {
    "anthropic-ratelimit-unified-status": status,
    "anthropic-ratelimit-unified-reset": epochS(resetAt),
    "anthropic-ratelimit-unified-representative-claim": "five_hour",
    "anthropic-ratelimit-unified-5h-utilization": String(utilization),
    "anthropic-ratelimit-unified-5h-reset": epochS(resetAt),
    "anthropic-ratelimit-unified-5h-status": status,
    "anthropic-ratelimit-unified-7d-utilization": "0.3",
    "anthropic-ratelimit-unified-7d-reset": epochS(resetAt + 3 * 24 * HOUR),
    "anthropic-ratelimit-unified-7d-status": "allowed",
  };
}

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

function anthropicStream(res: ServerResponse, key: string, headers: Record<string, string>, end: "done" | "limit", content = true): void {
  res.writeHead(200, { "content-type": "text/event-stream", ...headers });
  res.write(
    sse("message_start", {
      type: "message_start",
      message: { id: "msg_1", type: "message", role: "assistant", model: "m1", content: [], usage: { input_tokens: 3, output_tokens: 0 } },
    }),
  );
  if (content) {
    res.write(sse("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }));
    res.write(sse("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: `hello from ${key}` } }));
  }
  if (end === "limit") {
    res.end(sse("error", { type: "error", error: { type: "rate_limit_error", message: "This request would exceed your account's rate limit." } }));
    return;
  }
  res.write(sse("content_block_stop", { type: "content_block_stop", index: 0 }));
  res.write(sse("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 4 } }));
  res.end(sse("message_stop", { type: "message_stop" }));
}

function responsesStream(res: ServerResponse, key: string, end: "done" | "limit"): void {
  res.writeHead(200, { "content-type": "text/event-stream", "x-codex-primary-used-percent": "97", "x-codex-primary-window-minutes": "300" });
  const response = { id: "resp_1", object: "response", model: "m1", output: [] };
  res.write(sse("response.created", { type: "response.created", response: { ...response, status: "in_progress" } }));
  if (end === "limit") {
    res.end(
      sse("response.failed", {
        type: "response.failed",
        response: { ...response, status: "failed", error: { code: "usage_limit_reached", message: "The usage limit has been reached" } },
      }),
    );
    return;
  }
  res.write(sse("response.output_text.delta", { type: "response.output_text.delta", item_id: "msg_1", output_index: 0, content_index: 0, delta: `hello from ${key}` }));
  res.end(sse("response.completed", { type: "response.completed", response: { ...response, status: "completed", usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7 } } }));
}

function anthropicMessage(key: string) {
  return {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "m1",
    content: [{ type: "text", text: `hello from ${key}` }],
    stop_reason: "end_turn",
    usage: { input_tokens: 3, output_tokens: 4 },
  };
}

function responsesMessage(key: string) {
  return {
    id: "resp_1",
    object: "response",
    status: "completed",
    model: "m1",
    output: [{ type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text: `hello from ${key}`, annotations: [] }] }],
    usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7 },
  };
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = "";
  for await (const chunk of req) text += String(chunk);
  return JSON.parse(text || "{}") as Record<string, unknown>;
}

async function startFakeUpstream(): Promise<FakeUpstream> {
  const modes = new Map<string, Mode>();
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const key = String(req.headers["x-api-key"] ?? String(req.headers.authorization ?? "").replace(/^Bearer /, ""));
      seen.push(key);
      const mode = modes.get(key) ?? { kind: "ok" };
      const responses = req.url?.includes("/responses") ?? false;
      const json = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { "content-type": "application/json", ...headers });
        res.end(JSON.stringify(payload));
      };
      switch (mode.kind) {
        case "unified_rejected":
          return json(
            429,
            { type: "error", error: { type: "rate_limit_error", message: "This request would exceed your account's rate limit." } },
            unifiedHeaders("rejected", mode.resetAt),
          );
        case "burst":
          return json(429, { type: "error", error: { type: "rate_limit_error", message: "usage limit reached, slow down" } }, unifiedHeaders("allowed", Date.now() + 2 * HOUR));
        case "codex_limit":
          return json(429, { error: { type: "usage_limit_reached", message: "The usage limit has been reached", plan_type: "plus", resets_in_seconds: mode.seconds } });
        case "anthropic_stream_limit":
          return anthropicStream(res, key, unifiedHeaders("rejected", mode.resetAt), "limit", mode.afterContent === true);
        case "responses_stream_limit":
          return responsesStream(res, key, "limit");
        case "ok":
          if (body["stream"] === true) return responses ? responsesStream(res, key, "done") : anthropicStream(res, key, unifiedHeaders("allowed", Date.now() + 2 * HOUR), "done");
          return json(
            200,
            responses ? responsesMessage(key) : anthropicMessage(key),
            mode.utilization === undefined ? {} : unifiedHeaders(mode.utilization >= 0.8 ? "allowed_warning" : "allowed", mode.resetAt ?? Date.now() + 2 * HOUR, mode.utilization),
          );
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    modes,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let gw: TestGateway;
let up: FakeUpstream;

async function addAccounts(provider: string, format: "anthropic" | "openai-responses", keys: string[]): Promise<void> {
  const baseUrl = format === "anthropic" ? up.url : `${up.url}/v1`;
  const p = await gw.api("POST", "/api/providers", { id: provider, format, baseUrl, category: "apikey", models: ["m1"] });
  expect(p.status, p.text).toBe(201);
  for (const [i, key] of keys.entries()) {
    const c = await gw.api("POST", "/api/connections", { id: `${provider}-c${i + 1}`, provider, name: `${provider} ${key}`, apiKey: key, priority: i });
    expect(c.status, c.text).toBe(201);
  }
}

async function engineNow(): Promise<number> {
  return (await gw.api<{ now: number }>("GET", "/api/debug/clock")).body.now;
}

async function cooldownOf(connectionId: string): Promise<{ remainingMs: number; lastErrorType: string | null; status: string } | undefined> {
  const r = await gw.api<{ items: Array<{ connectionId: string; remainingMs: number; lastErrorType: string | null; status: string }> }>("GET", "/api/resilience/cooldowns");
  return r.body.items.find((i) => i.connectionId === connectionId);
}

const messages = (provider: string, extra: Record<string, unknown> = {}) =>
  gw.post("/v1/messages", { model: `${provider}/m1`, max_tokens: 16, messages: [{ role: "user", content: "hi" }], ...extra });
const responses = (provider: string, extra: Record<string, unknown> = {}) => gw.post("/v1/responses", { model: `${provider}/m1`, input: "hi", ...extra });

beforeAll(async () => {
  up = await startFakeUpstream();
  gw = await startGateway({ testClock: true });
});

afterAll(async () => {
  await gw?.close();
  await up?.close();
});

beforeEach(() => {
  up.modes.clear();
  up.seen.length = 0;
});

describe("R21.4 windows route, through the gateway", () => {
  it("R21.4 an Anthropic 429 with unified status rejected cools the account until the window's reset; the next request goes to the sibling; after the reset (test clock) it serves again", async () => {
    await addAccounts("win", "anthropic", ["win-a", "win-b"]);
    const resetAt = (await engineNow()) + 3 * HOUR;
    up.modes.set("win-a", { kind: "unified_rejected", resetAt });

    const first = await messages("win");
    expect(first.status, first.text).toBe(200);
    expect(first.body.content[0].text).toBe("hello from win-b");
    expect(up.seen).toEqual(["win-a", "win-b"]);

    const cooling = await cooldownOf("win-c1");
    expect(cooling).toMatchObject({ status: "cooling_down", lastErrorType: "quota_exhausted" });
    expect(cooling!.remainingMs).toBeGreaterThan(30 * MINUTE);
    expect(Math.abs(cooling!.remainingMs - (resetAt - (await engineNow())))).toBeLessThan(2 * MINUTE);

    up.seen.length = 0;
    const second = await messages("win");
    expect(second.status).toBe(200);
    expect(up.seen).toEqual(["win-b"]);

    // The window starts over: once the clock passes the reset the account is eligible again (lazy).
    up.modes.set("win-a", { kind: "ok" });
    await gw.api("POST", "/api/debug/clock", { advanceMs: 3 * HOUR + MINUTE });
    up.seen.length = 0;
    const after = await messages("win");
    expect(after.status).toBe(200);
    expect(after.body.content[0].text).toBe("hello from win-a");
    expect(up.seen).toEqual(["win-a"]);
    expect(await cooldownOf("win-c1")).toBeUndefined();
  });

  it("R21.4 a 429 whose window headers show the windows fine is a burst limit: the R4 backoff, seconds not hours", async () => {
    await addAccounts("burst", "anthropic", ["burst-a", "burst-b"]);
    up.modes.set("burst-a", { kind: "burst" });
    const r = await messages("burst");
    expect(r.status).toBe(200);
    expect(r.body.content[0].text).toBe("hello from burst-b");
    const cooling = await cooldownOf("burst-c1");
    expect(cooling?.status).toBe("cooling_down");
    expect(cooling!.remainingMs).toBeLessThanOrEqual(MINUTE);
    expect(cooling!.lastErrorType).toBe("rate_limit");
  });

  it("R21.4 a Codex 429 usage_limit_reached rests the account for resets_in_seconds and fails over", async () => {
    await addAccounts("codex", "openai-responses", ["codex-a", "codex-b"]);
    up.modes.set("codex-a", { kind: "codex_limit", seconds: 2 * 3_600 });
    const r = await responses("codex");
    expect(r.status, r.text).toBe(200);
    expect(JSON.stringify(r.body)).toContain("hello from codex-b");
    const cooling = await cooldownOf("codex-c1");
    expect(cooling).toMatchObject({ status: "cooling_down", lastErrorType: "quota_exhausted" });
    expect(cooling!.remainingMs).toBeGreaterThan(2 * HOUR - 2 * MINUTE);
    expect(cooling!.remainingMs).toBeLessThanOrEqual(2 * HOUR);
  });

  it("R21.4 an Anthropic stream that ends on the used-up window before any content fails over invisibly, and the account cools until the reset", async () => {
    await addAccounts("sa", "anthropic", ["sa-a", "sa-b"]);
    const resetAt = (await engineNow()) + 4 * HOUR;
    up.modes.set("sa-a", { kind: "anthropic_stream_limit", resetAt });
    const r = await messages("sa", { stream: true });
    expect(r.status).toBe(200);
    const events = parseSse(r.text);
    expect(events.some((e) => e.event === "error")).toBe(false);
    expect(r.text).toContain("hello from sa-b");
    expect(r.text).not.toContain("rate_limit_error");
    expect(up.seen).toEqual(["sa-a", "sa-b"]);
    const cooling = await cooldownOf("sa-c1");
    expect(cooling).toMatchObject({ status: "cooling_down", lastErrorType: "quota_exhausted" });
    expect(cooling!.remainingMs).toBeGreaterThan(4 * HOUR - 2 * MINUTE);
  });

  it("R21.4 a Responses stream ending response.failed usage_limit_reached before any content fails over invisibly", async () => {
    await addAccounts("sr", "openai-responses", ["sr-a", "sr-b"]);
    up.modes.set("sr-a", { kind: "responses_stream_limit", resetAt: 0 });
    const r = await responses("sr", { stream: true });
    expect(r.status).toBe(200);
    const types = parseSse(r.text).map((e) => e.event);
    expect(types).not.toContain("response.failed");
    expect(types).toContain("response.completed");
    expect(r.text).toContain("hello from sr-b");
    const cooling = await cooldownOf("sr-c1");
    expect(cooling).toMatchObject({ status: "cooling_down", lastErrorType: "quota_exhausted" });
    // The headers named no reset: the account rests an hour (the D4 usage-limit class), well past a burst.
    expect(cooling!.remainingMs).toBeGreaterThan(30 * MINUTE);
  });

  it("R21.4 after output R13 holds: the client's stream ends with the format's error, and the account still cools", async () => {
    await addAccounts("so", "anthropic", ["so-a", "so-b"]);
    const resetAt = (await engineNow()) + 2 * HOUR;
    up.modes.set("so-a", { kind: "anthropic_stream_limit", resetAt, afterContent: true });
    const r = await messages("so", { stream: true });
    expect(r.status).toBe(200);
    expect(r.text).toContain("hello from so-a");
    const last = parseSse(r.text).at(-1);
    expect(last?.event).toBe("error");
    expect(last?.data).toContain("window_exhausted");
    expect(up.seen).toEqual(["so-a"]);
    const cooling = await cooldownOf("so-c1");
    expect(cooling!.remainingMs).toBeGreaterThan(2 * HOUR - 2 * MINUTE);
  });

  it("R21.4 quotaPreflightCutoff reads the windows: an account at or above (100 − cutoffPercent) % of its 5-hour window is passed over while a sibling has more", async () => {
    await addAccounts("cut", "anthropic", ["cut-a", "cut-b"]);
    const on = await gw.api("PATCH", "/api/resilience", { quotaPreflightCutoff: { enabled: true, cutoffPercent: 10 } });
    expect(on.status, on.text).toBe(200);
    try {
      // Resets on the engine's clock, which an earlier test moved ahead.
      const resetAt = (await engineNow()) + 2 * HOUR;
      up.modes.set("cut-a", { kind: "ok", utilization: 0.93, resetAt });
      up.modes.set("cut-b", { kind: "ok", utilization: 0.2, resetAt });
      expect((await messages("cut")).body.content[0].text).toBe("hello from cut-a");
      up.seen.length = 0;
      const next = await messages("cut");
      expect(next.body.content[0].text).toBe("hello from cut-b");
      expect(up.seen).toEqual(["cut-b"]);
    } finally {
      await gw.api("PATCH", "/api/resilience", { quotaPreflightCutoff: { enabled: false } });
    }
  });
});
