// The gateway over real HTTP against the simulator: same-format JSON and SSE, failover, error
// formats and the observability headers (R1.1–R1.6, R11.3, R13.1).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, parseSse, startGateway, startSim, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;

beforeAll(async () => {
  sim = await startSim({ label: "upstream" });
  gw = await startGateway();
  await addProvider(gw, "oai", sim, "openai", ["oai-k1", "oai-k2", "oai-k3"]);
  await addProvider(gw, "ant", sim, "anthropic", ["ant-k1", "ant-k2"]);
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

const chat = (model: string, extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: "user", content: "hello" }], ...extra });
const msg = (model: string, extra: Record<string, unknown> = {}) => ({ model, max_tokens: 64, messages: [{ role: "user", content: "hello" }], ...extra });

describe("client routes", () => {
  it("R1.1 OpenAI JSON passes through with the observability headers of R1.6", async () => {
    const r = await gw.post("/v1/chat/completions", chat("oai/m1"));
    expect(r.status).toBe(200);
    expect(r.body.object).toBe("chat.completion");
    expect(r.body.model).toBe("oai/m1");
    expect(r.body.choices[0].message.content).toContain("oai-k1");
    expect(r.headers.get("x-switchyard-request-id")).toMatch(/[0-9a-f-]{36}/);
    expect(r.headers.get("x-switchyard-attempts")).toBe("1");
    expect(r.headers.get("x-omniroute-selected-connection-id")).toBe("oai-c1");
    expect(sim.requests.at(-1)?.model).toBe("m1");
  });

  it("R1.1 OpenAI SSE streams chunk by chunk and ends with [DONE]", async () => {
    const r = await gw.post("/v1/chat/completions", chat("oai/m1", { stream: true }));
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("text/event-stream");
    const events = parseSse(r.text);
    expect(events.at(-1)?.data).toBe("[DONE]");
    const text = events
      .filter((e) => e.data !== "[DONE]")
      .map((e) => JSON.parse(e.data).choices?.[0]?.delta?.content ?? "")
      .join("");
    expect(text).toContain("oai-k1");
    expect(events.length).toBeGreaterThan(3);
  });

  it("R1.2 Anthropic JSON and SSE keep the real event sequence", async () => {
    const j = await gw.post("/v1/messages", msg("ant/m1"), { "anthropic-version": "2023-06-01" });
    expect(j.status).toBe(200);
    expect(j.body.type).toBe("message");
    expect(j.body.content[0].text).toContain("ant-k1");
    const s = await gw.post("/v1/messages", msg("ant/m1", { stream: true }));
    const names = parseSse(s.text)
      .map((e) => e.event)
      .filter((n) => n !== "ping");
    expect(names[0]).toBe("message_start");
    expect(names).toContain("content_block_delta");
    expect(names.slice(-2)).toEqual(["message_delta", "message_stop"]);
  });

  it("R1.3 a bare model name resolves to the first provider that serves it; unknown → 404 in the client's format", async () => {
    await gw.api("POST", "/api/providers", { id: "only", format: "openai", baseUrl: `${sim.url}/v1`, category: "apikey", models: ["unique-model"] });
    await gw.api("POST", "/api/connections", { provider: "only", apiKey: "only-k" });
    const ok = await gw.post("/v1/chat/completions", chat("unique-model"));
    expect(ok.status).toBe(200);
    const oai = await gw.post("/v1/chat/completions", chat("nope/never"));
    expect(oai.status).toBe(404);
    expect(oai.body.error.code).toBe("model_not_found");
    expect(typeof oai.body.error.message).toBe("string");
    const ant = await gw.post("/v1/messages", msg("nope/never"));
    expect(ant.status).toBe(404);
    expect(ant.body.type).toBe("error");
    expect(ant.body.error.type).toBe("not_found_error");
    expect(ant.body.error.code).toBe("model_not_found");
  });

  it("R1.1 GET /v1/models lists provider/model ids in the OpenAI list format", async () => {
    const res = await fetch(gw.url + "/v1/models");
    const body = await res.json();
    expect(body.object).toBe("list");
    expect(body.data.map((m: { id: string }) => m.id)).toEqual(expect.arrayContaining(["oai/m1", "ant/m2"]));
  });

  it("R0.2 GET /health answers ok with the version, HEAD / answers at once", async () => {
    const h = await fetch(gw.url + "/health").then((r) => r.json());
    expect(h).toEqual({ ok: true, version: expect.any(String) });
    const head = await fetch(gw.url + "/", { method: "HEAD" });
    expect(head.status).toBeLessThan(500);
  });
});

