// Stage "attempt": one upstream call against the real simulator over loopback, JSON and SSE,
// translated between formats; it reports the outcome and records nothing itself.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAttempt, type AttemptDeps, type ClientRequest } from "../../../main/gateway/pipeline/attempt.js";
import { startSimulator, type Simulator } from "../../../main/simulator/index.js";
import { clientSide, connection, ports, provider, upstreamCaller, type Ports } from "./fixtures.js";

let sim: Simulator;
let p: Ports;
let deps: AttemptDeps;
const budgets = { contentStallTimeoutMs: 0, idleTimeoutMs: 0, throughput: { enabled: false, warmupMs: 0, windowMs: 0, minBytesPerSec: 0, minBytes: 0 } };

beforeAll(async () => {
  sim = await startSimulator({ port: 0, label: "attempt" });
  p = ports({ connections: [connection({ id: "c1", provider: "oai" }), connection({ id: "c2", provider: "ant" })] });
  p.secrets.set("c1", "key-one");
  p.secrets.set("c2", "key-two");
  deps = { callUpstream: upstreamCaller({ attemptDeadlineMs: 2_000 }).callUpstream, clock: { now: () => Date.now() }, connections: p.connections, streamBudgets: () => budgets };
});
afterAll(async () => sim.close());

const oai = () => provider({ id: "oai", format: "openai", baseUrl: `${sim.url}/v1`, models: ["m1"] });
const ant = () => provider({ id: "ant", format: "anthropic", baseUrl: sim.url, models: ["m1"] });
const chat = (extra: Record<string, unknown> = {}): ClientRequest => ({
  format: "openai",
  model: "x/m1",
  headers: {},
  body: { model: "x/m1", messages: [{ role: "user", content: "hi" }], ...extra },
});

describe("attempt", () => {
  it("R1.4 an OpenAI client's JSON request to an Anthropic upstream comes back translated, with usage", async () => {
    const side = await clientSide(p);
    const outcome = await runAttempt(deps, chat(), side.client, { provider: ant(), model: "m1" }, p.h.store.row("c2"));
    expect(outcome.kind).toBe("json");
    if (outcome.kind !== "json" || typeof outcome.body === "string") throw new Error("expected a translated JSON body");
    expect(outcome.body.object).toBe("chat.completion");
    expect(JSON.stringify(outcome.body)).toContain("key-two");
    expect(outcome.usage.inputTokens).toBeGreaterThan(0);
    expect(sim.requests.at(-1)).toMatchObject({ path: "/v1/messages", key: "key-two", model: "m1" });
    side.client.sendJson(outcome.body);
    expect((await side.response).status).toBe(200);
    await side.close();
  });

  it("R1.4 a same-format JSON answer is the upstream's text with only the model replaced", async () => {
    const side = await clientSide(p);
    const outcome = await runAttempt(deps, chat(), side.client, { provider: oai(), model: "m1" }, p.h.store.row("c1"));
    if (outcome.kind !== "json" || typeof outcome.body !== "string") throw new Error("expected the upstream's JSON text");
    const sent = JSON.parse(outcome.body);
    expect(sent.model).toBe("x/m1");
    expect(sent.object).toBe("chat.completion");
    expect(outcome.body).not.toContain('"model":"m1"');
    expect(outcome.usage.inputTokens).toBeGreaterThan(0);
    side.client.sendJson(outcome.body);
    const got = await side.response;
    expect(got.headers.get("content-type")).toBe("application/json");
    expect(JSON.parse(got.text)).toEqual(sent);
    await side.close();
  });

  it("R11.3 an upstream error status is reported with its body and format, nothing sent to the client", async () => {
    sim.addFault("key-one", { status: 429, retryAfter: 3, times: 1 });
    const side = await clientSide(p);
    const outcome = await runAttempt(deps, chat(), side.client, { provider: oai(), model: "m1" }, p.h.store.row("c1"));
    expect(outcome).toMatchObject({ kind: "upstream_error", status: 429, upstreamFormat: "openai" });
    expect(side.client.committed).toBe(false);
    side.client.clientClosed();
    await side.close();
  });

  it("R13.6 an upstream that outlives the attempt deadline is an ETIMEDOUT transport failure", async () => {
    sim.addFault("key-one", { latencyMs: 5_000, times: 1 });
    const side = await clientSide(p);
    const fast = { ...deps, callUpstream: upstreamCaller({ attemptDeadlineMs: 200 }).callUpstream };
    const outcome = await runAttempt(fast, chat(), side.client, { provider: oai(), model: "m1" }, p.h.store.row("c1"));
    expect(outcome).toEqual({ kind: "transport_failure", failure: { kind: "transport", cause: "timeout", code: "ETIMEDOUT" } });
    side.client.clientClosed();
    await side.close();
  });

  it("R13.1 a streaming attempt relays through the client response and completes", async () => {
    const side = await clientSide(p, { stream: true });
    const outcome = await runAttempt(deps, chat({ stream: true }), side.client, { provider: oai(), model: "m1" }, p.h.store.row("c1"));
    expect(outcome.kind).toBe("completed");
    side.client.endStream();
    const r = await side.response;
    expect(r.headers.get("x-omniroute-selected-connection-id")).toBe("c1");
    expect(r.text).toContain("key-one");
    expect(r.text.trim().endsWith("data: [DONE]")).toBe(true);
    await side.close();
  });

  it("R13.2 an empty stream fails before output, so the loop may fail over invisibly", async () => {
    sim.addFault("key-one", { emptyStream: true, times: 1 });
    const side = await clientSide(p, { stream: true });
    const outcome = await runAttempt(deps, chat({ stream: true }), side.client, { provider: oai(), model: "m1" }, p.h.store.row("c1"));
    expect(outcome).toMatchObject({ kind: "failed_before_output", code: "STREAM_EARLY_EOF" });
    expect(side.client.committed).toBe(false);
    side.client.clientClosed();
    await side.close();
  });

  it("R13.6 a stream that outlives the attempt deadline is reported as stream_attempt_deadline", async () => {
    sim.addFault("key-one", { stallAfterChunks: 1, times: 1 });
    const side = await clientSide(p, { stream: true });
    const short = { ...deps, callUpstream: upstreamCaller({ attemptDeadlineMs: 300 }).callUpstream };
    const outcome = await runAttempt(short, chat({ stream: true }), side.client, { provider: oai(), model: "m1" }, p.h.store.row("c1"));
    expect(outcome).toMatchObject({ kind: "failed_after_output", code: "stream_attempt_deadline" });
    side.client.failAfterOutput("stream_attempt_deadline", "deadline");
    await side.close();
  });
});
