// The Responses API's gateway side over real HTTP (issue 22): the WebSocket refusal, reasoning
// artifacts kept to the account that issued them, background mode, compaction, the count and
// catalogue routes, keep-alives for a slow upstream, invisible failover, and unknown paths.
import { request as httpRequest } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../harness.js";

type Json = Record<string, any>;

let gw: TestGateway;
let sim: Simulator;

beforeAll(async () => {
  sim = await startSim({ label: "rsp" });
  gw = await startGateway();
  // Two accounts of one Responses provider: k1 first, k2 when k1 cannot serve.
  await addProvider(gw, "resp", sim, "openai-responses", ["k1", "k2"], { modelInfo: { m1: { contextWindow: 64_000 } } });
  // One more Responses account for the tests that must not meet k1's cooldown.
  await addProvider(gw, "solo", sim, "openai-responses", ["k3"]);
  await addProvider(gw, "chat", sim, "openai", ["kc"]);
  await addProvider(gw, "ant", sim, "anthropic", ["ka"]);
  // A chat account of its own for the mid-stream break (the combo's failover test cools kc).
  await addProvider(gw, "chat2", sim, "openai", ["kc2"]);
  const combo = await gw.api("POST", "/api/combos", { name: "rsp-combo", strategy: "priority", targets: [{ model: "chat/m1" }, { model: "ant/m1" }] });
  expect(combo.status).toBe(201);
});

afterEach(() => {
  sim.requests.length = 0;
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

const upstreamCalls = (key: string) => sim.requests.filter((r) => r.key === key && r.path.endsWith("/responses"));

/** SSE text as the events it carries, in order. */
function events(text: string): Json[] {
  return text
    .split("\n\n")
    .map((frame) => frame.split("\n").find((line) => line.startsWith("data:")))
    .filter((line): line is string => line !== undefined)
    .map((line) => JSON.parse(line.slice(5)) as Json);
}

describe("the WebSocket transport (R16.3, R26.1)", () => {
  function upgrade(path: string, host: string): Promise<{ status: number; body: Json; ms: number }> {
    const port = new URL(gw.url).port;
    const started = Date.now();
    return new Promise((resolve, reject) => {
      const req = httpRequest({
        host: "127.0.0.1",
        port,
        path,
        headers: { host, connection: "Upgrade", upgrade: "websocket", "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==" },
      });
      req.on("upgrade", (res, socket) => {
        socket.destroy();
        resolve({ status: res.statusCode ?? 0, body: {}, ms: Date.now() - started });
      });
      req.on("response", (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Json, ms: Date.now() - started }));
      });
      req.on("error", reject);
      req.end();
    });
  }

  it("R26.1 GET /v1/responses with Upgrade: websocket is accepted at once (101, the Responses WebSocket, which replaced R16.3's 426); other paths are 404", async () => {
    const answer = await upgrade("/v1/responses", "127.0.0.1");
    expect(answer.status).toBe(101);
    expect(answer.ms).toBeLessThan(1_000);
    expect((await upgrade("/v1/other", "127.0.0.1")).status).toBe(404);
    // R21.1: Codex on a ChatGPT plan asks at the ChatGPT backend's path.
    expect((await upgrade("/backend-api/codex/responses", "127.0.0.1")).status).toBe(101);
  });

  it("R16.3 an upgrade naming a foreign Host gets the DNS-rebinding guard's 403", async () => {
    const answer = await upgrade("/v1/responses", "evil.example");
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe("forbidden_host");
  });
});

