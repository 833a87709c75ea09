// The Google GenAI SDK (@google/genai 3.3.0, `httpOptions.baseUrl` at Switchyard's origin) against
// the Gemini-native routes (issue 23; R17.1, R17.2, R17.3), served from OpenAI Chat, Anthropic
// and OpenAI Responses upstreams (the simulator).
//
// Measured with @google/genai 3.3.0 (see the assertions): its default API version is v1, so every
// call goes to `/v1/models/…` (`/v1beta/models/…` with `httpOptions.apiVersion: "v1beta"`), with the key in `x-goog-api-key`; its `user-agent` and `x-goog-api-client` are both
// `google-genai-sdk/3.3.0 gl-node/v20.x`. It retries nothing unless `retryOptions` is set, and a
// non-2xx answer becomes an `ApiError` whose `status` is the HTTP status and whose `message` is the
// JSON text of the error body.
import { ApiError, GoogleGenAI, Type, type FunctionCall, type GenerateContentResponse } from "@google/genai";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { startRecordingProxy, type RecordingProxy } from "../../fixtures/clients/recordingProxy.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../harness.js";

type Json = Record<string, any>;

const SDK_VERSION = "3.3.0";
const LABEL = "genai-sdk-upstream";
const CLIENT_KEY = "genai-client-key";

interface Upstream {
  format: "openai" | "anthropic" | "openai-responses";
  provider: string;
  model: string;
  /** The route the simulator sees. */
  route: string;
  /** A name the SDK uses for it, aliased in Switchyard. */
  alias: string;
}

const UPSTREAMS: Upstream[] = [
  { format: "openai", provider: "gs-openai", model: "gpt-sim", route: "/v1/chat/completions", alias: "gemini-sdk-openai" },
  { format: "anthropic", provider: "gs-anthropic", model: "claude-sim", route: "/v1/messages", alias: "gemini-sdk-anthropic" },
  { format: "openai-responses", provider: "gs-responses", model: "codex-sim", route: "/v1/responses", alias: "gemini-sdk-responses" },
];

const keyOf = (provider: string) => `${provider}-key`;
const LIMITED_COMBO = "gs-limited";

const WEATHER_TOOL = {
  functionDeclarations: [
    {
      name: "get_weather",
      description: "The weather in a city",
      parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ["city"] },
    },
  ],
};

let gw: TestGateway;
let sim: Simulator;
let proxy: RecordingProxy;
let ai: GoogleGenAI;

function errorBody(err: unknown): Json {
  expect(err).toBeInstanceOf(ApiError);
  return JSON.parse((err as ApiError).message) as Json;
}

async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected the call to fail");
}

beforeAll(async () => {
  sim = await startSim({ label: LABEL });
  gw = await startGateway();
  const aliases: Record<string, string> = {};
  for (const u of UPSTREAMS) {
    await addProvider(gw, u.provider, sim, u.format, [keyOf(u.provider)], { models: [u.model] });
    aliases[u.alias] = `${u.provider}/${u.model}`;
  }
  // Two targets kept only for the "every target answers 429" test.
  await addProvider(gw, "gs-lim-a", sim, "openai", [keyOf("gs-lim-a")], { models: ["gpt-sim"] });
  await addProvider(gw, "gs-lim-b", sim, "anthropic", [keyOf("gs-lim-b")], { models: ["claude-sim"] });
  const combo = await gw.api("POST", "/api/combos", { name: LIMITED_COMBO, targets: [{ model: "gs-lim-a/gpt-sim" }, { model: "gs-lim-b/claude-sim" }] });
  expect(combo.status, combo.text).toBe(201);
  const settings = await gw.api("PATCH", "/api/settings", { aliases });
  expect(settings.status, settings.text).toBe(200);
  proxy = await startRecordingProxy(gw.url);
  ai = new GoogleGenAI({ apiKey: CLIENT_KEY, httpOptions: { baseUrl: proxy.url } });
});

afterEach(() => {
  proxy.exchanges.length = 0;
  sim.requests.length = 0;
});

afterAll(async () => {
  await proxy?.close();
  await gw?.close();
  await sim?.close();
});