describe("failover within a provider (R11.3)", () => {
  it("R11.3 a 500 on the first connection fails over to the next; attempts counted", async () => {
    sim.addFault("oai-k1", { status: 500, times: 1 });
    const r = await gw.post("/v1/chat/completions", chat("oai/m2"));
    expect(r.status).toBe(200);
    expect(r.headers.get("x-switchyard-attempts")).toBe("2");
    expect(r.headers.get("x-omniroute-selected-connection-id")).toBe("oai-c2");
  });

  it("R11.3 a 429 with Retry-After fails over and the key is skipped while it cools down", async () => {
    sim.addFault("ant-k1", { status: 429, retryAfter: 30, times: 1 });
    const first = await gw.post("/v1/messages", msg("ant/m2"));
    expect(first.status).toBe(200);
    expect(first.headers.get("x-omniroute-selected-connection-id")).toBe("ant-c2");
    const second = await gw.post("/v1/messages", msg("ant/m2"));
    expect(second.headers.get("x-switchyard-attempts")).toBe("1");
    expect(second.headers.get("x-omniroute-selected-connection-id")).toBe("ant-c2");
    await gw.api("POST", "/api/resilience/cooldowns", { all: true });
  });

  it("R11.3 a connection reset fails over transparently, streaming included", async () => {
    sim.addFault("oai-k1", { reset: true, times: 1 });
    const r = await gw.post("/v1/chat/completions", chat("oai/m1", { stream: true }));
    expect(r.status).toBe(200);
    expect(r.headers.get("x-switchyard-attempts")).toBe("2");
    expect(parseSse(r.text).at(-1)?.data).toBe("[DONE]");
    await gw.api("POST", "/api/resilience/cooldowns", { all: true });
  });

  it("R1.5 when every connection fails the client gets the final verdict in its own format with Retry-After", async () => {
    for (const k of ["ant-k1", "ant-k2"]) sim.addFault(k, { status: 429, retryAfter: 7, times: 1 });
    const r = await gw.post("/v1/messages", msg("ant/m1"));
    expect(r.status).toBe(429);
    expect(r.body.type).toBe("error");
    expect(r.body.error.type).toBe("rate_limit_error");
    expect(r.body.error.code).toBe("rate_limit_error");
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(r.headers.get("x-switchyard-attempts")).toBe("2");
    await gw.api("POST", "/api/resilience/cooldowns", { all: true });
  });

  it("R11.3 a generic 400 is returned at once, without failover", async () => {
    sim.addFault("oai-k1", { status: 400, body: JSON.stringify({ error: { message: "bad field", type: "invalid_request_error", code: null } }), times: 1 });
    const r = await gw.post("/v1/chat/completions", chat("oai/m1"));
    expect(r.status).toBe(400);
    expect(r.headers.get("x-switchyard-attempts")).toBe("1");
    expect(r.body.error.message).toContain("bad field");
  });

  it("R13.2 an empty 200 stream fails over before the client sees a byte (STREAM_EARLY_EOF)", async () => {
    sim.addFault("oai-k1", { emptyStream: true, times: 1 });
    const r = await gw.post("/v1/chat/completions", chat("oai/m1", { stream: true }));
    expect(r.status).toBe(200);
    expect(r.headers.get("x-switchyard-attempts")).toBe("2");
    expect(r.text).toContain("oai-k2");
    await gw.api("POST", "/api/resilience/cooldowns", { all: true });
  });
});