describe("reasoning artifacts stay with their account (R16.7)", () => {
  const reasoningTurn = { model: "resp/m1", input: "think first", reasoning: { effort: "low" }, include: ["reasoning.encrypted_content"], store: false };

  it("R16.7 the simulator refuses another key's blob as OpenAI does, so the gateway's stripping is what makes the next turn work", async () => {
    const first = await gw.post("/v1/responses", reasoningTurn);
    expect(first.status).toBe(200);
    const reasoning = (first.body.output as Json[]).find((i) => i.type === "reasoning")!;
    expect(reasoning.encrypted_content).toEqual(expect.any(String));
    // Straight to the simulator with the other key: the real API's refusal.
    const direct = await fetch(`${sim.url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer k2" },
      body: JSON.stringify({ model: "m1", input: [reasoning, { type: "message", role: "user", content: [{ type: "input_text", text: "go on" }] }] }),
    });
    expect(direct.status).toBe(400);
    expect(((await direct.json()) as Json).error.code).toBe("invalid_encrypted_content");
  });

  it("R16.7 a turn carrying k1's reasoning fails over to k2 without the blob, and k1 itself still receives it", async () => {
    const first = await gw.post("/v1/responses", reasoningTurn);
    expect(first.headers.get("x-omniroute-selected-connection-id")).toBe("resp-c1");
    const reasoning = (first.body.output as Json[]).find((i) => i.type === "reasoning")!;
    const next = {
      model: "resp/m1",
      store: false,
      input: [
        { type: "message", role: "user", content: [{ type: "input_text", text: "think first" }] },
        reasoning,
        { type: "message", role: "user", content: [{ type: "input_text", text: "go on" }] },
      ],
    };
    sim.requests.length = 0;
    sim.addFault("k1", { status: 429, retryAfter: 30, times: 1 });
    const second = await gw.post("/v1/responses", next);
    expect(second.status, second.text).toBe(200);
    expect(second.headers.get("x-switchyard-attempts")).toBe("2");
    expect(second.headers.get("x-omniroute-selected-connection-id")).toBe("resp-c2");
    const [toK1] = upstreamCalls("k1");
    const [toK2] = upstreamCalls("k2");
    expect((toK1.body as Json).input.map((i: Json) => i.type)).toEqual(["message", "reasoning", "message"]);
    expect((toK2.body as Json).input.map((i: Json) => i.type)).toEqual(["message", "message"]);
  });

  it("R16.7 reasoning an Anthropic account signed never reaches a Responses account", async () => {
    sim.addFault("ka", { reasoningOnlyMs: 50, times: 1 });
    const first = await gw.post("/v1/responses", { model: "ant/m1", input: "think first", reasoning: { effort: "low" }, stream: true, store: false });
    const completed = events(first.text).find((e) => e.type === "response.completed")!;
    const reasoning = (completed.response.output as Json[]).find((i) => i.type === "reasoning");
    expect(reasoning?.encrypted_content).toEqual(expect.any(String));
    sim.requests.length = 0;
    const next = await gw.post("/v1/responses", {
      model: "solo/m1",
      store: false,
      input: [reasoning, { type: "message", role: "user", content: [{ type: "input_text", text: "go on" }] }],
    });
    expect(next.status, next.text).toBe(200);
    expect((upstreamCalls("k3")[0].body as Json).input.map((i: Json) => i.type)).toEqual(["message"]);
  });
});

describe("background, compaction, counting and the catalogue (R1.8, R16.5)", () => {
  it("R1.8 background: true is served synchronously with X-Switchyard-Warning, and the upstream is not asked for background mode", async () => {
    const r = await gw.post("/v1/responses", { model: "solo/m1", input: "hi", background: true });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe("completed");
    expect(r.headers.get("x-switchyard-warning")).toMatch(/background/);
    expect(upstreamCalls("k3")).toHaveLength(1);
    expect((upstreamCalls("k3")[0].body as Json).background).toBeUndefined();
  });

  it("R16.5 /v1/responses/compact answers a compaction from any upstream, and the compaction item becomes the summary in the next turn", async () => {
    const input = [
      { type: "message", role: "user", content: [{ type: "input_text", text: "fix the bug in parse()" }] },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "I changed parse() to trim its input." }] },
    ];
    const r = await gw.post("/v1/responses/compact", { model: "chat/m1", input });
    expect(r.status, r.text).toBe(200);
    expect(r.body.object).toBe("response.compaction");
    const compaction = (r.body.output as Json[]).find((i) => i.type === "compaction")!;
    expect(compaction.encrypted_content).toEqual(expect.any(String));
    expect((r.body.output as Json[]).filter((i) => i.type === "message").map((i) => i.role)).toEqual(["user"]);
    // The summary turn asked the chat upstream for a handoff summary after the conversation.
    const asked = sim.requests.find((q) => q.key === "kc")!.body as Json;
    expect(asked.messages.at(-1).content).toMatch(/summary/i);
    sim.requests.length = 0;
    const next = await gw.post("/v1/responses", {
      model: "ant/m1",
      input: [...(r.body.output as Json[]), { type: "message", role: "user", content: [{ type: "input_text", text: "go on" }] }],
    });
    expect(next.status, next.text).toBe(200);
    const upstream = sim.requests.find((q) => q.key === "ka")!.body as Json;
    const texts = JSON.stringify(upstream.messages);
    expect(texts).toContain("Summary of the earlier conversation");
    expect(texts).not.toContain("switchyard.compaction");
  });

  it("R16.5 /v1/responses/input_tokens counts exactly through a Responses upstream and estimates for others", async () => {
    const body = { input: "count these words please", instructions: "be brief" };
    const exact = await gw.post("/v1/responses/input_tokens", { ...body, model: "solo/m1" });
    expect(exact.status).toBe(200);
    expect(exact.body).toMatchObject({ object: "response.input_tokens", input_tokens: expect.any(Number) });
    expect(exact.headers.get("x-switchyard-token-count")).toBeNull();
    const estimate = await gw.post("/v1/responses/input_tokens", { ...body, model: "chat/m1" });
    expect(estimate.body).toMatchObject({ object: "response.input_tokens", input_tokens: expect.any(Number) });
    expect(estimate.headers.get("x-switchyard-token-count")).toBe("estimate");
    expect((await gw.post("/v1/responses/input_tokens", { ...body, model: "nope/x" })).body.error.code).toBe("model_not_found");
  });

  it("R16.5 GET /v1/models answers Codex's catalogue when Codex asks, with the context window from modelInfo; others get the OpenAI list", async () => {
    const codex = await fetch(`${gw.url}/v1/models?client_version=0.171.0`, { headers: { originator: "codex_exec" } });
    const catalogue = (await codex.json()) as Json;
    const m1 = (catalogue.models as Json[]).find((m) => m.slug === "resp/m1")!;
    expect(m1).toMatchObject({ context_window: 64_000, visibility: "list", supported_in_api: true, apply_patch_tool_type: "freeform" });
    for (const field of ["display_name", "priority", "shell_type", "support_verbosity", "supported_reasoning_levels", "truncation_policy", "experimental_supported_tools"])
      expect(m1).toHaveProperty(field);
    expect(m1.model_messages.instructions_template).toEqual(expect.any(String));
    expect((catalogue.models as Json[]).map((m) => m.slug)).toContain("rsp-combo");
    const plain = (await (await fetch(`${gw.url}/v1/models`)).json()) as Json;
    expect(plain.object).toBe("list");
  });
});

describe("streams before content (R16.3, R13.2)", () => {
  it("R16.3 a slow upstream: keep-alives come within 2 s; Codex gets numbered keepalive events and the stream counts on after them", async () => {
    sim.addFault("k3", { latencyMs: 4_500, times: 2 });
    const started = Date.now();
    const res = await fetch(`${gw.url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "codex_exec/0.171.0", originator: "codex_exec" },
      body: JSON.stringify({ model: "solo/m1", input: "hi", stream: true }),
    });
    expect(Date.now() - started).toBeLessThan(3_500);
    const list = events(await res.text());
    const keepalives = list.filter((e) => e.type === "keepalive");
    expect(keepalives.length).toBeGreaterThanOrEqual(2);
    expect(list.slice(0, keepalives.length).every((e) => e.type === "keepalive")).toBe(true);
    expect(list.map((e) => e.sequence_number)).toEqual(list.map((_e, i) => i));
    expect(list.at(-1)!.type).toBe("response.completed");

    // An SDK client (its stream helper wants response.created first) gets SSE comments instead.
    const sdk = await gw.post("/v1/responses", { model: "solo/m1", input: "hi", stream: true }, { "user-agent": "OpenAI/JS 6.30.1" });
    expect(sdk.text.startsWith(": keep-alive\n\n")).toBe(true);
    expect(events(sdk.text)[0].type).toBe("response.created");
  }, 20_000);

  it("R13.2 an empty upstream stream before content fails over invisibly: one response.created, numbered from 0", async () => {
    sim.addFault("kc", { emptyStream: true, times: 1 });
    const r = await gw.post("/v1/responses", { model: "rsp-combo", input: "hi", stream: true });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-switchyard-attempts")).toBe("2");
    const list = events(r.text);
    expect(list.filter((e) => e.type === "response.created")).toHaveLength(1);
    expect(list.map((e) => e.sequence_number)).toEqual(list.map((_e, i) => i));
    expect(list.at(-1)!.response.output[0].content[0].text).toBe("Hello from rsp (key ka)");
  });

  it("R16.2 a stream that breaks after content ends with response.failed, numbered after what the client got", async () => {
    sim.addFault("kc2", { resetAfterChunks: 2, times: 1 });
    const r = await gw.post("/v1/responses", { model: "chat2/m1", input: "hi", stream: true });
    const list = events(r.text);
    expect(list.at(-1)!.type).toBe("response.failed");
    expect(list.map((e) => e.sequence_number)).toEqual(list.map((_e, i) => i));
  });
});

