// The Gemini-native client routes over real HTTP (issue 23): model names in the path, the three
// ways a key arrives, SSE and the streamed JSON array, countTokens, the model list, errors with
// RetryInfo, keep-alives, invisible failover and mid-stream continuation for Gemini clients.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, parseSse, startGateway, startSim, type TestGateway } from "../harness.js";

type Json = Record<string, any>;

const ANSWER = "The quick brown fox jumps over the lazy dog";
const BODY = { contents: [{ role: "user", parts: [{ text: "hello" }] }], systemInstruction: { parts: [{ text: "be brief" }] } };

let gw: TestGateway;
let sim: Simulator;

beforeAll(async () => {
  sim = await startSim({ label: "gem", replyText: ANSWER });
  // Keep-alives every 300 ms, so a slow upstream shows them within the test.
  gw = await startGateway({ env: { SWITCHYARD_STREAM_HEARTBEAT_MS: "300" } });
  await addProvider(gw, "chat", sim, "openai", ["kc"]);
  await addProvider(gw, "ant", sim, "anthropic", ["ka1", "ka2"]);
  await addProvider(gw, "resp", sim, "openai-responses", ["kr"]);
  await addProvider(gw, "gem", sim, "gemini", ["kg"], { modelInfo: { m1: { contextWindow: 32_000 } } });
  await addProvider(gw, "brk", sim, "openai", ["kb"]);
  expect((await gw.api("POST", "/api/combos", { name: "g-combo", strategy: "priority", targets: [{ model: "brk/m1" }, { model: "ant/m1" }] })).status).toBe(201);
  expect((await gw.api("PATCH", "/api/settings", { aliases: { "gemini-2.5-pro": "chat/m1" } })).status).toBe(200);
});

