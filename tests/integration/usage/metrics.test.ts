// GET /metrics (R18.5, API.md) through a real gateway and its built-in simulator: the admin token
// unless `metricsPublic`, Prometheus text, counters that match what was served, and the gauges
// read from the engine at scrape time.
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RequestLogEntry } from "../../../shared/types.js";
import { startGateway, type TestGateway } from "../harness.js";
import { parseExposition, sampleKey } from "./exposition.js";

let gw: TestGateway;

const chat = (model: string) => ({ model, messages: [{ role: "user", content: "hello metrics" }] });
const msg = (model: string) => ({ model, max_tokens: 64, messages: [{ role: "user", content: "hello metrics" }] });
const fault = (spec: Record<string, unknown>) => ({ "x-sim-fault": JSON.stringify(spec) });

async function scrape(headers: Record<string, string> = { authorization: `Bearer ${gw.token}` }) {
  const res = await fetch(`${gw.url}/metrics`, { headers });
  return { status: res.status, contentType: res.headers.get("content-type"), text: await res.text() };
}

async function samples(): Promise<Map<string, number>> {
  const res = await scrape();
  expect(res.status).toBe(200);
  return parseExposition(res.text);
}

beforeAll(async () => {
  gw = await startGateway();
  const providers = [
    { id: "ok", format: "simulator", category: "local", models: ["sim-model"] },
    { id: "cool", format: "simulator", category: "local", models: ["sim-model"] },
    { id: "brk", format: "simulator", category: "local", models: ["sim-model"] },
  ];
  for (const p of providers) expect((await gw.api("POST", "/api/providers", p)).status).toBe(201);
  for (const [id, provider, priority] of [
    ["ok-1", "ok", 0],
    ["cool-1", "cool", 0],
    ["brk-1", "brk", 0],
    ["brk-2", "brk", 1],
  ] as const) {
    expect((await gw.api("POST", "/api/connections", { id, provider, name: id, priority })).status).toBe(201);
  }
});

afterAll(async () => {
  await gw?.close();
});

