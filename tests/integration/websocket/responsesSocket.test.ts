// The Responses API over WebSocket (R26.1–R26.3) against the real gateway and the simulator, with
// the `ws` package as the client: the upgrade at both paths, a turn through the pipeline bridged to
// a chat-completions upstream, continuation by previous_response_id with only the new input, the
// warm-up, lost state, failover before content, error frames that leave the socket open, the bad
// inputs, a client that vanishes mid-turn, and the row of each turn (transport "websocket").
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../harness.js";
import { finalResponse, openSocket, outputText, userMessage, type Json, type OpenSocket } from "./socketHarness.js";

let gw: TestGateway;
let sim: Simulator;
const open: OpenSocket[] = [];

const chatCalls = () => sim.requests.filter((r) => r.path === "/v1/chat/completions");

async function socket(path = "/v1/responses", headers: Record<string, string> = {}): Promise<OpenSocket> {
  const s = await openSocket(gw.url, path, headers);
  open.push(s);
  return s;
}

async function rowOf(requestId: string): Promise<Json> {
  for (let i = 0; i < 40; i++) {
    const r = await gw.api<Json>("GET", `/api/logs/${requestId}`);
    if (r.status === 200) return r.body;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`no row ${requestId}`);
}

async function newestRow(): Promise<Json> {
  await new Promise((res) => setTimeout(res, 100));
  const rows = (await gw.api<Json[]>("GET", "/api/logs?limit=1")).body;
  return rowOf(rows[0].id);
}

/** The chat messages' texts of an upstream request, role: text. */
function upstreamTexts(body: unknown): string[] {
  const messages = ((body as Json).messages ?? []) as Json[];
  return messages.map((m) => `${m.role}: ${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}`);
}

const create = (input: unknown, extra: Json = {}): Json => ({ type: "response.create", model: "ws/m1", input, ...extra });

beforeAll(async () => {
  sim = await startSim({ label: "wsim" });
  gw = await startGateway();
  await addProvider(gw, "ws", sim, "openai", ["ws-key-a", "ws-key-b"]);
  await addProvider(gw, "wsr", sim, "openai-responses", ["wsr-key"]);
});

afterAll(async () => {
  for (const s of open) s.ws.terminate();
  await gw?.close();
  await sim?.close();
});

beforeEach(async () => {
  sim.clearFaults();
  await gw.api("PATCH", "/api/settings", { requireClientKey: false, maxBodyMb: 50 });
  // Each test starts with no cooldown or breaker left by another's faults.
  await gw.api("POST", "/api/resilience/reset", {});
  expect((await gw.api("POST", "/api/resilience/cooldowns", { all: true })).status).toBe(200);
});

describe("the Responses WebSocket (R26.1)", () => {
  it("R26.1 GET /v1/responses upgrades (101; permessage-deflate offered but off by default on loopback) and a response.create turn streams the SSE events as frames, one JSON event each", async () => {
    const s = await socket();
    expect(s.status).toBe(101);
    expect(s.extensions).toBe("");
    const frames = await s.turn(create("Say hello"));
    expect(frames[0].type).toBe("response.created");
    expect(frames.at(-1)!.type).toBe("response.completed");
    expect(frames.some((f) => f.type === "response.output_text.delta")).toBe(true);
    expect(outputText(frames)).toMatch(/^Hello from wsim/);
    // Bridged: the turn reached the chat-completions upstream over HTTP, as a stream.
    expect(chatCalls().at(-1)!.stream).toBe(true);
    const row = await newestRow();
    expect(row).toMatchObject({ transport: "websocket", clientFormat: "openai-responses", status: 200, stream: true, provider: "ws" });
  });

  it("R26.1 the ChatGPT backend path /backend-api/codex/responses upgrades too, and an HTTP request's row says transport http", async () => {
    const s = await socket("/backend-api/codex/responses");
    expect(s.status).toBe(101);
    const frames = await s.turn(create("Hello backend"));
    expect(frames.at(-1)!.type).toBe("response.completed");
    const http = await gw.post("/v1/responses", { model: "ws/m1", input: "over http" });
    expect(http.status).toBe(200);
    const row = await rowOf(http.headers.get("x-switchyard-request-id")!);
    expect(row.transport).toBe("http");
  });

  it("R26.1 any other WebSocket path is a 404 before the upgrade", async () => {
    await expect(openSocket(gw.url, "/v1/chat/completions")).rejects.toMatchObject({ status: 404 });
  });
});

