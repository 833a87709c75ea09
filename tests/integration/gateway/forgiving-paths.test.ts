// R25.7: a client given the bare origin where it wanted `<origin>/v1` still works. `POST
// /chat/completions`, `/messages`, `/messages/count_tokens`, `/responses` and `GET /models` are
// served as with `/v1`; anything else under those roots stays a 404 in the format the path implies.
// The AI SDK's OpenAI and Anthropic providers (installed in tests/clients) are driven with the bare
// origin for real: the Anthropic one posts `<baseURL>/messages`, which was a 404 before R25.7.
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, streamText } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, parseSse, startGateway, startSim, type TestGateway } from "../harness.js";

type Json = Record<string, any>;

let gw: TestGateway;
let sim: Simulator;

beforeAll(async () => {
  sim = await startSim({ label: "forgiving" });
  gw = await startGateway();
  await addProvider(gw, "oa", sim, "openai", ["k-oa"]);
  await addProvider(gw, "an", sim, "anthropic", ["k-an"]);
  await addProvider(gw, "rs", sim, "openai-responses", ["k-rs"]);
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: Json; text: string }> {
  const r = await fetch(gw.url + path, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  let parsed: Json = {};
  try {
    parsed = JSON.parse(text) as Json;
  } catch {
    // SSE stays text
  }
  return { status: r.status, headers: r.headers, body: parsed, text };
}

const ANTHROPIC = { "x-api-key": "placeholder", "anthropic-version": "2023-06-01" };

describe("R25.7 client paths without /v1", () => {
  it("R25.7 POST /chat/completions is served as /v1/chat/completions, JSON and SSE", async () => {
    const json = await call("POST", "/chat/completions", { model: "oa/m1", messages: [{ role: "user", content: "hi" }] });
    expect(json.status).toBe(200);
    expect(json.body.object).toBe("chat.completion");
    expect(json.headers.get("x-switchyard-request-id")).toBeTruthy();
    const sse = await call("POST", "/chat/completions", { model: "oa/m1", stream: true, messages: [{ role: "user", content: "hi" }] });
    expect(sse.status).toBe(200);
    expect(sse.text.trim().endsWith("data: [DONE]")).toBe(true);
  });

  it("R25.7 POST /messages and /messages/count_tokens are served as their /v1 paths", async () => {
    const msg = await call("POST", "/messages", { model: "an/m1", max_tokens: 32, messages: [{ role: "user", content: "hi" }] }, ANTHROPIC);
    expect(msg.status).toBe(200);
    expect(msg.body).toMatchObject({ type: "message", role: "assistant" });
    const count = await call("POST", "/messages/count_tokens", { model: "an/m1", messages: [{ role: "user", content: "hi" }] }, ANTHROPIC);
    expect(count.status).toBe(200);
    expect(typeof count.body.input_tokens).toBe("number");
    const logs = await gw.api("GET", "/api/logs?limit=5");
    const counted = (logs.body as Json[]).find((row) => row.id === count.headers.get("x-switchyard-request-id"));
    expect(counted?.trafficClass).toBe("count");
  });

  it("R25.7 POST /responses is served as /v1/responses", async () => {
    const r = await call("POST", "/responses", { model: "rs/m1", input: "hi" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ object: "response", status: "completed" });
  });

  it("R25.7 GET /models is GET /v1/models, each format's shaping included", async () => {
    const prefixed = await call("GET", "/v1/models");
    const bare = await call("GET", "/models");
    expect(bare.status).toBe(200);
    expect(bare.body).toEqual(prefixed.body);
    expect(bare.body.data.map((m: Json) => m.id)).toContain("oa/m1");
    // Google's shape on the same path when the request carries a Gemini key (R17.1).
    const gemini = await call("GET", "/models", undefined, { "x-goog-api-key": "g" });
    expect(gemini.status).toBe(200);
    expect(Array.isArray(gemini.body.models)).toBe(true);
  });

  it("R25.7 anything else under those roots is a 404 in the format the path implies, with a log row", async () => {
    const anthropic = await call("POST", "/messages/batches", {}, ANTHROPIC);
    expect(anthropic.status).toBe(404);
    expect(anthropic.body).toMatchObject({ type: "error", error: { type: "not_found_error" } });
    const responses = await call("POST", "/responses/compact", { model: "rs/m1", input: "x" });
    expect(responses.status).toBe(404);
    expect(responses.body.error).toMatchObject({ code: "not_found" });
    const openai = await call("GET", "/chat/completions");
    expect(openai.status).toBe(404);
    expect(openai.body.error).toMatchObject({ code: "not_found" });
    const logs = await gw.api("GET", "/api/logs?limit=10");
    const ids = (logs.body as Json[]).map((row) => row.id);
    expect(ids).toContain(anthropic.headers.get("x-switchyard-request-id"));
  });

  it("R25.7 the AI SDK's OpenAI provider given the bare origin: chat and Responses, generate and stream", async () => {
    const openai = createOpenAI({ baseURL: gw.url, apiKey: "x" });
    const chat = await generateText({ model: openai.chat("oa/m1"), prompt: "Say hello", maxRetries: 0 });
    expect(chat.text.length).toBeGreaterThan(0);
    const responses = await generateText({ model: openai("rs/m1"), prompt: "Say hello", maxRetries: 0 });
    expect(responses.text.length).toBeGreaterThan(0);
    const streamed = streamText({ model: openai.chat("an/m1"), prompt: "Say hello", maxRetries: 0 });
    expect((await streamed.text).length).toBeGreaterThan(0);
  });

  it("R25.7 the AI SDK's Anthropic provider given the bare origin: generate and stream, logged as /messages", async () => {
    const anthropic = createAnthropic({ baseURL: gw.url, apiKey: "x" });
    const generated = await generateText({ model: anthropic("oa/m2"), prompt: "Say hello", maxRetries: 0 });
    expect(generated.text.length).toBeGreaterThan(0);
    const streamed = streamText({ model: anthropic("an/m2"), prompt: "Say hello", maxRetries: 0 });
    expect((await streamed.text).length).toBeGreaterThan(0);
    const logs = await gw.api("GET", "/api/logs?limit=5");
    const rows = logs.body as Json[];
    expect(rows.filter((row) => row.status === 200 && row.clientFormat === "anthropic").length).toBeGreaterThanOrEqual(2);
  });

  it("R25.7 the AI SDK's Anthropic provider's request with a bare-origin baseURL (POST <origin>/messages), JSON and SSE", async () => {
    const headers = { ...ANTHROPIC, "user-agent": "ai-sdk/anthropic" };
    const json = await call("POST", "/messages", { model: "oa/m2", max_tokens: 64, messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] }, headers);
    expect(json.status).toBe(200);
    expect(json.body.content[0]).toMatchObject({ type: "text" });
    const sse = await call("POST", "/messages", { model: "an/m2", max_tokens: 64, stream: true, messages: [{ role: "user", content: "hi" }] }, headers);
    expect(sse.status).toBe(200);
    expect(parseSse(sse.text).map((e) => e.event)).toContain("message_stop");
  });
});