describe("the GenAI SDK's requests", () => {
  it("R17.1 generateContent goes to /v1/models/<model>:generateContent (the SDK's default API version) with x-goog-api-key and the SDK's own user-agent and x-goog-api-client", async () => {
    const u = UPSTREAMS[0];
    await ai.models.generateContent({ model: u.alias, contents: "hello" });
    expect(proxy.exchanges).toHaveLength(1);
    const x = proxy.exchanges[0];
    expect(`${x.method} ${x.url}`).toBe(`POST /v1/models/${u.alias}:generateContent`);
    expect(x.headers["x-goog-api-key"]).toBe(CLIENT_KEY);
    expect(x.headers["user-agent"]).toMatch(new RegExp(`^google-genai-sdk/${SDK_VERSION.replace(/\./g, "\\.")} gl-node/v\\d+`));
    expect(x.headers["x-goog-api-client"]).toBe(x.headers["user-agent"]);
    const logs = await gw.api("GET", "/api/logs?limit=1");
    expect(logs.body[0]).toMatchObject({ clientFormat: "gemini", clientKind: "genai-sdk", model: u.alias, status: 200 });
  });

  it("R17.1 a provider/model name goes into the path with its slash literal and is served", async () => {
    const u = UPSTREAMS[1];
    const r = await ai.models.generateContent({ model: `${u.provider}/${u.model}`, contents: "hello" });
    expect(proxy.exchanges[0].url).toBe(`/v1/models/${u.provider}/${u.model}:generateContent`);
    expect(r.text).toBe(`Hello from ${LABEL} (key ${keyOf(u.provider)})`);
  });
});

describe.each(UPSTREAMS)("the GenAI SDK through Switchyard to an $format upstream", (u) => {
  it("R17.2 models.generateContent: text, finishReason and usageMetadata", async () => {
    const r = await ai.models.generateContent({
      model: u.alias,
      contents: [{ role: "user", parts: [{ text: "hello there" }] }],
      config: { systemInstruction: "Be brief.", temperature: 0.2, maxOutputTokens: 64 },
    });
    expect(r.text).toBe(`Hello from ${LABEL} (key ${keyOf(u.provider)})`);
    expect(r.candidates?.[0]?.finishReason).toBe("STOP");
    expect(r.usageMetadata).toMatchObject({ promptTokenCount: expect.any(Number), candidatesTokenCount: expect.any(Number), totalTokenCount: expect.any(Number) });
    expect(r.usageMetadata!.candidatesTokenCount).toBeGreaterThan(0);
    expect(r.usageMetadata!.totalTokenCount).toBe(r.usageMetadata!.promptTokenCount! + r.usageMetadata!.candidatesTokenCount! + (r.usageMetadata!.thoughtsTokenCount ?? 0));

    const upstream = sim.requests.filter((q) => q.path === u.route);
    expect(upstream).toHaveLength(1);
    const body = upstream[0].body as Json;
    expect(body.model).toBe(u.model);
    expect(JSON.stringify(body)).toContain("Be brief.");
    expect(JSON.stringify(body)).toContain("hello there");
  });

  it("R17.2 models.generateContentStream with a function declaration: the chunks carry the functionCall; a functionResponse turn gets text", async () => {
    const contents: Json[] = [{ role: "user", parts: [{ text: "Please use tool get_weather" }] }];
    const stream = await ai.models.generateContentStream({ model: u.alias, contents, config: { tools: [WEATHER_TOOL] } });
    const chunks: GenerateContentResponse[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(0);
    const calls: FunctionCall[] = chunks.flatMap((c) => c.functionCalls ?? []);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ name: "get_weather", args: { city: "sim" } });
    expect(chunks.at(-1)!.candidates?.[0]?.finishReason).toBe("STOP");
    expect(proxy.exchanges[0].url).toBe(`/v1/models/${u.alias}:streamGenerateContent?alt=sse`);

    const first = sim.requests.filter((q) => q.path === u.route).at(-1)!.body as Json;
    expect(first.stream).toBe(true);
    expect(JSON.stringify(first.tools)).toContain("get_weather");

    // The second turn: the model's call (with its part as it came, signature and all) and the result.
    const modelParts = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []).filter((p) => p.functionCall);
    contents.push({ role: "model", parts: modelParts });
    contents.push({ role: "user", parts: [{ functionResponse: { id: calls[0].id, name: "get_weather", response: { output: "sunny, 21 C" } } }] });
    const second = await ai.models.generateContentStream({ model: u.alias, contents, config: { tools: [WEATHER_TOOL] } });
    let text = "";
    for await (const chunk of second) text += chunk.text ?? "";
    expect(text).toBe("Tool result received: sunny, 21 C");

    const back = sim.requests.filter((q) => q.path === u.route).at(-1)!.body as Json;
    const wire = JSON.stringify(back);
    expect(wire).toContain("get_weather");
    expect(wire).toContain("sunny, 21 C");
  });

  it("R17.1 models.countTokens answers totalTokens", async () => {
    const r = await ai.models.countTokens({ model: u.alias, contents: "How many tokens is this sentence?" });
    expect(r.totalTokens).toEqual(expect.any(Number));
    expect(r.totalTokens).toBeGreaterThan(0);
    expect(proxy.exchanges[0].url).toBe(`/v1/models/${u.alias}:countTokens`);
  });
});

