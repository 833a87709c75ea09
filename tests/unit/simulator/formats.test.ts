import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "undici";
import { startSimulator, type Simulator } from "../../../main/simulator/index.js";
import { jsonEvents, parseSse, post } from "./helpers.js";

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ label: "sim-a" });
});
afterAll(async () => {
  await sim.close();
});

const chat = { model: "gpt-test", messages: [{ role: "user", content: "Say hello to the whole wide world please" }] };

describe("OpenAI wire format", () => {
  it("R0.5 answers chat completions as JSON, echoing the model, with the key in text and x-sim-key", async () => {
    const res = await post(`${sim.url}/v1/chat/completions`, chat, { authorization: "Bearer key-1" });
    expect(res.status).toBe(200);
    expect(res.headers["x-sim-key"]).toBe("key-1");
    expect(res.headers["x-sim-label"]).toBe("sim-a");
    const body = JSON.parse(res.text);
    expect(body.object).toBe("chat.completion");
    expect(body.model).toBe("gpt-test");
    expect(body.choices[0].message).toEqual({ role: "assistant", content: "Hello from sim-a (key key-1)" });
    expect(body.choices[0].finish_reason).toBe("stop");
    expect(body.usage.prompt_tokens).toBe(Math.ceil(("user".length + chat.messages[0].content.length) / 4));
    expect(body.usage.completion_tokens).toBe(5);
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + 5);
  });

  it("R0.5 serves /chat/completions without /v1 for base URLs that include the version", async () => {
    const res = await post(`${sim.url}/chat/completions`, chat, { authorization: "Bearer key-2" });
    expect(JSON.parse(res.text).choices[0].message.content).toBe("Hello from sim-a (key key-2)");
  });

  it("R0.5 streams SSE chunks: role chunk, at least 3 content chunks, finish, usage chunk, [DONE]", async () => {
    const res = await post(`${sim.url}/v1/chat/completions`, { ...chat, stream: true, stream_options: { include_usage: true } }, { authorization: "Bearer key-3" });
    expect(res.headers["content-type"]).toBe("text/event-stream");
    const raw = parseSse(res.text);
    expect(raw[raw.length - 1].data).toBe("[DONE]");
    const events = jsonEvents(res.text);
    expect(events[0].choices[0].delta).toEqual({ role: "assistant", content: "" });
    const contents = events.filter((e) => e.choices[0]?.delta?.content).map((e) => e.choices[0].delta.content);
    expect(contents.length).toBeGreaterThanOrEqual(3);
    expect(contents.join("")).toBe("Hello from sim-a (key key-3)");
    const finish = events.find((e) => e.choices[0]?.finish_reason);
    expect(finish!.choices[0].finish_reason).toBe("stop");
    const last = events[events.length - 1];
    expect(last.choices).toEqual([]);
    expect(last.usage.completion_tokens).toBe(5);
    expect(events.every((e) => e.model === "gpt-test" && e.object === "chat.completion.chunk")).toBe(true);
  });

  it("R0.5 omits the usage chunk without stream_options.include_usage", async () => {
    const res = await post(`${sim.url}/v1/chat/completions`, { ...chat, stream: true });
    const events = jsonEvents(res.text);
    expect(events.some((e) => "usage" in e)).toBe(false);
    expect(parseSse(res.text).pop()!.data).toBe("[DONE]");
  });

  it("R0.5 lists models in the OpenAI format and answers GET/HEAD / with labelled text", async () => {
    const models = await request(`${sim.url}/v1/models`);
    const list = (await models.body.json()) as { object: string; data: { id: string }[] };
    expect(list.object).toBe("list");
    expect(list.data.map((m) => m.id)).toContain("sim-fast");
    const root = await request(`${sim.url}/`);
    expect(root.statusCode).toBe(200);
    expect(await root.body.text()).toContain("simulated");
    const head = await request(`${sim.url}/`, { method: "HEAD" });
    expect(head.statusCode).toBe(200);
    await head.body.dump();
  });

  it("R0.5 answers an unknown path with a 404 JSON error in the caller's format", async () => {
    const res = await post(`${sim.url}/v1/nope`, {});
    expect(res.status).toBe(404);
    expect(JSON.parse(res.text).error.type).toBe("invalid_request_error");
    const anth = await post(`${sim.url}/v1/messages/nope`, {});
    expect(JSON.parse(anth.text)).toMatchObject({ type: "error", error: { type: "not_found_error" } });
  });

  it("R0.5 rejects a body that is not JSON with a 400 in the request's format", async () => {
    const res = await request(`${sim.url}/v1/chat/completions`, { method: "POST", body: "{not json" });
    expect(res.statusCode).toBe(400);
    expect(((await res.body.json()) as { error: { code: string } }).error.code).toBe("invalid_request");
  });
});