describe("stored turns and unknown routes (R16.4, API.md)", () => {
  it("R16.4 with responsesRetentionHours 0, previous_response_id is refused with response_storage_off and nothing is kept", async () => {
    const kept = await gw.post("/v1/responses", { model: "solo/m1", input: "hi" });
    expect((await fetch(`${gw.url}/v1/responses/${kept.body.id}`)).status).toBe(200);
    expect((await gw.api("PATCH", "/api/settings", { responsesRetentionHours: 0 })).status).toBe(200);
    try {
      const refused = await gw.post("/v1/responses", { model: "solo/m1", input: "more", previous_response_id: kept.body.id });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ type: "invalid_request_error", code: "response_storage_off" });
      const served = await gw.post("/v1/responses", { model: "solo/m1", input: "hi" });
      expect(served.status).toBe(200);
      expect((await gw.api("PATCH", "/api/settings", { responsesRetentionHours: 24 })).status).toBe(200);
      expect((await fetch(`${gw.url}/v1/responses/${served.body.id}`)).status).toBe(404);
    } finally {
      await gw.api("PATCH", "/api/settings", { responsesRetentionHours: 24 });
    }
  });

  it("R16.4 an unknown previous_response_id is a 404 response_not_found and nothing goes upstream", async () => {
    const r = await gw.post("/v1/responses", { model: "resp/m1", input: "x", previous_response_id: "resp_unknown" });
    expect(r.status).toBe(404);
    expect(r.body.error).toMatchObject({ type: "invalid_request_error", code: "response_not_found" });
    expect(sim.requests).toHaveLength(0);
  });

  it("API.md a path Switchyard lacks under /v1 or /v1beta is a 404 in the path's format, with a request-log row", async () => {
    const openai = await gw.post("/v1/embeddings", { model: "resp/m1", input: "x" });
    expect(openai.status).toBe(404);
    expect(openai.body.error).toMatchObject({ code: "not_found" });
    const anthropic = await gw.post("/v1/messages/batches", {});
    expect(anthropic.body).toMatchObject({ type: "error", error: { type: "not_found_error" } });
    const gemini = await gw.post("/v1beta/cachedContents", {});
    expect(gemini.body.error).toMatchObject({ code: 404, status: "NOT_FOUND" });
    const logs = await gw.api("GET", "/api/logs?limit=10");
    const row = (logs.body as Json[]).find((e) => e.id === openai.headers.get("x-switchyard-request-id"));
    expect(row).toMatchObject({ status: 404, errorCode: "not_found", clientFormat: "openai" });
  });
});