describe("request log (R15.1)", () => {
  it("R15.1 retention is bounded by the requestLogRetention setting, applied live", async () => {
    const patched = await gw.api("PATCH", "/api/settings", { requestLogRetention: 100 });
    expect(patched.body.requestLogRetention).toBe(100);
    for (let i = 0; i < 120; i++) await gw.post("/v1/chat/completions", chat("oai/m1"));
    const logs = await gw.api("GET", "/api/logs?limit=1000");
    expect(logs.body.length).toBe(100);
    await gw.api("PATCH", "/api/settings", { requestLogRetention: 10_000 });
  });

  it("R15.1 each request is logged once with attempts and verdicts, newest first", async () => {
    sim.addFault("oai-k1", { status: 503, times: 1 });
    await gw.post("/v1/chat/completions", chat("oai/m2"));
    const logs = await gw.api("GET", "/api/logs?limit=5&provider=oai");
    expect(logs.status).toBe(200);
    const entries = Array.isArray(logs.body) ? logs.body : logs.body.items;
    const last = entries[0];
    expect(last.status).toBe(200);
    expect(last.attempts.length).toBe(2);
    expect(last.attempts[0].status).toBe(503);
    await gw.api("POST", "/api/resilience/cooldowns", { all: true });
  });
});

describe("simulator provider kind (R0.5)", () => {
  it("R0.5 a `simulator` provider speaks the client's format and takes faults per request (header) or per provider (options.fault)", async () => {
    await gw.api("POST", "/api/providers", { id: "simk", format: "simulator", baseUrl: sim.url, category: "local", models: ["m1"] });
    await gw.api("POST", "/api/connections", { id: "simk-1", provider: "simk", apiKey: "simk-a" });
    await gw.api("POST", "/api/connections", { id: "simk-2", provider: "simk", apiKey: "simk-b", priority: 1 });
    const anth = await gw.post("/v1/messages", msg("simk/m1"));
    expect(anth.body.type).toBe("message");
    expect(sim.requests.at(-1)?.format).toBe("anthropic");
    const viaHeader = await gw.post("/v1/chat/completions", chat("simk/m1"), { "x-sim-fault": JSON.stringify({ status: 500 }) });
    expect(viaHeader.status).toBe(500);
    expect(viaHeader.headers.get("x-switchyard-attempts")).toBe("2");
    await gw.api("POST", "/api/resilience/cooldowns", { all: true });
    await gw.api("POST", "/api/resilience/reset", {});
    await gw.api("PATCH", "/api/providers/simk", { options: { fault: { status: 502 } } });
    const viaConfig = await gw.post("/v1/chat/completions", chat("simk/m1"));
    expect(viaConfig.status).toBe(502);
    await gw.api("PATCH", "/api/providers/simk", { options: {} });
    await gw.api("POST", "/api/resilience/cooldowns", { all: true });
    await gw.api("POST", "/api/resilience/reset", {});
    expect((await gw.post("/v1/chat/completions", chat("simk/m1"))).status).toBe(200);
  });
});

describe("built-in simulator (R0.5)", () => {
  it("R0.5 a `simulator` provider without baseUrl is served by Switchyard's own simulator, faults included", async () => {
    const p = await gw.api("POST", "/api/providers", { id: "builtin", format: "simulator", category: "local", models: ["sim-model"] });
    expect(p.status).toBe(201);
    await gw.api("POST", "/api/connections", { id: "builtin-1", provider: "builtin", name: "first" });
    await gw.api("POST", "/api/connections", { id: "builtin-2", provider: "builtin", name: "second", priority: 1 });
    const ok = await gw.post("/v1/messages", msg("builtin/sim-model", { stream: true }));
    expect(ok.status).toBe(200);
    expect(parseSse(ok.text).at(-1)?.event).toBe("message_stop");
    const limited = await gw.post("/v1/chat/completions", chat("builtin/sim-model"), { "x-sim-fault": JSON.stringify({ status: 429, retryAfter: 9 }) });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("9");
    expect((await gw.api("POST", "/api/connections/builtin-1/test")).body).toMatchObject({ ok: true, latencyMs: expect.any(Number) });
    await gw.api("POST", "/api/resilience/cooldowns", { all: true });
  });
});

describe("Claude Code connectivity probes", () => {
  it("R1.2 HEAD / and HEAD /api/hello answer 200 at once without credentials", async () => {
    for (const route of ["/", "/api/hello"]) {
      const r = await fetch(gw.url + route, { method: "HEAD" });
      expect(r.status, route).toBe(200);
    }
    expect((await fetch(gw.url + "/api/hello")).status).toBe(401);
  });
});
