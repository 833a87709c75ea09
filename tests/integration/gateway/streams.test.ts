// Streaming robustness against the simulator (R13, D13): early recovery before the first byte,
// well-formed error events after it, the content-stall and throughput watchdogs, heartbeats
// while waiting, and client disconnects that never blame the provider.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, parseSse, startGateway, startSim, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;

const chat = (model: string) => ({ model, stream: true, messages: [{ role: "user", content: "hi" }] });
const msg = (model: string) => ({ model, stream: true, max_tokens: 64, messages: [{ role: "user", content: "hi" }] });

beforeAll(async () => {
  sim = await startSim({ label: "streams" });
  gw = await startGateway({ env: { SWITCHYARD_STREAM_HEARTBEAT_MS: "200" } });
  await addProvider(gw, "oai", sim, "openai", ["s-1", "s-2"]);
  await addProvider(gw, "ant", sim, "anthropic", ["a-1", "a-2"]);
  const patched = await gw.api("PATCH", "/api/resilience", { streamRecovery: { contentStallTimeoutMs: 1_000 } });
  expect(patched.body.streamRecovery.contentStallTimeoutMs).toBe(1_000);
});

afterEach(async () => {
  sim.clearFaults();
  await gw.api("POST", "/api/resilience/cooldowns", { all: true });
  await gw.api("POST", "/api/resilience/reset", {});
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

describe("early recovery (R13.2)", () => {
  it("R13.4 a stall before the first content fails over invisibly to the next connection", async () => {
    sim.addFault("s-1", { stallBeforeContent: true, times: 1 });
    const r = await gw.post("/v1/chat/completions", chat("oai/m1"));
    expect(r.status).toBe(200);
    const events = parseSse(r.text);
    expect(events.at(-1)?.data).toBe("[DONE]");
    const text = events
      .filter((e) => e.data !== "[DONE]")
      .map((e) => JSON.parse(e.data).choices?.[0]?.delta?.content ?? "")
      .join("");
    expect(text).toContain("s-2");
    // Exactly one role chunk: the stalled attempt's lifecycle frames were held back, never sent.
    expect(events.filter((e) => e.data.includes('"role":"assistant"')).length).toBe(1);
  });

  it("D13 a stream of only keep-alive pings past the content budget is aborted and fails over", async () => {
    sim.addFault("a-1", { pingEveryMs: 200, times: 1 });
    const r = await gw.post("/v1/messages", msg("ant/m1"));
    const names = parseSse(r.text)
      .map((e) => e.event)
      .filter((n) => n !== "ping");
    expect(names.filter((n) => n === "message_start")).toHaveLength(1);
    expect(names.at(-1)).toBe("message_stop");
    expect(r.text).toContain("a-2");
  });

  it("R13.4 reasoning frames keep the attempt alive past the content budget", async () => {
    sim.addFault("a-1", { reasoningOnlyMs: 2_200, times: 1 });
    const r = await gw.post("/v1/messages", msg("ant/m1"));
    expect(r.headers.get("x-omniroute-selected-connection-id")).toBe("ant-c1");
    const events = parseSse(r.text);
    expect(events.some((e) => e.data.includes("thinking_delta"))).toBe(true);
    expect(events.at(-1)?.event).toBe("message_stop");
  });

  it("R4.8 a content-stall abort does not cool the connection by default", async () => {
    sim.addFault("s-1", { stallBeforeContent: true, times: 1 });
    await gw.post("/v1/chat/completions", chat("oai/m1"));
    const conn = (await gw.api("GET", "/api/connections/oai-c1")).body;
    expect(conn.rateLimitedUntil === null || conn.rateLimitedUntil <= Date.now()).toBe(true);
  });
});

describe("after the first byte (R13.3)", () => {
  it("R13.3 a stall mid-stream ends with a well-formed OpenAI error event, never a replay", async () => {
    sim.addFault("s-1", { stallAfterChunks: 1, times: 1 });
    const r = await gw.post("/v1/chat/completions", chat("oai/m1"));
    expect(r.status).toBe(200);
    const events = parseSse(r.text);
    const last = JSON.parse(events.at(-1)!.data);
    expect(last.error.code).toBe("stream_content_stall");
    expect(r.text).not.toContain("s-2");
  });

  it("R13.3 a stall mid-stream ends an Anthropic stream with an `error` event", async () => {
    sim.addFault("a-1", { stallAfterChunks: 1, times: 1 });
    const r = await gw.post("/v1/messages", msg("ant/m1"));
    const events = parseSse(r.text);
    expect(events.at(-1)?.event).toBe("error");
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ type: "error", error: { code: "stream_content_stall" } });
  });

  it("R13.3 an OpenAI stream the upstream closes after content but before its finish ends with an error event, not a synthesised [DONE]", async () => {
    sim.addFault("s-1", { endAfterChunks: 2, times: 1 });
    const r = await gw.post("/v1/chat/completions", chat("oai/m1"));
    const events = parseSse(r.text);
    expect(events.some((e) => e.data !== "[DONE]" && JSON.parse(e.data).choices?.[0]?.delta?.content)).toBe(true);
    expect(events.map((e) => e.data)).not.toContain("[DONE]");
    expect(events.some((e) => e.data !== "[DONE]" && JSON.parse(e.data).choices?.[0]?.finish_reason)).toBe(false);
    expect(JSON.parse(events.at(-1)!.data).error.code).toBe("STREAM_EARLY_EOF");
    const log = (await gw.api("GET", "/api/logs?limit=1")).body[0];
    expect(log.errorCode).toBe("STREAM_EARLY_EOF");
  });

  it("R13.3 a cut-short Anthropic stream, same format and translated to an OpenAI client, ends with an error event", async () => {
    sim.addFault("a-1", { endAfterChunks: 2, times: 2 });
    const same = await gw.post("/v1/messages", msg("ant/m1"));
    const names = parseSse(same.text).map((e) => e.event);
    expect(names).toContain("content_block_delta");
    expect(names).not.toContain("message_stop");
    expect(names.at(-1)).toBe("error");
    await gw.api("POST", "/api/resilience/cooldowns", { all: true });
    const translated = await gw.post("/v1/chat/completions", chat("ant/m1"));
    const events = parseSse(translated.text);
    expect(events.map((e) => e.data)).not.toContain("[DONE]");
    expect(JSON.parse(events.at(-1)!.data).error.code).toBe("STREAM_EARLY_EOF");
  });

  it("R13.5 the throughput watchdog aborts a trickling stream after warm-up and one window", async () => {
    await gw.api("PATCH", "/api/resilience", { streamRecovery: { throughputWatchdog: { enabled: true, warmupMs: 0, windowMs: 1_000, minBytesPerSec: 500, minBytes: 1 } } });
    try {
      sim.addFault("s-1", { trickleMs: 400, times: 1 });
      const t0 = Date.now();
      const r = await gw.post("/v1/chat/completions", chat("oai/m1"));
      const last = JSON.parse(parseSse(r.text).at(-1)!.data);
      expect(last.error.code).toBe("STREAM_THROUGHPUT_TOO_LOW");
      expect(Date.now() - t0).toBeGreaterThanOrEqual(1_000);
    } finally {
      await gw.api("PATCH", "/api/resilience", { streamRecovery: { throughputWatchdog: { enabled: false } } });
    }
  });
});