describe("the GenAI SDK: models and errors", () => {
  it("R17.1 models.list on the SDK's default /v1 with x-goog-api-key pages through Google's Model shape", async () => {
    const names: string[] = [];
    const pager = await ai.models.list();
    for await (const m of pager) names.push(m.name ?? "");
    expect(proxy.exchanges[0].method).toBe("GET");
    expect(proxy.exchanges[0].url.split("?")[0]).toBe("/v1/models");
    expect(proxy.exchanges[0].headers["x-goog-api-key"]).toBe(CLIENT_KEY);
    expect(names).toEqual(expect.arrayContaining(UPSTREAMS.map((u) => `models/${u.provider}/${u.model}`)));
  });

  it("R17.1 models.get on the SDK's default /v1 with x-goog-api-key answers Google's Model shape", async () => {
    const u = UPSTREAMS[0];
    const m = await ai.models.get({ model: `${u.provider}/${u.model}` });
    expect(proxy.exchanges.at(-1)!.url.split("?")[0]).toBe(`/v1/models/${u.provider}/${u.model}`);
    expect(m.name).toBe(`models/${u.provider}/${u.model}`);
    expect(m.inputTokenLimit).toEqual(expect.any(Number));
    expect(m.supportedActions ?? []).toEqual(expect.arrayContaining(["generateContent"]));
  });

  it("R17.1 models.list and models.get under /v1beta (apiVersion v1beta)", async () => {
    const beta = new GoogleGenAI({ apiKey: CLIENT_KEY, httpOptions: { baseUrl: proxy.url, apiVersion: "v1beta" } });
    const names: string[] = [];
    for await (const m of await beta.models.list()) names.push(m.name ?? "");
    expect(proxy.exchanges[0].url.split("?")[0]).toBe("/v1beta/models");
    expect(names).toEqual(expect.arrayContaining([...UPSTREAMS.map((u) => `models/${u.provider}/${u.model}`), `models/${UPSTREAMS[0].alias}`]));
    const u = UPSTREAMS[2];
    const m = await beta.models.get({ model: u.alias });
    expect(m.name).toBe(`models/${u.alias}`);
    expect(m.inputTokenLimit).toEqual(expect.any(Number));
    // And a generation on /v1beta works the same.
    const r = await beta.models.generateContent({ model: u.alias, contents: "hello" });
    expect(proxy.exchanges.at(-1)!.url).toBe(`/v1beta/models/${u.alias}:generateContent`);
    expect(r.text).toBe(`Hello from ${LABEL} (key ${keyOf(u.provider)})`);
  });

  it("R17.3 an unknown model is the SDK's ApiError with status 404 and Google's NOT_FOUND body", async () => {
    const err = await caught(ai.models.generateContent({ model: "no-such-model", contents: "hello" }));
    expect((err as ApiError).status).toBe(404);
    expect(errorBody(err).error).toMatchObject({ code: 404, status: "NOT_FOUND", message: expect.any(String) });
  });

  it("R17.3 a 429 from every target is the SDK's ApiError with status 429 and the body's RetryInfo", async () => {
    // Longer than the combo cooldown wait (90 s): Switchyard answers at once instead of waiting.
    sim.addFault(keyOf("gs-lim-a"), { status: 429, retryAfter: 120, times: 1 });
    sim.addFault(keyOf("gs-lim-b"), { status: 429, retryAfter: 120, times: 1 });
    const err = await caught(ai.models.generateContent({ model: LIMITED_COMBO, contents: "hello" }));
    expect((err as ApiError).status).toBe(429);
    const body = errorBody(err);
    expect(body.error).toMatchObject({ code: 429, status: "RESOURCE_EXHAUSTED" });
    const details = body.error.details as Json[];
    const retry = details.find((d) => d["@type"] === "type.googleapis.com/google.rpc.RetryInfo");
    expect(retry?.retryDelay).toMatch(/^\d+(\.\d+)?s$/);
    const seconds = Number(retry!.retryDelay.slice(0, -1));
    expect(seconds).toBeGreaterThan(100);
    expect(seconds).toBeLessThanOrEqual(120);
    expect(details.find((d) => d["@type"] === "type.googleapis.com/google.rpc.ErrorInfo")).toMatchObject({ reason: expect.any(String) });
    expect(sim.requests.map((q) => q.key)).toEqual([keyOf("gs-lim-a"), keyOf("gs-lim-b")]);
    expect(proxy.exchanges[0].responseHeaders["x-switchyard-attempts"]).toBe("2");
  });
});