describe("GET /metrics (R18.5)", () => {
  it("R18.5 without the admin token answers 401 in the /api error shape; with it, Prometheus text", async () => {
    for (const headers of [{}, { authorization: "Bearer wrong-token" }] as Array<Record<string, string>>) {
      const res = await scrape(headers);
      expect(res.status).toBe(401);
      expect(JSON.parse(res.text).error.code).toBe("unauthorized");
    }
    const ok = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${gw.token}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(ok.headers.get("cache-control")).toBe("no-store");
    const text = await ok.text();
    for (const name of [
      "switchyard_requests_total",
      "switchyard_attempts_total",
      "switchyard_request_duration_seconds",
      "switchyard_tokens_total",
      "switchyard_cost_usd_total",
      "switchyard_breaker_state",
      "switchyard_connection_cooling",
      "switchyard_queue_depth",
    ]) {
      expect(text).toContain(`# TYPE ${name} `);
    }
  });

  it("R18.5 /metrics passes the Host and same-origin guards like /api, and is not a client route", async () => {
    const foreign = await request(`${gw.url}/metrics`, { headers: { host: "evil.example", authorization: `Bearer ${gw.token}` } });
    expect(foreign.statusCode).toBe(403);
    await foreign.body.text();
    const crossOrigin = await scrape({ authorization: `Bearer ${gw.token}`, origin: "http://evil.example" });
    expect(crossOrigin.status).toBe(403);
    const logged = (await gw.api<RequestLogEntry[]>("GET", "/api/logs?limit=1000")).body;
    expect(logged.filter((e) => e.model === "" && e.status === 404)).toEqual([]);
  });

  it("R18.5 counters match the requests served, failed and refused; breaker OPEN reads 3 and a cooling connection 1", async () => {
    expect((await gw.post("/v1/chat/completions", chat("ok/sim-model"))).status).toBe(200);
    expect((await gw.post("/v1/chat/completions", chat("ok/sim-model"))).status).toBe(200);
    expect((await gw.post("/v1/messages", msg("ok/sim-model"))).status).toBe(200);
    expect((await gw.post("/v1/chat/completions", chat("cool/sim-model"), fault({ status: 429, retryAfter: 600 }))).status).toBe(429);
    const broken = await gw.post("/v1/chat/completions", chat("brk/sim-model"), fault({ status: 503 }));
    expect(broken.status).toBe(503);
    expect(broken.headers.get("x-switchyard-attempts")).toBe("2");
    const refused = await gw.post("/v1/chat/completions", chat("brk/sim-model"));
    expect(refused.body.error.code).toBe("provider_circuit_open");

    const m = await samples();
    const at = (name: string, labels: Record<string, string> = {}) => m.get(sampleKey(name, labels));
    expect(at("switchyard_requests_total", { format: "openai", status: "200" })).toBe(2);
    expect(at("switchyard_requests_total", { format: "anthropic", status: "200" })).toBe(1);
    expect(at("switchyard_requests_total", { format: "openai", status: "429" })).toBe(1);
    expect(at("switchyard_requests_total", { format: "openai", status: "503" })).toBe(2);

    expect(at("switchyard_attempts_total", { provider: "ok", connection: "ok-1", outcome: "success", fault: "none" })).toBe(3);
    expect(at("switchyard_attempts_total", { provider: "cool", connection: "cool-1", outcome: "rate_limit", fault: "account" })).toBe(1);
    expect(at("switchyard_attempts_total", { provider: "brk", connection: "brk-1", outcome: "server_error", fault: "provider" })).toBe(1);
    expect(at("switchyard_attempts_total", { provider: "brk", connection: "brk-2", outcome: "server_error", fault: "provider" })).toBe(1);
    const attempts = [...m].filter(([key]) => key.startsWith("switchyard_attempts_total{")).reduce((sum, [, v]) => sum + v, 0);
    expect(attempts).toBe(6);

    expect(at("switchyard_request_duration_seconds_count", { format: "openai" })).toBe(5);
    expect(at("switchyard_request_duration_seconds_bucket", { format: "openai", le: "+Inf" })).toBe(5);
    expect(at("switchyard_request_duration_seconds_count", { format: "anthropic" })).toBe(1);

    expect(at("switchyard_breaker_state", { provider: "brk" })).toBe(3);
    expect(at("switchyard_breaker_state", { provider: "ok" })).toBe(0);
    expect(at("switchyard_connection_cooling", { provider: "cool", connection: "cool-1" })).toBe(1);
    expect(at("switchyard_connection_cooling", { provider: "ok", connection: "ok-1" })).toBe(0);
    expect(at("switchyard_queue_depth", { connection: "ok-1" })).toBe(0);
  });

  it("R18.5 token and cost counters add up what the request log recorded, by provider and model", async () => {
    const rows = (await gw.api<RequestLogEntry[]>("GET", "/api/logs?limit=1000&provider=ok")).body;
    expect(rows).toHaveLength(3);
    const m = await samples();
    const sum = (pick: (e: RequestLogEntry) => number | null | undefined) => {
      const known = rows.map(pick).filter((v): v is number => typeof v === "number");
      return known.length === 0 ? undefined : known.reduce((a, b) => a + b, 0);
    };
    const labels = { provider: "ok", model: "sim-model" };
    const input = sum((e) => e.inputTokens);
    expect(input).toBeGreaterThan(0);
    expect(m.get(sampleKey("switchyard_tokens_total", { ...labels, kind: "input" }))).toBe(input);
    expect(m.get(sampleKey("switchyard_tokens_total", { ...labels, kind: "output" }))).toBe(sum((e) => e.outputTokens));
    expect(m.get(sampleKey("switchyard_tokens_total", { ...labels, kind: "cache_read" }))).toBe(sum((e) => e.cacheReadTokens));
    expect(m.get(sampleKey("switchyard_tokens_total", { ...labels, kind: "reasoning" }))).toBe(sum((e) => e.reasoningTokens));
    const cost = m.get(sampleKey("switchyard_cost_usd_total", labels));
    const logged = sum((e) => e.costUsd);
    if (logged === undefined) expect(cost).toBeUndefined();
    else expect(cost).toBeCloseTo(logged, 9);
    // Failed requests reported no usage: they add no token series.
    expect([...m.keys()].filter((k) => k.startsWith("switchyard_tokens_total{") && /provider=(brk|cool)/.test(k))).toEqual([]);
  });

  it("R18.5 metricsPublic: true opens /metrics without a token; a wrong type is a 400 naming the field, nothing saved", async () => {
    const bad = await gw.api("PATCH", "/api/settings", { metricsPublic: "yes" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.path).toBe("metricsPublic");
    expect((await gw.api("GET", "/api/settings")).body.metricsPublic).toBe(false);
    expect((await scrape({})).status).toBe(401);

    const on = await gw.api("PATCH", "/api/settings", { metricsPublic: true });
    expect(on.status).toBe(200);
    expect(on.body.metricsPublic).toBe(true);
    expect((await gw.api("GET", "/api/settings")).body.metricsPublic).toBe(true);
    const open = await scrape({});
    expect(open.status).toBe(200);
    expect(open.text).toContain("switchyard_requests_total");
    const exported = await gw.api("GET", "/api/config/export");
    expect(exported.body.settings.metricsPublic).toBe(true);

    expect((await gw.api("PATCH", "/api/settings", { metricsPublic: false })).body.metricsPublic).toBe(false);
    expect((await scrape({})).status).toBe(401);
    const imported = await gw.api("POST", "/api/config/import", { version: 1, settings: exported.body.settings });
    expect(imported.status).toBe(200);
    expect((await gw.api("GET", "/api/settings")).body.metricsPublic).toBe(true);
    expect((await scrape({})).status).toBe(200);
  });
});
