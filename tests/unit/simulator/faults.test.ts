import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type FaultSpec, type Simulator } from "../../../main/simulator/index.js";
import { collect, jsonEvents, parseSse, post } from "./helpers.js";

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ label: "sim-f" });
});
afterAll(async () => {
  await sim.close();
});

const chat = { model: "m", messages: [{ role: "user", content: "hi" }] };
const streamChat = { ...chat, stream: true };
const anthropicStream = { model: "c", max_tokens: 10, stream: true, messages: [{ role: "user", content: "hi" }] };
const fault = (spec: FaultSpec): Record<string, string> => ({ "x-sim-fault": JSON.stringify(spec) });

describe("status faults", () => {
  it("R0.5 injects 429 with Retry-After chosen per request, in the OpenAI error format", async () => {
    const res = await post(`${sim.url}/v1/chat/completions`, chat, fault({ status: 429, retryAfter: 7, retryAfterMs: 7000 }));
    expect(res.status).toBe(429);
    expect(res.headers["retry-after"]).toBe("7");
    expect(res.headers["retry-after-ms"]).toBe("7000");
    expect(JSON.parse(res.text).error).toMatchObject({ type: "rate_limit_error", code: "rate_limit_exceeded" });
  });

  it("R4.3 sends extra rate-limit headers and Anthropic error bodies", async () => {
    const res = await post(`${sim.url}/v1/messages`, anthropicStream, fault({ status: 529, headers: { "anthropic-ratelimit-requests-reset": "2030-01-01T00:00:00Z" } }));
    expect(res.status).toBe(529);
    expect(res.headers["anthropic-ratelimit-requests-reset"]).toBe("2030-01-01T00:00:00Z");
    expect(JSON.parse(res.text)).toEqual({ type: "error", error: { type: "overloaded_error", message: "Overloaded (simulated)" } });
  });

  it("R12.1 sends Gemini error bodies and a raw RetryInfo body when given", async () => {
    const plain = await post(`${sim.url}/v1beta/models/g:generateContent`, { contents: [] }, fault({ status: 429 }));
    expect(JSON.parse(plain.text).error).toMatchObject({ code: 429, status: "RESOURCE_EXHAUSTED" });
    const retryInfo = JSON.stringify({
      error: { code: 429, status: "RESOURCE_EXHAUSTED", details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "33s" }] },
    });
    const res = await post(`${sim.url}/v1beta/models/g:generateContent`, { contents: [] }, fault({ status: 429, body: retryInfo }));
    expect(res.text).toBe(retryInfo);
    expect(res.headers["content-type"]).toBe("application/json");
  });

  it("R4.5 sends a raw text body such as a concurrency-limit message as text/plain", async () => {
    const res = await post(`${sim.url}/v1/chat/completions`, chat, fault({ status: 429, body: "too many concurrent requests" }));
    expect(res.status).toBe(429);
    expect(res.text).toBe("too many concurrent requests");
    expect(res.headers["content-type"]).toMatch(/^text\/plain/);
  });

  it("R12.2 sends a raw body with no status as a 200, as SSE for a streaming request", async () => {
    const raw = 'data: {"error":{"message":"inside the stream"}}\n\n';
    const res = await post(`${sim.url}/v1/chat/completions`, streamChat, fault({ body: raw }));
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/event-stream");
    expect(res.text).toBe(raw);
  });

  it("R0.5 rejects an invalid x-sim-fault header with 400", async () => {
    const bad = await post(`${sim.url}/v1/chat/completions`, chat, { "x-sim-fault": "{nope" });
    expect(bad.status).toBe(400);
    const wrongType = await post(`${sim.url}/v1/chat/completions`, chat, fault({ latencyMs: -1 }));
    expect(JSON.parse(wrongType.text).error.message).toContain("latencyMs");
  });
});