afterEach(async () => {
  sim.requests.length = 0;
  await gw.api("POST", "/api/resilience/cooldowns", { all: true });
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

const textOf = (chunks: Json[]) =>
  chunks
    .flatMap((c) => c.candidates?.[0]?.content?.parts ?? [])
    .filter((p: Json) => !p.thought)
    .map((p: Json) => p.text ?? "")
    .join("");
const sseChunks = (text: string) =>
  parseSse(text)
    .filter((e) => e.data.startsWith("{"))
    .map((e) => JSON.parse(e.data) as Json);

describe("routes and model names (R17.1)", () => {
  it("R17.1 generateContent reaches every upstream format, the model named as provider/model with %2F or a literal slash, an alias, or models/ first", async () => {
    for (const [path, key] of [
      ["/v1beta/models/chat%2Fm1:generateContent", "kc"],
      ["/v1beta/models/ant/m1:generateContent", "ka1"],
      ["/v1/models/resp/m1:generateContent", "kr"],
      ["/v1beta/models/models/gem/m1:generateContent", "kg"],
      ["/v1beta/models/gemini-2.5-pro:generateContent", "kc"],
    ] as const) {
      const r = await gw.post(path, BODY);
      expect(r.status, `${path}: ${r.text}`).toBe(200);
      expect(textOf([r.body])).toBe(ANSWER);
      expect(r.body.candidates[0].finishReason).toBe("STOP");
      expect(r.body.usageMetadata.totalTokenCount).toEqual(expect.any(Number));
      expect(sim.requests.at(-1)!.key).toBe(key);
    }
    // A Gemini upstream gets the body as sent: no model or stream field, the model in its path.
    const upstream = sim.requests.find((q) => q.key === "kg")!;
    expect(upstream.path).toBe("/v1beta/models/m1:generateContent");
    expect(upstream.body).toEqual(BODY);
  });

  it("R17.1 the key comes as x-goog-api-key, ?key= or Bearer under requireClientKey; without one the answer is a Gemini 401", async () => {
    const created = await gw.api("POST", "/api/keys", { name: "gemini-client" });
    expect(created.status).toBe(201);
    const key = created.body.key as string;
    expect((await gw.api("PATCH", "/api/settings", { requireClientKey: true })).status).toBe(200);
    try {
      const refused = await gw.post("/v1beta/models/chat%2Fm1:generateContent", BODY);
      expect(refused.status).toBe(401);
      expect(refused.body.error).toMatchObject({ code: 401, status: "UNAUTHENTICATED" });
      expect((await gw.post("/v1beta/models/chat%2Fm1:generateContent", BODY, { "x-goog-api-key": key })).status).toBe(200);
      expect((await gw.post(`/v1beta/models/chat%2Fm1:generateContent?key=${key}`, BODY)).status).toBe(200);
      expect((await gw.post("/v1beta/models/chat%2Fm1:generateContent", BODY, { authorization: `Bearer ${key}` })).status).toBe(200);
      expect((await fetch(`${gw.url}/v1beta/models?key=${key}`)).status).toBe(200);
    } finally {
      await gw.api("PATCH", "/api/settings", { requireClientKey: false });
    }
  });

  it("R17.1 streamGenerateContent answers SSE with alt=sse and a streamed JSON array without it", async () => {
    const sse = await gw.post("/v1beta/models/ant%2Fm1:streamGenerateContent?alt=sse", BODY);
    expect(sse.headers.get("content-type")).toContain("text/event-stream");
    const chunks = sseChunks(sse.text);
    expect(chunks.length).toBeGreaterThan(2);
    expect(textOf(chunks)).toBe(ANSWER);
    expect(chunks.at(-1)!.candidates[0].finishReason).toBe("STOP");

    const array = await gw.post("/v1beta/models/ant%2Fm1:streamGenerateContent", BODY);
    expect(array.headers.get("content-type")).toContain("application/json");
    expect(Array.isArray(array.body)).toBe(true);
    expect((array.body as Json[]).length).toBe(chunks.length);
    expect(textOf(array.body as Json[])).toBe(ANSWER);
    expect((array.body as Json[]).every((c) => c.modelVersion === "ant/m1")).toBe(true);
  });

  it("R17.1 countTokens counts exactly through a Gemini upstream and estimates for other formats", async () => {
    const exact = await gw.post("/v1beta/models/gem%2Fm1:countTokens", BODY);
    expect(exact.body).toEqual({ totalTokens: expect.any(Number) });
    expect(exact.headers.get("x-switchyard-token-count")).toBeNull();
    expect(sim.requests.at(-1)!.path).toBe("/v1beta/models/m1:countTokens");
    const estimate = await gw.post("/v1beta/models/chat%2Fm1:countTokens", BODY);
    expect(estimate.body).toEqual({ totalTokens: expect.any(Number) });
    expect(estimate.headers.get("x-switchyard-token-count")).toBe("estimate");
  });

  it("R17.1 GET /v1beta/models lists every name in Google's shape; GET …/models/{model} reads one, with modelInfo's window", async () => {
    const list = (await (await fetch(`${gw.url}/v1beta/models`)).json()) as Json;
    const names = (list.models as Json[]).map((m) => m.name);
    expect(names).toEqual(expect.arrayContaining(["models/chat/m1", "models/gem/m1", "models/g-combo", "models/gemini-2.5-pro"]));
    const one = (await (await fetch(`${gw.url}/v1beta/models/gem%2Fm1`)).json()) as Json;
    expect(one).toMatchObject({ name: "models/gem/m1", inputTokenLimit: 32_000, supportedGenerationMethods: expect.arrayContaining(["generateContent", "countTokens"]) });
    const missing = await fetch(`${gw.url}/v1beta/models/nope`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as Json).error.status).toBe("NOT_FOUND");
    // /v1/models/{model} is OpenAI's retrieve too: Google's shape only for a Gemini key.
    expect(((await (await fetch(`${gw.url}/v1/models/chat/m1`)).json()) as Json).object).toBe("model");
    expect(((await (await fetch(`${gw.url}/v1/models/chat/m1`, { headers: { "x-goog-api-key": "x" } })).json()) as Json).name).toBe("models/chat/m1");
  });
});

describe("errors and streams (R17.3, R17.4)", () => {
  it("R17.3 an unknown model and a malformed body are Gemini errors; nothing goes upstream", async () => {
    const unknown = await gw.post("/v1beta/models/nope%2Fx:generateContent", BODY);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 404, status: "NOT_FOUND", details: [expect.objectContaining({ reason: "model_not_found", domain: "switchyard" })] });
    const bad = await gw.post("/v1beta/models/chat%2Fm1:generateContent", { contents: [] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.status).toBe("INVALID_ARGUMENT");
    expect(sim.requests).toHaveLength(0);
  });

  it("R17.3 a final 429 carries RetryInfo with the wait, beside the ErrorInfo reason, so the CLI backs off as against Google", async () => {
    sim.addFault("kr", { status: 429, retryAfter: 7, times: 1 });
    const r = await gw.post("/v1beta/models/resp%2Fm1:generateContent", BODY);
    expect(r.status).toBe(429);
    expect(r.body.error.status).toBe("RESOURCE_EXHAUSTED");
    const retry = (r.body.error.details as Json[]).find((d) => d["@type"] === "type.googleapis.com/google.rpc.RetryInfo");
    expect(retry?.retryDelay).toMatch(/^\d+s$/);
    expect(Number(retry!.retryDelay.slice(0, -1))).toBe(Number(r.headers.get("retry-after")));
    expect((r.body.error.details as Json[]).find((d) => d["@type"] === "type.googleapis.com/google.rpc.ErrorInfo")?.domain).toBe("switchyard");
  });

  it("R17.4 while a slow upstream has sent nothing, a Gemini client gets bare newlines, never an SSE comment", async () => {
    sim.addFault("kc", { latencyMs: 1_200, times: 1 });
    const r = await gw.post("/v1beta/models/chat%2Fm1:streamGenerateContent?alt=sse", BODY);
    expect(r.text.startsWith("\n")).toBe(true);
    expect(r.text).not.toContain(": keep-alive");
    expect(textOf(sseChunks(r.text))).toBe(ANSWER);
  });

  it("R17.4 an empty stream before content fails over invisibly: one answer, from the combo's next target", async () => {
    sim.addFault("kb", { emptyStream: true, times: 1 });
    const r = await gw.post("/v1beta/models/g-combo:streamGenerateContent?alt=sse", BODY);
    expect(r.status).toBe(200);
    expect(r.headers.get("x-switchyard-attempts")).toBe("2");
    expect(textOf(sseChunks(r.text))).toBe(ANSWER);
    expect(sim.requests.map((q) => q.key)).toEqual(["kb", "ka1"]);
  });

  it("R17.4 with mid-stream continuation on, a Gemini client reads the whole answer once after a break, the rest asked with the text so far", async () => {
    expect((await gw.api("PATCH", "/api/resilience", { streamRecovery: { midstreamEnabled: true } })).status).toBe(200);
    try {
      sim.addFault("ka1", { resetAfterChunks: 2, times: 1 });
      const r = await gw.post("/v1beta/models/ant%2Fm1:streamGenerateContent?alt=sse", BODY);
      expect(textOf(sseChunks(r.text))).toBe(ANSWER);
      expect(r.text).not.toMatch(/"error"/);
      expect(sim.requests.map((q) => q.key)).toEqual(["ka1", "ka2"]);
      const prefill = (sim.requests[1].body as Json).messages.at(-1);
      expect(prefill.role).toBe("assistant");
      const said = typeof prefill.content === "string" ? prefill.content : (prefill.content as Json[]).map((b) => b.text).join("");
      expect(said).toBe("The quick");
    } finally {
      await gw.api("PATCH", "/api/resilience", { streamRecovery: { midstreamEnabled: false } });
    }
  });

  it("R17.4 a break after content without continuation ends the JSON array with an error element and closes it", async () => {
    sim.addFault("kc", { resetAfterChunks: 2, times: 1 });
    const r = await gw.post("/v1beta/models/chat%2Fm1:streamGenerateContent", BODY);
    const chunks = JSON.parse(r.text) as Json[];
    expect(textOf(chunks)).toBe("The quick");
    expect(chunks.at(-1)!.error).toMatchObject({ status: expect.any(String) });
  });
});
