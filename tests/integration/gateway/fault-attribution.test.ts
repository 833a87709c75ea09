// R25.4 over loopback against the simulator: every attempt of a request-log row says where it ended
// and whose fault it was; an in-stream error event and a stream without its terminal event are
// failures for the breaker, never successes; a translated request the upstream refuses as malformed
// is the gateway's fault — announced without content, tried once on a same-format target, and
// cooling nothing — while a same-format 400 is the client's and cools nothing either; /metrics
// counts attempts by fault.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, parseSse, startGateway, startSim, type ApiResult, type TestGateway } from "../harness.js";
import { parseExposition, sampleKey } from "../usage/exposition.js";

let gw: TestGateway;
let sim: Simulator;
let events: AbortController;
let eventText = "";

/** A prompt no answer, event or metric may repeat. */
const PROMPT = "fault-attribution-prompt-7f3a";
const chat = (model: string, stream = false) => ({ model, stream, messages: [{ role: "user", content: PROMPT }] });
const msg = (model: string, stream = false) => ({ model, stream, max_tokens: 64, messages: [{ role: "user", content: PROMPT }] });
/** The upstream's answer to a field Switchyard's translation would have leaked. */
const LEAKED_FIELD = { status: 400, body: '{"type":"error","error":{"type":"invalid_request_error","message":"metadata.leaked: Extra inputs are not permitted"}}' };
const CONTEXT_REFUSAL = {
  status: 400,
  body: '{"error":{"message":"This model\'s maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}',
};

beforeAll(async () => {
  sim = await startSim({ label: "faults" });
  gw = await startGateway();
  await addProvider(gw, "oai", sim, "openai", ["fo-1", "fo-2"]);
  await addProvider(gw, "ant", sim, "anthropic", ["fa-1", "fa-2"]);
  await addProvider(gw, "solo", sim, "anthropic", ["fs-1"]);
  const combo = await gw.api("POST", "/api/combos", { name: "mixed", targets: [{ model: "ant/m1" }, { model: "oai/m1" }] });
  expect(combo.status, combo.text).toBe(201);
  const patched = await gw.api("PATCH", "/api/resilience", { streamRecovery: { contentStallTimeoutMs: 800 } });
  expect(patched.status).toBe(200);
  events = new AbortController();
  const res = await fetch(`${gw.url}/api/events`, { headers: { authorization: `Bearer ${gw.token}` }, signal: events.signal });
  expect(res.status).toBe(200);
  void (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) eventText += decoder.decode(chunk, { stream: true });
    } catch {
      // aborted at the end
    }
  })();
});

afterEach(async () => {
  sim.clearFaults();
  await gw.api("POST", "/api/resilience/cooldowns", { all: true });
  await gw.api("POST", "/api/resilience/reset", {});
});

afterAll(async () => {
  events?.abort();
  await gw?.close();
  await sim?.close();
});

type Attempt = { provider: string; connectionId: string; verdict: string | null; ended: string; fault: string };