describe("transport faults", () => {
  it("R0.5 delays the response headers by latencyMs", async () => {
    const started = Date.now();
    const res = await post(`${sim.url}/v1/chat/completions`, chat, fault({ latencyMs: 150 }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(res.status).toBe(200);
  });

  it("R0.5 resets the connection without a response", async () => {
    await expect(post(`${sim.url}/v1/chat/completions`, chat, fault({ reset: true }))).rejects.toMatchObject({
      code: expect.stringMatching(/ECONNRESET|UND_ERR_SOCKET/),
    });
  });

  it("R13.3 closes the socket abruptly after N content chunks (resetAfterChunks)", async () => {
    const out = await collect(`${sim.url}/v1/chat/completions`, streamChat, fault({ resetAfterChunks: 2 }));
    expect(out.status).toBe(200);
    expect(out.error).not.toBeNull();
    expect(out.text).not.toContain("[DONE]");
    const events = jsonEvents(out.text);
    expect(events.filter((e) => e.choices[0]?.delta?.content).length).toBe(2);
  });
});

describe("stream faults", () => {
  it("R13.4 stalls after N content chunks and keeps the socket open (stallAfterChunks)", async () => {
    const out = await collect(`${sim.url}/v1/chat/completions`, streamChat, fault({ stallAfterChunks: 1 }), 400);
    expect(out.ended).toBe(false);
    expect((out.error as Error).name).toBe("AbortError");
    const events = jsonEvents(out.text);
    expect(events.filter((e) => e.choices[0]?.delta?.content).length).toBe(1);
    expect(events[0].choices[0].delta.role).toBe("assistant");
  });

  it("R13.2 sends only lifecycle frames then stalls (stallBeforeContent)", async () => {
    const out = await collect(`${sim.url}/v1/messages`, anthropicStream, fault({ stallBeforeContent: true }), 300);
    expect(out.ended).toBe(false);
    expect(parseSse(out.text).map((e) => e.event)).toEqual(["message_start", "content_block_start", "ping"]);
  });

  it("D13 ends a 200 stream with no events (emptyStream)", async () => {
    const out = await collect(`${sim.url}/v1/messages`, anthropicStream, fault({ emptyStream: true }));
    expect(out.status).toBe(200);
    expect(out.ended).toBe(true);
    expect(out.text).toBe("");
  });

  it("R0.5 trickles frames with trickleMs between them", async () => {
    const out = await collect(`${sim.url}/v1/chat/completions`, streamChat, fault({ trickleMs: 40 }));
    expect(out.ended).toBe(true);
    const frames = parseSse(out.text).length;
    expect(frames).toBeGreaterThanOrEqual(7);
    expect(out.pieces.at(-1)!.at - out.pieces[0].at).toBeGreaterThanOrEqual((frames - 2) * 40 - 20);
    expect(
      jsonEvents(out.text)
        .map((e) => e.choices[0]?.delta?.content ?? "")
        .join(""),
    ).toBe("Hello from sim-f (key none)");
  });

  it("D13 sends only Anthropic pings at pingEveryMs, never content", async () => {
    const out = await collect(`${sim.url}/v1/messages`, anthropicStream, fault({ pingEveryMs: 50 }), 400);
    const events = parseSse(out.text).map((e) => e.event);
    expect(events.slice(0, 2)).toEqual(["message_start", "content_block_start"]);
    expect(events.filter((e) => e === "ping").length).toBeGreaterThanOrEqual(4);
    expect(events).not.toContain("content_block_delta");
  });

  it("D13 sends SSE keep-alive comments for OpenAI at pingEveryMs", async () => {
    const out = await collect(`${sim.url}/v1/chat/completions`, streamChat, fault({ pingEveryMs: 50 }), 300);
    const events = parseSse(out.text);
    expect(events.filter((e) => e.comment).length).toBeGreaterThanOrEqual(3);
    expect(jsonEvents(out.text).some((e) => e.choices[0]?.delta?.content)).toBe(false);
  });

  it("R13.4 streams Anthropic thinking deltas for reasoningOnlyMs before the text", async () => {
    const out = await collect(`${sim.url}/v1/messages`, anthropicStream, fault({ reasoningOnlyMs: 250 }));
    expect(out.ended).toBe(true);
    const events = parseSse(out.text).map((e) => JSON.parse(e.data));
    expect(events[1]).toMatchObject({ type: "content_block_start", index: 0, content_block: { type: "thinking" } });
    const thinking = events.filter((e) => e.delta?.type === "thinking_delta");
    expect(thinking.length).toBeGreaterThanOrEqual(4);
    expect(events.some((e) => e.delta?.type === "signature_delta")).toBe(true);
    const textStart = events.findIndex((e) => e.type === "content_block_start" && e.index === 1);
    expect(events[textStart].content_block.type).toBe("text");
    expect(events.filter((e) => e.delta?.type === "text_delta").every((e) => e.index === 1)).toBe(true);
    const firstText = out.pieces.find((p) => p.text.includes("text_delta"))!;
    expect(firstText.at - out.pieces[0].at).toBeGreaterThanOrEqual(230);
  });

  it("R13.4 streams OpenAI reasoning_content and Gemini thought parts for reasoningOnlyMs", async () => {
    const oa = await collect(`${sim.url}/v1/chat/completions`, streamChat, fault({ reasoningOnlyMs: 120 }));
    expect(jsonEvents(oa.text).filter((e) => e.choices[0]?.delta?.reasoning_content).length).toBeGreaterThanOrEqual(2);
    const gm = await collect(`${sim.url}/v1beta/models/g:streamGenerateContent?alt=sse`, { contents: [] }, fault({ reasoningOnlyMs: 120 }));
    const parts = jsonEvents(gm.text).map((e) => e.candidates[0].content.parts[0]);
    expect(parts[0].thought).toBe(true);
    expect(parts.at(-1).thought).toBeUndefined();
  });
});

describe("fault selection", () => {
  it("R0.5 consumes a programmed fault after `times` requests", async () => {
    sim.addFault("k-times", { status: 429, times: 2 });
    const h = { authorization: "Bearer k-times" };
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(`${sim.url}/v1/chat/completions`, chat, h)).status);
    expect(statuses).toEqual([429, 429, 200]);
  });

  it("R0.5 keeps faults in a FIFO per key, separate from other keys and '*'", async () => {
    sim.addFault("k-fifo", { status: 500, times: 1 });
    sim.addFault("k-fifo", { status: 503, times: 1 });
    sim.addFault("*", { status: 401, times: 1 });
    const a = { authorization: "Bearer k-fifo" };
    expect((await post(`${sim.url}/v1/chat/completions`, chat, a)).status).toBe(500);
    expect((await post(`${sim.url}/v1/messages`, anthropicStream, { "x-api-key": "k-other" })).status).toBe(401);
    expect((await post(`${sim.url}/v1/chat/completions`, chat, a)).status).toBe(503);
    expect((await post(`${sim.url}/v1/chat/completions`, chat, a)).status).toBe(200);
  });

  it("R0.5 lets x-sim-fault take precedence without consuming the key's FIFO", async () => {
    sim.addFault("k-prec", { status: 500, times: 1 });
    const h = { authorization: "Bearer k-prec" };
    expect((await post(`${sim.url}/v1/chat/completions`, chat, { ...h, ...fault({ status: 418 }) })).status).toBe(418);
    expect((await post(`${sim.url}/v1/chat/completions`, chat, h)).status).toBe(500);
    expect((await post(`${sim.url}/v1/chat/completions`, chat, h)).status).toBe(200);
  });

  it("R0.5 keeps a fault without `times` until cleared, per key or all", async () => {
    sim.addFault("k-sticky", { status: 502 });
    sim.addFault("k-sticky2", { status: 502 });
    const h = { authorization: "Bearer k-sticky" };
    const h2 = { authorization: "Bearer k-sticky2" };
    expect((await post(`${sim.url}/v1/chat/completions`, chat, h)).status).toBe(502);
    expect((await post(`${sim.url}/v1/chat/completions`, chat, h)).status).toBe(502);
    sim.clearFaults("k-sticky");
    expect((await post(`${sim.url}/v1/chat/completions`, chat, h)).status).toBe(200);
    expect((await post(`${sim.url}/v1/chat/completions`, chat, h2)).status).toBe(502);
    sim.clearFaults();
    expect((await post(`${sim.url}/v1/chat/completions`, chat, h2)).status).toBe(200);
  });

  it("R0.5 applies opts.defaultFault when no header or programmed fault applies", async () => {
    const local = await startSimulator({ defaultFault: { status: 503, retryAfter: 2 } });
    try {
      local.addFault("good", { status: 200 });
      const bad = await post(`${local.url}/v1/chat/completions`, chat);
      expect(bad.status).toBe(503);
      expect(bad.headers["retry-after"]).toBe("2");
      expect((await post(`${local.url}/v1/chat/completions`, chat, { authorization: "Bearer good" })).status).toBe(200);
    } finally {
      await local.close();
    }
  });
});