describe("Anthropic wire format", () => {
  const msg = { model: "claude-test", max_tokens: 100, system: "Be brief", messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }] };

  it("R0.5 answers /v1/messages as JSON with x-api-key, usage and end_turn", async () => {
    const res = await post(`${sim.url}/v1/messages`, msg, { "x-api-key": "ak-1", "anthropic-version": "2023-06-01" });
    expect(res.headers["x-sim-key"]).toBe("ak-1");
    const body = JSON.parse(res.text);
    expect(body).toMatchObject({ type: "message", role: "assistant", model: "claude-test", stop_reason: "end_turn" });
    expect(body.content).toEqual([{ type: "text", text: "Hello from sim-a (key ak-1)" }]);
    expect(body.usage.input_tokens).toBeGreaterThan(0);
    expect(body.usage.output_tokens).toBe(5);
  });

  it("R0.5 streams the real Anthropic event sequence with a ping", async () => {
    const res = await post(`${sim.url}/v1/messages`, { ...msg, stream: true }, { "x-api-key": "ak-2" });
    const events = parseSse(res.text);
    expect(events.map((e) => e.event)).toEqual([
      "message_start",
      "content_block_start",
      "ping",
      ...Array(events.length - 6).fill("content_block_delta"),
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(events.length - 6).toBeGreaterThanOrEqual(3);
    for (const e of events) expect(JSON.parse(e.data).type).toBe(e.event);
    const parsed = events.map((e) => JSON.parse(e.data));
    expect(parsed[0].message.model).toBe("claude-test");
    const text = parsed
      .filter((p) => p.type === "content_block_delta")
      .map((p) => p.delta.text)
      .join("");
    expect(text).toBe("Hello from sim-a (key ak-2)");
    const delta = parsed.find((p) => p.type === "message_delta");
    expect(delta.delta.stop_reason).toBe("end_turn");
    expect(delta.usage.output_tokens).toBe(5);
  });

  it("R0.5 counts tokens at /v1/messages/count_tokens", async () => {
    const res = await post(`${sim.url}/v1/messages/count_tokens`, { model: "claude-test", messages: [{ role: "user", content: "x".repeat(400) }] });
    expect(JSON.parse(res.text)).toEqual({ input_tokens: 101 });
  });

  it("R0.5 lists models in the Anthropic format when anthropic-version is sent", async () => {
    const res = await request(`${sim.url}/v1/models`, { headers: { "anthropic-version": "2023-06-01" } });
    const body = (await res.body.json()) as { data: { type: string }[]; has_more: boolean };
    expect(body.data[0].type).toBe("model");
    expect(body.has_more).toBe(false);
  });
});

describe("Gemini wire format", () => {
  const gen = { contents: [{ role: "user", parts: [{ text: "Hi there" }] }] };

  it("R0.5 answers generateContent with the model from the path and x-goog-api-key", async () => {
    const res = await post(`${sim.url}/v1beta/models/gemini-test:generateContent`, gen, { "x-goog-api-key": "gk-1" });
    const body = JSON.parse(res.text);
    expect(body.candidates[0].content).toEqual({ parts: [{ text: "Hello from sim-a (key gk-1)" }], role: "model" });
    expect(body.candidates[0].finishReason).toBe("STOP");
    expect(body.modelVersion).toBe("gemini-test");
    expect(body.usageMetadata.candidatesTokenCount).toBe(5);
    expect(sim.requests.at(-1)).toMatchObject({ format: "gemini", model: "gemini-test", key: "gk-1", stream: false });
  });

  it("R0.5 streams streamGenerateContent?alt=sse with ?key= and a final STOP chunk with usage", async () => {
    const res = await post(`${sim.url}/v1beta/models/gemini-test:streamGenerateContent?alt=sse&key=gk-2`, gen);
    expect(res.headers["content-type"]).toBe("text/event-stream");
    expect(res.text).toContain("\r\n\r\n");
    const events = jsonEvents(res.text);
    const texts = events.map((e) => e.candidates[0].content.parts[0].text as string);
    expect(texts.filter((t) => t.length > 0).length).toBeGreaterThanOrEqual(3);
    expect(texts.join("")).toBe("Hello from sim-a (key gk-2)");
    const last = events.at(-1)!;
    expect(last.candidates[0].finishReason).toBe("STOP");
    expect(last.usageMetadata.totalTokenCount).toBeGreaterThan(5);
    expect(sim.requests.at(-1)).toMatchObject({ stream: true, key: "gk-2" });
  });

  it("R0.5 streams streamGenerateContent without alt=sse as a JSON array", async () => {
    const res = await post(`${sim.url}/v1beta/models/gemini-test:streamGenerateContent`, gen);
    const chunks = JSON.parse(res.text) as unknown[];
    expect(Array.isArray(chunks)).toBe(true);
    expect(chunks.length).toBeGreaterThanOrEqual(4);
  });
});

describe("request log", () => {
  it("R0.5 records every upstream request in order with path, format, key, stream and body", async () => {
    const local = await startSimulator({ recordLimit: 3 });
    try {
      for (let i = 0; i < 5; i++) await post(`${local.url}/v1/chat/completions`, { model: `m${i}`, messages: [] }, { authorization: `Bearer k${i}` });
      expect(local.requests.map((r) => r.model)).toEqual(["m2", "m3", "m4"]);
      const last = local.requests[2];
      expect(last).toMatchObject({ path: "/v1/chat/completions", format: "openai", key: "k4", stream: false });
      expect(last.body).toEqual({ model: "m4", messages: [] });
      expect(last.headers.authorization).toBe("Bearer k4");
      expect(typeof last.at).toBe("number");
    } finally {
      await local.close();
    }
  });

  it("R0.5 uses opts.replyText instead of the default greeting", async () => {
    const local = await startSimulator({ replyText: "one two three four" });
    try {
      const res = await post(`${local.url}/v1/chat/completions`, chat);
      expect(JSON.parse(res.text).choices[0].message.content).toBe("one two three four");
      expect(res.headers["x-sim-key"]).toBeUndefined();
    } finally {
      await local.close();
    }
  });
});
