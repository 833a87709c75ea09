// R22.4: the simulator answers every client format, the Gemini routes included, so the demo works
// with every client. A `simulator` provider passes the client's format through, and the gateway's
// Gemini upstream path (`/models/{model}:{method}`) is relative to the provider's baseUrl, which for
// a simulator is its origin: the demo, the built-in simulator and a standalone simulator.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { parseSse, startGateway, startSim, type ApiResult, type TestGateway } from "../harness.js";

type Json = Record<string, any>;

const BODY = { contents: [{ role: "user", parts: [{ text: "hello from a Gemini client" }] }], systemInstruction: { parts: [{ text: "be brief" }] } };

let gw: TestGateway;
let sim: Simulator;

beforeAll(async () => {
  gw = await startGateway();
  sim = await startSim({ label: "standalone" });
  expect((await gw.api("POST", "/api/demo")).status).toBe(200);
  const builtin = await gw.api("POST", "/api/providers", { id: "builtin", format: "simulator", category: "local", models: ["sim-model"] });
  expect(builtin.status, builtin.text).toBe(201);
  expect((await gw.api("POST", "/api/connections", { id: "builtin-1", provider: "builtin", name: "only" })).status).toBe(201);
  const external = await gw.api("POST", "/api/providers", { id: "ext", format: "simulator", baseUrl: sim.url, category: "local", models: ["sim-model"] });
  expect(external.status, external.text).toBe(201);
  expect((await gw.api("POST", "/api/connections", { id: "ext-1", provider: "ext", name: "only", apiKey: "ext-key" })).status).toBe(201);
});

afterEach(() => {
  sim.requests.length = 0;
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

const textOf = (chunks: Json[]) =>
  chunks
    .flatMap((c) => c.candidates?.[0]?.content?.parts ?? [])
    .map((p: Json) => p.text ?? "")
    .join("");

function expectGeminiAnswer(r: ApiResult, chunks: Json[], reply: RegExp): void {
  expect(chunks.length, r.text).toBeGreaterThan(0);
  expect(textOf(chunks)).toMatch(reply);
  expect(chunks.at(-1)!.candidates[0].finishReason).toBe("STOP");
  expect(chunks.at(-1)!.usageMetadata).toMatchObject({ promptTokenCount: expect.any(Number), candidatesTokenCount: expect.any(Number), totalTokenCount: expect.any(Number) });
}

const SETUPS = [
  { name: "the demo", model: "demo", reply: /^Hello from simulated provider [AB] \(key demo-[ab]-\d\)$/ },
  { name: "the built-in simulator (no baseUrl)", model: "builtin%2Fsim-model", reply: /^Hello from built-in simulator/ },
  { name: "a standalone simulator as a `simulator` provider", model: "ext/sim-model", reply: /^Hello from standalone \(key ext-key\)$/ },
] as const;

describe.each(SETUPS)("Gemini clients against $name (R22.4)", ({ model, reply }) => {
  it(`R22.4 ${model} answers a Gemini generateContent with candidates and usageMetadata`, async () => {
    const r = await gw.post(`/v1beta/models/${model}:generateContent`, BODY);
    expect(r.status, r.text).toBe(200);
    expectGeminiAnswer(r, [r.body as Json], reply);
  });

  it(`R22.4 ${model} answers streamGenerateContent with alt=sse as SSE chunks`, async () => {
    const r = await gw.post(`/v1beta/models/${model}:streamGenerateContent?alt=sse`, BODY);
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const chunks = parseSse(r.text)
      .filter((e) => e.data.startsWith("{"))
      .map((e) => JSON.parse(e.data) as Json);
    expectGeminiAnswer(r, chunks, reply);
  });

  it(`R22.4 ${model} answers streamGenerateContent without alt=sse as a JSON array`, async () => {
    const r = await gw.post(`/v1/models/${model}:streamGenerateContent`, BODY);
    expect(r.status, r.text).toBe(200);
    expect(Array.isArray(r.body), r.text).toBe(true);
    expectGeminiAnswer(r, r.body as Json[], reply);
  });

  it(`R22.4 ${model} counts tokens exactly upstream (countTokens), not by the gateway's estimate`, async () => {
    const r = await gw.post(`/v1beta/models/${model}:countTokens`, BODY);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ totalTokens: expect.any(Number) });
    expect(r.headers.get("x-switchyard-token-count")).toBeNull();
  });
});

describe("the simulator's view of a Gemini client through a `simulator` provider (R22.4)", () => {
  it("R22.4 the request arrives in Gemini's own format at the simulator's bare-base Gemini routes, the model in the path", async () => {
    expect((await gw.post("/v1beta/models/ext/sim-model:streamGenerateContent?alt=sse", BODY)).status).toBe(200);
    expect((await gw.post("/v1beta/models/ext/sim-model:countTokens", BODY)).status).toBe(200);
    expect(sim.requests.map((q) => [q.path, q.format, q.model, q.key])).toEqual([
      ["/models/sim-model:streamGenerateContent", "gemini", "sim-model", "ext-key"],
      ["/models/sim-model:countTokens", "gemini", "sim-model", "ext-key"],
    ]);
    expect(sim.requests[0].body).toEqual(BODY);
  });

  it("R22.4 the demo still answers the other client formats", async () => {
    const chat = await gw.post("/v1/chat/completions", { model: "demo", messages: [{ role: "user", content: "hi" }] });
    expect(chat.status, chat.text).toBe(200);
    expect(chat.body.choices[0].message.content).toMatch(/^Hello from simulated provider/);
    const messages = await gw.post("/v1/messages", { model: "demo", max_tokens: 64, messages: [{ role: "user", content: "hi" }] }, { "anthropic-version": "2023-06-01" });
    expect(messages.status, messages.text).toBe(200);
    expect(messages.body.content[0].text).toMatch(/^Hello from simulated provider/);
    const responses = await gw.post("/v1/responses", { model: "demo", input: "hi" });
    expect(responses.status, responses.text).toBe(200);
    expect(responses.body.output_text ?? JSON.stringify(responses.body.output)).toMatch(/Hello from simulated provider/);
  });
});