describe("tool-limit fault", () => {
  const tools = (n: number) => Array.from({ length: n }, (_, i) => ({ type: "function", function: { name: `t${i}` } }));

  it("R11.7 maxTools refuses a request with more tools with a 400 'too many tools' error in the request's format, and serves one within it", async () => {
    const over = await post(`${sim.url}/v1/chat/completions`, { ...chat, tools: tools(40) }, fault({ maxTools: 32 }));
    expect(over.status).toBe(400);
    expect(JSON.parse(over.text).error.message).toMatch(/too many tools.*maximum number of tools is 32, got 40/i);
    const at = await post(`${sim.url}/v1/chat/completions`, { ...chat, tools: tools(32) }, fault({ maxTools: 32 }));
    expect(at.status).toBe(200);
    const ant = await post(
      `${sim.url}/v1/messages`,
      { model: "c", max_tokens: 5, messages: [{ role: "user", content: "hi" }], tools: tools(3).map((t) => ({ name: t.function.name, input_schema: { type: "object" } })) },
      fault({ maxTools: 2 }),
    );
    expect(ant.status).toBe(400);
    expect(JSON.parse(ant.text)).toMatchObject({ type: "error", error: { message: expect.stringMatching(/too many tools/i) } });
  });

  it("R11.7 maxTools counts Gemini function declarations, not tool groups", async () => {
    const body = { contents: [{ role: "user", parts: [{ text: "hi" }] }], tools: [{ functionDeclarations: [{ name: "a" }, { name: "b" }, { name: "c" }] }] };
    const over = await post(`${sim.url}/v1beta/models/g:generateContent`, body, fault({ maxTools: 2 }));
    expect(over.status).toBe(400);
    const within = await post(`${sim.url}/v1beta/models/g:generateContent`, body, fault({ maxTools: 3 }));
    expect(within.status).toBe(200);
  });
});