describe("state per socket (R26.2)", () => {
  it("R26.2 a continuation sends only the new input; the upstream gets the earlier input, its output and the new input", async () => {
    const s = await socket();
    const first = await s.turn(create([userMessage("first question")]));
    const firstId = finalResponse(first).id as string;
    const before = chatCalls().length;
    const second = await s.turn(create([userMessage("second question")], { previous_response_id: firstId }));
    expect(second.at(-1)!.type).toBe("response.completed");
    expect(chatCalls()).toHaveLength(before + 1);
    const texts = upstreamTexts(chatCalls().at(-1)!.body);
    expect(texts[0]).toContain("first question");
    expect(texts[1]).toMatch(/^assistant: .*Hello from wsim/);
    expect(texts[2]).toContain("second question");
    // And a third turn chains on the second (history grows by each turn's output).
    const third = await s.turn(create([userMessage("third question")], { previous_response_id: finalResponse(second).id }));
    expect(third.at(-1)!.type).toBe("response.completed");
    const all = upstreamTexts(chatCalls().at(-1)!.body);
    expect(all).toHaveLength(5);
    expect(all[4]).toContain("third question");
  });

  it("R26.2 R26.5 to a Responses upstream (same format) a continuation's body goes as text joined from the history's, equal to the whole conversation", async () => {
    const s = await socket();
    const first = await s.turn(create([userMessage("first to responses")], { model: "wsr/m1", tools: [{ type: "function", name: "look", parameters: { type: "object" } }] }));
    expect(first.at(-1)!.type).toBe("response.completed");
    const second = await s.turn(create([userMessage("second to responses")], { model: "wsr/m1", previous_response_id: finalResponse(first).id }));
    expect(second.at(-1)!.type).toBe("response.completed");
    const sent = sim.requests.filter((r) => r.path === "/v1/responses").at(-1)!;
    const body = JSON.parse(sent.rawBody) as Json;
    expect(body.model).toBe("m1");
    expect(body).not.toHaveProperty("previous_response_id");
    expect(body.stream).toBe(true);
    const input = body.input as Json[];
    expect(input.map((i) => `${i.type}:${i.role ?? ""}`)).toEqual(["message:user", "message:assistant", "message:user"]);
    expect(JSON.stringify(input[0])).toContain("first to responses");
    expect(JSON.stringify(input[1])).toContain("Hello from wsim");
    expect(JSON.stringify(input[2])).toContain("second to responses");
    expect(body.tools).toBeUndefined();
  });

  it("R26.2 a warm-up (generate: false) is answered with an id and no upstream call; the next turn builds on its input", async () => {
    const s = await socket();
    const before = sim.requests.length;
    const warm = await s.turn(create([userMessage("warm context")], { generate: false }));
    expect(warm.map((f) => f.type)).toEqual(["response.created", "response.completed"]);
    const id = finalResponse(warm).id as string;
    expect(id).toMatch(/^resp_/);
    expect(sim.requests.length).toBe(before);
    const turn = await s.turn(create([userMessage("now answer")], { previous_response_id: id }));
    expect(turn.at(-1)!.type).toBe("response.completed");
    const texts = upstreamTexts(chatCalls().at(-1)!.body);
    expect(texts[0]).toContain("warm context");
    expect(texts[1]).toContain("now answer");
  });

  it("R26.2 an unknown previous_response_id is an error frame previous_response_not_found; the socket stays open and the whole conversation is served", async () => {
    const s = await socket();
    const lost = await s.turn(create([userMessage("again")], { previous_response_id: "resp_from_another_socket" }));
    expect(lost).toHaveLength(1);
    expect(lost[0]).toMatchObject({ type: "error", status_code: 400, error: { type: "invalid_request_error", code: "previous_response_not_found" } });
    // Codex then resends the whole conversation on the same socket.
    const replay = await s.turn(create([userMessage("earlier"), { type: "message", role: "assistant", content: [{ type: "output_text", text: "ok" }] }, userMessage("again")]));
    expect(replay.at(-1)!.type).toBe("response.completed");
    expect(upstreamTexts(chatCalls().at(-1)!.body)).toHaveLength(3);
  });

  it("R26.2 R16.4 a response stored by an HTTP request is found by its id from a socket", async () => {
    const http = await gw.post("/v1/responses", { model: "ws/m1", input: "stored over http" });
    expect(http.status).toBe(200);
    const s = await socket();
    const turn = await s.turn(create([userMessage("follow up on the socket")], { previous_response_id: http.body.id }));
    expect(turn.at(-1)!.type).toBe("response.completed");
    const texts = upstreamTexts(chatCalls().at(-1)!.body);
    expect(texts[0]).toContain("stored over http");
    expect(texts.at(-1)).toContain("follow up on the socket");
  });
});