describe("heartbeats and disconnects", () => {
  it("R13 a waiting OpenAI client gets SSE comment heartbeats, then the stream", async () => {
    sim.addFault("s-1", { latencyMs: 800, times: 1 });
    const r = await gw.post("/v1/chat/completions", chat("oai/m1"));
    expect(r.text.startsWith(": keep-alive\n\n")).toBe(true);
    expect(parseSse(r.text).at(-1)?.data).toBe("[DONE]");
  });

  it("R13 a waiting Anthropic client gets `ping` events before message_start", async () => {
    sim.addFault("a-1", { latencyMs: 800, times: 1 });
    const r = await gw.post("/v1/messages", msg("ant/m1"));
    const events = parseSse(r.text);
    expect(events[0].event).toBe("ping");
    expect(events.find((e) => e.event !== "ping")?.event).toBe("message_start");
  });

  it("R13 when every attempt fails after heartbeats began, the client gets an error event in its format", async () => {
    sim.addFault("s-1", { latencyMs: 500, status: 503, times: 1 });
    sim.addFault("s-2", { latencyMs: 500, status: 503, times: 1 });
    const r = await gw.post("/v1/chat/completions", chat("oai/m1"));
    expect(r.status).toBe(200);
    const last = JSON.parse(parseSse(r.text).at(-1)!.data);
    expect(last.error).toBeDefined();
  });

  it("R13.1 a client disconnect aborts the upstream and is logged 499 without blaming the connection", async () => {
    sim.addFault("s-1", { trickleMs: 300, times: 1 });
    const controller = new AbortController();
    const res = await fetch(gw.url + "/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(chat("oai/m1")),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await new Promise((r) => setTimeout(r, 300));
    const logs = (await gw.api("GET", "/api/logs?limit=1")).body;
    expect(logs[0]).toMatchObject({ status: 499, errorCode: "client_closed_request" });
    const conn = (await gw.api("GET", "/api/connections/oai-c1")).body;
    expect(conn.lastError).toBeNull();
    const health = (await gw.api("GET", "/api/monitoring/health")).body;
    expect(health.providerBreakers.find((b: { provider: string }) => b.provider === "oai")?.failureCount ?? 0).toBe(0);
  });
});

describe("attempt deadline (R13.6)", () => {
  it("R13.6 a JSON attempt that outlives attemptDeadlineMs is abandoned and fails over", async () => {
    await gw.api("PATCH", "/api/resilience", { streamRecovery: { attemptDeadlineMs: 1_000 } });
    try {
      sim.addFault("s-1", { latencyMs: 2_500, times: 1 });
      const t0 = Date.now();
      const r = await gw.post("/v1/chat/completions", { model: "oai/m1", messages: [{ role: "user", content: "hi" }] });
      expect(r.status).toBe(200);
      expect(r.headers.get("x-switchyard-attempts")).toBe("2");
      expect(r.body.choices[0].message.content).toContain("s-2");
      expect(Date.now() - t0).toBeLessThan(2_400);
      const logs = (await gw.api("GET", "/api/logs?limit=1")).body;
      expect(logs[0].attempts[0]).toMatchObject({ connectionId: "oai-c1", status: null, verdict: "timeout" });
    } finally {
      await gw.api("PATCH", "/api/resilience", { streamRecovery: { attemptDeadlineMs: 600_000 } });
    }
  });
});