/** The request-log row of a response, by its request id. */
async function attemptsOf(r: ApiResult): Promise<Attempt[]> {
  const id = r.headers.get("x-switchyard-request-id");
  for (let i = 0; i < 60; i++) {
    const row = await gw.api("GET", `/api/logs/${id}`);
    if (row.status === 200) return row.body.attempts as Attempt[];
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no request-log row ${id}`);
}

const brief = (attempts: Attempt[]) => attempts.map((a) => [a.connectionId, a.verdict, a.ended, a.fault]);

async function breaker(provider: string): Promise<{ state: string; failureCount: number }> {
  const health = (await gw.api("GET", "/api/monitoring/health")).body;
  return health.providerBreakers.find((b: { provider: string }) => b.provider === provider) ?? { state: "CLOSED", failureCount: 0 };
}

async function cooling(connectionId: string): Promise<boolean> {
  const conn = (await gw.api("GET", `/api/connections/${connectionId}`)).body;
  return conn.rateLimitedUntil !== null && conn.rateLimitedUntil > Date.now();
}

/** The gateway.fault events seen on /api/events so far. */
function gatewayFaults(): Array<Record<string, unknown>> {
  return parseSse(eventText)
    .map((e) => JSON.parse(e.data) as Record<string, unknown>)
    .filter((e) => e.type === "gateway.fault");
}

describe("R25.4 where each attempt ended and whose fault it was", () => {
  it("R25.4 complete/none, headers/account, connect/transport in the row's attempts", async () => {
    const ok = await gw.post("/v1/chat/completions", chat("oai/m1"));
    expect(ok.status).toBe(200);
    expect(brief(await attemptsOf(ok))).toEqual([["oai-c1", null, "complete", "none"]]);

    sim.addFault("fo-1", { status: 429, retryAfter: 5, times: 1 });
    const limited = await gw.post("/v1/chat/completions", chat("oai/m1"));
    expect(limited.status).toBe(200);
    expect(brief(await attemptsOf(limited))).toEqual([
      ["oai-c1", "rate_limit", "headers", "account"],
      ["oai-c2", null, "complete", "none"],
    ]);
    await gw.api("POST", "/api/resilience/cooldowns", { all: true });

    sim.addFault("fo-1", { reset: true, times: 1 });
    const reset = await gw.post("/v1/chat/completions", chat("oai/m1"));
    expect(reset.status).toBe(200);
    expect(brief(await attemptsOf(reset))[0]).toEqual(["oai-c1", "transport", "connect", "transport"]);
  });

  it("R25.4 before_content/provider (a stall), mid_stream and no_terminal (provider) for streams", async () => {
    sim.addFault("fo-1", { stallBeforeContent: true, times: 1 });
    const stalled = await gw.post("/v1/chat/completions", chat("oai/m1", true));
    expect(stalled.status).toBe(200);
    expect(brief(await attemptsOf(stalled))).toEqual([
      ["oai-c1", "stream_stall", "before_content", "provider"],
      ["oai-c2", null, "complete", "none"],
    ]);

    sim.addFault("fa-1", { errorEventAfterChunks: 1, times: 1 });
    const broken = await gw.post("/v1/messages", msg("ant/m1", true));
    const last = parseSse(broken.text).at(-1);
    expect(last?.event).toBe("error");
    expect(brief(await attemptsOf(broken))).toEqual([["ant-c1", "server_error", "mid_stream", "provider"]]);

    // The error event's failure rested ant-c1 as its class does; the next case starts from a rested pool.
    await gw.api("POST", "/api/resilience/cooldowns", { all: true });
    sim.addFault("fa-1", { endAfterChunks: 1, times: 1 });
    const cut = await gw.post("/v1/messages", msg("ant/m1", true));
    // Whether the answer then continues elsewhere (R13.3) or ends with an error event, the cut attempt is a failure.
    expect(brief(await attemptsOf(cut))[0]).toEqual(["ant-c1", "stream_early_eof", "no_terminal", "provider"]);
  });

  it("R25.4 a same-format 400 is the client's fault and a context refusal the context's; neither cools nor moves a breaker", async () => {
    sim.addFault("fo-1", { status: 400, times: 1 });
    const bad = await gw.post("/v1/chat/completions", chat("oai/m1"));
    expect(bad.status).toBe(400);
    expect(brief(await attemptsOf(bad))).toEqual([["oai-c1", "bad_request", "headers", "client"]]);

    sim.addFault("fo-1", { ...CONTEXT_REFUSAL, times: 1 });
    const long = await gw.post("/v1/chat/completions", chat("oai/m1"));
    expect(long.status).toBe(400);
    expect(brief(await attemptsOf(long))).toEqual([["oai-c1", "context_overflow", "headers", "context"]]);

    expect(await cooling("oai-c1")).toBe(false);
    expect(await breaker("oai")).toMatchObject({ state: "CLOSED", failureCount: 0 });
  });
});

describe("R25.4 failures inside a 200 stream count for the breaker", () => {
  it("R25.4 an in-stream error event before content fails over and counts as a failure, never a success", async () => {
    sim.addFault("fa-1", { errorEventAfterChunks: 0, times: 1 });
    const r = await gw.post("/v1/messages", msg("ant/m1", true));
    expect(r.status).toBe(200);
    expect(parseSse(r.text).at(-1)?.event).toBe("message_stop");
    expect(brief(await attemptsOf(r))).toEqual([
      ["ant-c1", "server_error", "before_content", "provider"],
      ["ant-c2", null, "complete", "none"],
    ]);
    // On a provider with no second account nothing answers after it, so the breaker shows the failure.
    sim.addFault("fs-1", { errorEventAfterChunks: 0, times: 1 });
    const alone = await gw.post("/v1/messages", msg("solo/m1", true));
    expect(alone.status).toBe(503);
    expect(brief(await attemptsOf(alone))).toEqual([["solo-c1", "server_error", "before_content", "provider"]]);
    expect((await breaker("solo")).failureCount).toBe(1);
  });

  it("R25.4 an in-stream error event after content is a failure for the breaker, and the client reads an error event", async () => {
    sim.addFault("fo-1", { errorEventAfterChunks: 1, times: 1 });
    const r = await gw.post("/v1/chat/completions", chat("oai/m1", true));
    const frames = parseSse(r.text);
    expect(frames.some((f) => f.data.includes('"content"'))).toBe(true);
    const data = frames.filter((f) => f.data !== "[DONE]").map((f) => JSON.parse(f.data) as Record<string, unknown>);
    expect(data.at(-1)?.error).toBeTruthy();
    expect(brief(await attemptsOf(r))).toEqual([["oai-c1", "server_error", "mid_stream", "provider"]]);
    expect((await breaker("oai")).failureCount).toBe(1);
  });

  it("R25.4 a translated stream's error event (Anthropic upstream, OpenAI client) is the same failure, in the client's own error frame", async () => {
    sim.addFault("fs-1", { errorEventAfterChunks: 1, times: 1 });
    const r = await gw.post("/v1/chat/completions", chat("solo/m1", true));
    const data = parseSse(r.text)
      .filter((f) => f.data !== "[DONE]")
      .map((f) => JSON.parse(f.data) as Record<string, any>);
    expect(data.some((d) => typeof d.choices?.[0]?.delta?.content === "string" && d.choices[0].delta.content !== "")).toBe(true);
    expect(data.at(-1)?.error?.code).toBe("upstream_stream_error");
    expect(data.some((d) => d.choices?.[0]?.finish_reason === "stop")).toBe(false);
    expect(brief(await attemptsOf(r))).toEqual([["solo-c1", "server_error", "mid_stream", "provider"]]);
    expect((await breaker("solo")).failureCount).toBe(1);
  });

  it("R25.4 a stream that ends with no terminal event is a failure of its class: it rests the connection and never counts as a success", async () => {
    // A provider failure first: a success would clear the breaker's count, a failure of the early-EOF class keeps it (D13).
    sim.addFault("fs-1", { status: 503, times: 1 });
    await gw.post("/v1/chat/completions", chat("solo/m1"));
    expect((await breaker("solo")).failureCount).toBe(1);
    await gw.api("POST", "/api/resilience/cooldowns", { all: true });
    sim.addFault("fs-1", { endAfterChunks: 2, times: 1 });
    const r = await gw.post("/v1/chat/completions", chat("solo/m1", true));
    const [attempt] = (await attemptsOf(r)) as Array<Attempt & { after: { state: string } | null }>;
    expect([attempt.connectionId, attempt.verdict, attempt.ended, attempt.fault]).toEqual(["solo-c1", "stream_early_eof", "no_terminal", "provider"]);
    expect(attempt.after?.state).toMatch(/cooling_down|model_lockout/);
    expect((await breaker("solo")).failureCount).toBe(1);
  });
});

describe("R25.4 a translated request refused as malformed is the gateway's fault", () => {
  it("R25.4 it is tried once on the same-format target, announces gateway.fault without content, and cools nothing", async () => {
    sim.addFault("fa-1", LEAKED_FIELD);
    sim.addFault("fa-2", LEAKED_FIELD);
    const before = gatewayFaults().length;
    const r = await gw.post("/v1/chat/completions", chat("mixed"));
    expect(r.status, r.text).toBe(200);
    expect(r.body.choices[0].message.content).toContain("fo-1");
    // One try of the translating target (not its second account), then the target that takes the client's format.
    expect(brief(await attemptsOf(r))).toEqual([
      ["ant-c1", "bad_request", "headers", "gateway"],
      ["oai-c1", null, "complete", "none"],
    ]);
    await expect.poll(() => gatewayFaults().length).toBe(before + 1);
    const event = gatewayFaults().at(-1)!;
    expect(event).toMatchObject({ provider: "ant", clientFormat: "openai", upstreamFormat: "anthropic" });
    expect(String(event.message)).toContain("Extra inputs are not permitted");
    expect(eventText).not.toContain(PROMPT);
    expect(await cooling("ant-c1")).toBe(false);
    expect(await breaker("ant")).toMatchObject({ state: "CLOSED", failureCount: 0 });
  });

  it("R25.4 with no target of the client's format the client gets the 400, still the gateway's fault, nothing cooled", async () => {
    sim.addFault("fs-1", { ...LEAKED_FIELD, times: 1 });
    const before = gatewayFaults().length;
    const r = await gw.post("/v1/chat/completions", chat("solo/m1"));
    expect(r.status).toBe(400);
    expect(brief(await attemptsOf(r))).toEqual([["solo-c1", "bad_request", "headers", "gateway"]]);
    await expect.poll(() => gatewayFaults().length).toBe(before + 1);
    expect(await cooling("solo-c1")).toBe(false);
  });

  it("R25.4 /metrics counts attempts by fault, with no prompt in any series", async () => {
    sim.addFault("fa-1", { ...LEAKED_FIELD, times: 1 });
    await gw.post("/v1/chat/completions", chat("mixed"));
    const res = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${gw.token}` } });
    const text = await res.text();
    expect(text).not.toContain(PROMPT);
    const m = parseExposition(text);
    expect(m.get(sampleKey("switchyard_attempts_total", { provider: "ant", connection: "ant-c1", outcome: "bad_request", fault: "gateway" }))).toBeGreaterThanOrEqual(1);
    expect(m.get(sampleKey("switchyard_attempts_total", { provider: "oai", connection: "oai-c1", outcome: "success", fault: "none" }))).toBeGreaterThanOrEqual(1);
  });
});
