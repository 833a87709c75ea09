// The client contract at its edges (issue 8 item 5), over real HTTP against the simulator, in
// each client's own format: request ids on every answer, /v1/models behind the same guards, an
// upstream error after heartbeats, the 429 body hints, and the request shape checked first.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, parseSse, startGateway, startSim, type ApiResult, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;

const chat = (model: string, extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: "user", content: "hi" }], ...extra });
const msg = (model: string, extra: Record<string, unknown> = {}) => ({ model, max_tokens: 16, messages: [{ role: "user", content: "hi" }], ...extra });

beforeAll(async () => {
  sim = await startSim({ label: "contract" });
  gw = await startGateway({ env: { SWITCHYARD_STREAM_HEARTBEAT_MS: "100" } });
  await addProvider(gw, "oai", sim, "openai", ["k-oai"]);
  await addProvider(gw, "ant", sim, "anthropic", ["k-ant"]);
});

afterEach(async () => {
  sim.clearFaults();
  await gw.api("PATCH", "/api/settings", { requireClientKey: false, proxyEnabled: true, maxBodyMb: 20 });
  await gw.api("POST", "/api/resilience/cooldowns", { all: true });
  await gw.api("POST", "/api/resilience/reset", {});
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

function expectStamped(r: ApiResult | Response, attempts = "0"): void {
  expect(r.headers.get("x-switchyard-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  expect(r.headers.get("x-switchyard-attempts")).toBe(attempts);
}

async function logFor(requestId: string): Promise<Record<string, any> | undefined> {
  for (let i = 0; i < 40; i++) {
    const logs = await gw.api("GET", "/api/logs?limit=50");
    const entry = (logs.body as Array<Record<string, any>>).find((e) => e.id === requestId);
    if (entry) return entry;
    await new Promise((r) => setTimeout(r, 50));
  }
  return undefined;
}

describe("5a every client response carries X-Switchyard-Request-Id and X-Switchyard-Attempts", () => {
  it("on 400 invalid JSON, 400 bad shape, 404 unknown model and 404 unknown /v1 route", async () => {
    const invalid = await fetch(gw.url + "/v1/chat/completions", { method: "POST", headers: { "content-type": "application/json" }, body: "{oops" });
    expect(invalid.status).toBe(400);
    expectStamped(invalid);
    const shape = await gw.post("/v1/messages", { model: "ant/m1", messages: [] });
    expect(shape.status).toBe(400);
    expectStamped(shape);
    const unknownModel = await gw.post("/v1/chat/completions", chat("nope/never"));
    expect(unknownModel.status).toBe(404);
    expectStamped(unknownModel);
    const unknownRoute = await fetch(gw.url + "/v1/embeddings", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(unknownRoute.status).toBe(404);
    expectStamped(unknownRoute);
  });

  it("on 401, 413 and 503 proxy_disabled", async () => {
    await gw.api("PATCH", "/api/settings", { maxBodyMb: 1 });
    const big = await gw.post("/v1/chat/completions", chat("oai/m1", { pad: "x".repeat(1_200_000) }));
    expect(big.status).toBe(413);
    expectStamped(big);
    await gw.api("PATCH", "/api/settings", { requireClientKey: true });
    const denied = await gw.post("/v1/messages", msg("ant/m1"));
    expect(denied.status).toBe(401);
    expectStamped(denied);
    await gw.api("PATCH", "/api/settings", { requireClientKey: false, proxyEnabled: false });
    const off = await gw.post("/v1/chat/completions", chat("oai/m1"));
    expect(off.status).toBe(503);
    expect(off.body.error.code).toBe("proxy_disabled");
    expectStamped(off);
  });

  it("on GET /v1/models, count_tokens and a proxied success (with the attempts made)", async () => {
    const models = await fetch(gw.url + "/v1/models");
    expect(models.status).toBe(200);
    expectStamped(models);
    const count = await gw.post("/v1/messages/count_tokens", { model: "ant/m1", messages: [{ role: "user", content: "hi" }] });
    expect(count.status).toBe(200);
    expectStamped(count, "1");
    const ok = await gw.post("/v1/chat/completions", chat("oai/m1"));
    expect(ok.status).toBe(200);
    expectStamped(ok, "1");
    expect(ok.headers.get("x-omniroute-selected-connection-id")).toBe("oai-c1");
  });
});

describe("5b GET /v1/models is a client route like the others", () => {
  it("R1.7 answers 401 without a valid client key when requireClientKey is on, 200 with one", async () => {
    const key = await gw.api("POST", "/api/keys", { name: "models" });
    await gw.api("PATCH", "/api/settings", { requireClientKey: true });
    const denied = await fetch(gw.url + "/v1/models");
    expect(denied.status).toBe(401);
    expect((await denied.json()).error.code).toBe("unauthorized");
    const allowed = await fetch(gw.url + "/v1/models", { headers: { authorization: `Bearer ${key.body.key}` } });
    expect(allowed.status).toBe(200);
    expect((await allowed.json()).data.map((m: { id: string }) => m.id)).toContain("oai/m1");
  });

  it("answers 503 proxy_disabled when the proxy is switched off", async () => {
    await gw.api("PATCH", "/api/settings", { proxyEnabled: false });
    const off = await fetch(gw.url + "/v1/models");
    expect(off.status).toBe(503);
    expect((await off.json()).error.code).toBe("proxy_disabled");
  });
});

describe("5c an upstream error after heartbeats have started", () => {
  const cases = [
    {
      client: "openai",
      route: "/v1/chat/completions",
      body: chat("oai/m1", { stream: true }),
      key: "k-oai",
      upstreamBody: { error: { message: "prompt is too odd", type: "invalid_request_error" } },
      errorOf: (events: Array<{ event?: string; data: string }>) => JSON.parse(events.at(-1)!.data).error,
    },
    {
      client: "anthropic",
      route: "/v1/messages",
      body: msg("ant/m1", { stream: true }),
      key: "k-ant",
      upstreamBody: { type: "error", error: { type: "invalid_request_error", message: "prompt is too odd" } },
      errorOf: (events: Array<{ event?: string; data: string }>) => {
        expect(events.at(-1)!.event).toBe("error");
        const data = JSON.parse(events.at(-1)!.data);
        expect(data.type).toBe("error");
        return data.error;
      },
    },
  ] as const;
  for (const c of cases) {
    it(`R13 ${c.client}: the stream ends with an error event carrying the upstream message, and is logged`, async () => {
      sim.addFault(c.key, { status: 400, latencyMs: 500, body: JSON.stringify(c.upstreamBody), times: 1 });
      const r = await gw.post(c.route, c.body);
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toContain("text/event-stream");
      // Keep-alives went out first (the 200 was committed), then the error.
      if (c.client === "anthropic") expect(parseSse(r.text).some((e) => e.event === "ping")).toBe(true);
      else expect(r.text).toContain(": keep-alive");
      const error = c.errorOf(parseSse(r.text).filter((e) => e.event !== "ping"));
      expect(error.message).toContain("prompt is too odd");
      expect(error.code).toBe("invalid_request");
      const entry = await logFor(r.headers.get("x-switchyard-request-id")!);
      expect(entry).toMatchObject({ status: 400, errorCode: "invalid_request", stream: true });
    });
  }
});

describe("5d a final 429 names its wait in the body too (R11.5)", () => {
  for (const [client, route, body, key] of [
    ["openai", "/v1/chat/completions", chat("oai/m1"), "k-oai"],
    ["anthropic", "/v1/messages", msg("ant/m1"), "k-ant"],
  ] as const) {
    it(`R11.5 ${client}: retry_after (seconds) and reset_at (ISO 8601) beside Retry-After`, async () => {
      sim.addFault(key, { status: 429, retryAfter: 7, times: 1 });
      const before = Date.now();
      const r = await gw.post(route, body);
      expect(r.status).toBe(429);
      expect(r.headers.get("retry-after")).toBe("7");
      const error = r.body.error;
      expect(error.retry_after).toBe(7);
      expect(error.reset_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const resetAt = Date.parse(error.reset_at);
      expect(resetAt).toBeGreaterThanOrEqual(before + 6_000);
      expect(resetAt).toBeLessThanOrEqual(Date.now() + 8_000);
      expect(error.type).toBe("rate_limit_error");
    });
  }
});

describe("5e the request shape is checked before any upstream call (R1.9)", () => {
  const refused: Array<[string, "/v1/chat/completions" | "/v1/messages", Record<string, unknown>]> = [
    ["openai messages:[null,null]", "/v1/chat/completions", { model: "oai/m1", messages: [null, null] }],
    ["anthropic messages:[null,null]", "/v1/messages", { model: "ant/m1", max_tokens: 16, messages: [null, null] }],
    ["openai empty messages", "/v1/chat/completions", { model: "oai/m1", messages: [] }],
    ["openai a message without a role", "/v1/chat/completions", { model: "oai/m1", messages: [{ content: "hi" }] }],
    ["openai an empty model", "/v1/chat/completions", { model: "", messages: [{ role: "user", content: "hi" }] }],
    ["anthropic without max_tokens", "/v1/messages", { model: "ant/m1", messages: [{ role: "user", content: "hi" }] }],
    ["anthropic max_tokens 0", "/v1/messages", msg("ant/m1", { max_tokens: 0 })],
    ["anthropic max_tokens 1.5", "/v1/messages", msg("ant/m1", { max_tokens: 1.5 })],
  ];
  for (const [name, route, body] of refused) {
    it(`R1.9 refuses ${name} with 400 invalid_request_error before any upstream call`, async () => {
      const upstreamCalls = sim.requests.length;
      const r = await gw.post(route, body);
      expect(r.status).toBe(400);
      if (route === "/v1/messages") {
        expect(r.body.type).toBe("error");
        expect(r.body.error.type).toBe("invalid_request_error");
      } else {
        expect(r.body.error.type).toBe("invalid_request_error");
      }
      expect(r.body.error.code).toBe("invalid_request");
      expect(sim.requests.length).toBe(upstreamCalls);
    });
  }

  it("R1.9 unknown fields still pass through to a same-format upstream", async () => {
    const r = await gw.post("/v1/chat/completions", chat("oai/m1", { x_vendor_hint: { keep: true } }));
    expect(r.status).toBe(200);
    expect((sim.requests.at(-1)!.body as Record<string, unknown>).x_vendor_hint).toEqual({ keep: true });
  });
});
