// The /metrics registry (R18.5) fed with request events directly: every token kind and the cost,
// absent counts left out, breaker codes, gauges recomputed per scrape, one registry per gateway.
import { describe, expect, it } from "vitest";
import { createEventBus } from "../../../main/app/eventBus.js";
import { createGatewayMetrics, type MetricsSources } from "../../../main/app/metrics.js";
import type { BreakerState, RequestLogEntry } from "../../../shared/types.js";
import { parseExposition, sampleKey } from "../../integration/usage/exposition.js";

function entry(overrides: Partial<RequestLogEntry> = {}): RequestLogEntry {
  return {
    id: `req-${Math.random()}`,
    time: 0,
    clientFormat: "anthropic",
    model: "alias-best",
    combo: null,
    provider: "claude",
    connectionId: "claude-a",
    status: 200,
    errorCode: null,
    latencyMs: 1_500,
    ttfbMs: 100,
    stream: true,
    inputTokens: 1_000,
    outputTokens: 200,
    attempts: [{ provider: "claude", connectionId: "claude-a", model: "opus", status: 200, verdict: null, latencyMs: 1_400, ended: "complete", fault: "none" }],
    ...overrides,
  };
}

function fixture(sources: Partial<MetricsSources> = {}) {
  const bus = createEventBus();
  const metrics = createGatewayMetrics(bus, { breakers: () => [], connections: () => [], queues: () => [], ...sources });
  const send = (e: RequestLogEntry) => bus.emit({ type: "request", entry: e, at: 0 });
  const scrape = async () => parseExposition(await metrics.render());
  return { bus, metrics, send, scrape };
}

describe("gateway metrics (R18.5)", () => {
  it("R18.5 counts every token kind and the cost under the answering provider and upstream model", async () => {
    const { send, scrape } = fixture();
    send(entry({ cacheReadTokens: 600, cacheWriteTokens: 100, reasoningTokens: 50, costUsd: 0.0125 }));
    send(entry({ cacheReadTokens: 400, cacheWriteTokens: null, reasoningTokens: undefined, costUsd: 0.0025 }));
    const m = await scrape();
    const tokens = (kind: string) => m.get(sampleKey("switchyard_tokens_total", { provider: "claude", model: "opus", kind }));
    expect(tokens("input")).toBe(2_000);
    expect(tokens("output")).toBe(400);
    expect(tokens("cache_read")).toBe(1_000);
    expect(tokens("cache_write")).toBe(100);
    expect(tokens("reasoning")).toBe(50);
    expect(m.get(sampleKey("switchyard_cost_usd_total", { provider: "claude", model: "opus" }))).toBeCloseTo(0.015, 12);
    expect(m.get(sampleKey("switchyard_request_duration_seconds_sum", { format: "anthropic" }))).toBe(3);
    expect(m.get(sampleKey("switchyard_request_duration_seconds_bucket", { format: "anthropic", le: "1" }))).toBe(0);
    expect(m.get(sampleKey("switchyard_request_duration_seconds_bucket", { format: "anthropic", le: "2.5" }))).toBe(2);
  });

  it("R18.5 R25.4 a request no upstream answered adds its status and attempts (with their fault) but no token or cost series", async () => {
    const { send, scrape } = fixture();
    send(
      entry({
        status: 503,
        provider: null,
        connectionId: null,
        inputTokens: null,
        outputTokens: null,
        costUsd: null,
        attempts: [
          { provider: "claude", connectionId: "claude-a", model: "opus", status: 529, verdict: "server_error", latencyMs: 10, ended: "headers", fault: "provider" },
          { provider: "claude", connectionId: null, model: "opus", status: null, verdict: "queue_full", latencyMs: 0, ended: "connect", fault: "gateway" },
        ],
      }),
    );
    send(entry({ inputTokens: -5, outputTokens: Number.NaN, costUsd: null }));
    const m = await scrape();
    expect(m.get(sampleKey("switchyard_requests_total", { format: "anthropic", status: "503" }))).toBe(1);
    expect(m.get(sampleKey("switchyard_attempts_total", { provider: "claude", connection: "claude-a", outcome: "server_error", fault: "provider" }))).toBe(1);
    expect(m.get(sampleKey("switchyard_attempts_total", { provider: "claude", connection: "none", outcome: "queue_full", fault: "gateway" }))).toBe(1);
    expect(m.get(sampleKey("switchyard_attempts_total", { provider: "claude", connection: "claude-a", outcome: "success", fault: "none" }))).toBe(1);
    expect([...m.keys()].filter((k) => k.startsWith("switchyard_tokens_total{") || k.startsWith("switchyard_cost_usd_total{"))).toEqual([]);
  });

  it("R18.5 gauges are read at scrape time: breaker codes 0–3, cooling 0/1, queue depth; a removed entity drops out", async () => {
    let breakers: Array<{ provider: string; state: BreakerState }> = [
      { provider: "a", state: "CLOSED" },
      { provider: "b", state: "DEGRADED" },
      { provider: "c", state: "HALF_OPEN" },
      { provider: "d", state: "OPEN" },
    ];
    let cooling = true;
    const { scrape } = fixture({
      breakers: () => breakers,
      connections: () => [
        { provider: "a", connectionId: "a-1", cooling },
        { provider: "a", connectionId: "a-2", cooling: false },
      ],
      queues: () => [{ connectionId: "a-1", queued: 4 }],
    });
    let m = await scrape();
    expect(["a", "b", "c", "d"].map((provider) => m.get(sampleKey("switchyard_breaker_state", { provider })))).toEqual([0, 1, 2, 3]);
    expect(m.get(sampleKey("switchyard_connection_cooling", { provider: "a", connection: "a-1" }))).toBe(1);
    expect(m.get(sampleKey("switchyard_connection_cooling", { provider: "a", connection: "a-2" }))).toBe(0);
    expect(m.get(sampleKey("switchyard_queue_depth", { connection: "a-1" }))).toBe(4);
    breakers = [{ provider: "a", state: "OPEN" }];
    cooling = false;
    m = await scrape();
    expect(m.get(sampleKey("switchyard_breaker_state", { provider: "a" }))).toBe(3);
    expect(m.has(sampleKey("switchyard_breaker_state", { provider: "d" }))).toBe(false);
    expect(m.get(sampleKey("switchyard_connection_cooling", { provider: "a", connection: "a-1" }))).toBe(0);
  });

  it("R18.5 each gateway has its own registry, and a closed one stops counting", async () => {
    const first = fixture();
    const second = fixture();
    first.send(entry());
    first.send(entry());
    second.send(entry());
    const key = sampleKey("switchyard_requests_total", { format: "anthropic", status: "200" });
    expect((await first.scrape()).get(key)).toBe(2);
    expect((await second.scrape()).get(key)).toBe(1);
    first.metrics.close();
    first.send(entry());
    expect((await first.scrape()).get(key)).toBe(2);
  });
});