describe("failover and errors over the socket (R26.1, R26.3)", () => {
  it("R26.1 a failure before content fails over invisibly: no error frame, the turn completes from the next connection", async () => {
    sim.addFault("ws-key-a", { status: 500, times: 1 });
    const s = await socket();
    const frames = await s.turn(create("fail over please"));
    expect(frames.filter((f) => f.type === "error" || f.type === "response.failed")).toEqual([]);
    expect(frames.at(-1)!.type).toBe("response.completed");
    const row = await newestRow();
    expect(row.transport).toBe("websocket");
    expect(row.attempts.length).toBeGreaterThanOrEqual(2);
    expect(row.status).toBe(200);
  });

  it("R26.3 when every target refuses, the turn is an error frame with status_code, error and the HTTP answer's headers; the socket stays open", async () => {
    sim.addFault("ws-key-a", { status: 429, retryAfter: 30 });
    sim.addFault("ws-key-b", { status: 429, retryAfter: 30 });
    const s = await socket();
    const frames = await s.turn(create("all limited"));
    expect(frames).toHaveLength(1);
    const [frame] = frames;
    expect(frame.type).toBe("error");
    expect(frame.status_code).toBeGreaterThanOrEqual(429);
    expect(frame.error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    expect(frame.headers["retry-after"]).toMatch(/^\d+$/);
    expect(frame.headers["x-switchyard-request-id"]).toEqual(expect.any(String));
    expect(s.ws.readyState).toBe(s.ws.OPEN);
    const row = await rowOf(frame.headers["x-switchyard-request-id"]);
    expect(row).toMatchObject({ transport: "websocket", status: frame.status_code });
  });
});

describe("bad input on the socket (R26.1, R26.3)", () => {
  it("R26.3 a malformed frame or an unknown frame type gets an error frame naming the problem; the socket stays open", async () => {
    const s = await socket();
    const bad = await s.turn("{not json");
    expect(bad[0]).toMatchObject({ type: "error", status_code: 400, error: { code: "invalid_request", message: expect.stringContaining("not valid JSON") } });
    const unknown = await s.turn({ type: "session.update" });
    expect(unknown[0].error.message).toContain("session.update");
    const shape = await s.turn({ type: "response.create", input: "no model" });
    expect(shape[0]).toMatchObject({ type: "error", status_code: 400, error: { code: "invalid_request" } });
    const ok = await s.turn(create("still here"));
    expect(ok.at(-1)!.type).toBe("response.completed");
  });

  it("R26.3 a frame before the previous turn finished is refused (no interleaving); the running turn completes", async () => {
    sim.addFault("ws-key-a", { latencyMs: 600, times: 1 });
    sim.addFault("ws-key-b", { latencyMs: 600, times: 1 });
    const s = await socket();
    // The helper's turn resolves at the first error frame: the refusal of the early frame.
    const running = s.turn(create("slow one"));
    await new Promise((r) => setTimeout(r, 100));
    s.ws.send(JSON.stringify(create("too early")));
    const early = await running;
    expect(early.find((f) => f.type === "error")).toMatchObject({ status_code: 409, error: { code: "websocket_turn_in_progress" } });
    for (let i = 0; i < 60 && !s.frames.some((f) => f.type === "response.completed"); i++) await new Promise((r) => setTimeout(r, 50));
    // The running turn finished on its own; the early frame started nothing.
    expect(s.frames.filter((f) => f.type === "response.completed")).toHaveLength(1);
    expect(s.frames.filter((f) => f.type === "response.created")).toHaveLength(1);
    expect(outputText(s.frames.filter((f) => f.type !== "error"))).toMatch(/^Hello from wsim/);
  });

  it("R26.3 a binary frame closes the socket with 1003", async () => {
    const s = await socket();
    s.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    expect((await s.closed).code).toBe(1003);
  });

  it("R26.3 a frame over the body limit (maxBodyMb) closes the socket with 1009", async () => {
    await gw.api("PATCH", "/api/settings", { maxBodyMb: 1 });
    const s = await socket();
    s.ws.send(JSON.stringify(create("x".repeat(1_200_000))));
    expect((await s.closed).code).toBe(1009);
  });

  it("R26.1 with client keys required, a handshake without a valid key is a 401 before the upgrade; a valid key in X-Switchyard-Key upgrades", async () => {
    const key = (await gw.api<Json>("POST", "/api/keys", { name: "ws key" })).body.key as string;
    await gw.api("PATCH", "/api/settings", { requireClientKey: true });
    await expect(openSocket(gw.url)).rejects.toMatchObject({ status: 401 });
    await expect(openSocket(gw.url, "/v1/responses", { authorization: "Bearer sk-sy-wrong" })).rejects.toMatchObject({ status: 401 });
    const s = await socket("/v1/responses", { "x-switchyard-key": key });
    const frames = await s.turn(create("keyed"));
    expect(frames.at(-1)!.type).toBe("response.completed");
    const row = await newestRow();
    expect(row.apiKeyId).toEqual(expect.any(String));
  });

  it("R26.3 a client that vanishes mid-turn cancels the upstream attempt; the row says 499 and the gateway serves the next socket", async () => {
    sim.addFault("ws-key-a", { stallAfterChunks: 1, times: 1 });
    const s = await socket();
    s.ws.send(JSON.stringify(create("stall then vanish")));
    for (let i = 0; i < 50 && !s.frames.some((f) => f.type === "response.output_text.delta"); i++) await new Promise((r) => setTimeout(r, 50));
    s.ws.terminate();
    const row = await newestRow();
    expect(row).toMatchObject({ transport: "websocket", status: 499, errorCode: "client_closed_request" });
    const next = await socket();
    expect((await next.turn(create("after"))).at(-1)!.type).toBe("response.completed");
  });
});
