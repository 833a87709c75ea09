// Real Responses-API clients against the gateway (issue 22, R16): the official `openai` SDK's
// responses.create / responses.stream / retrieve / inputItems / delete, and the Vercel AI SDK's
// default `openai(model)` (which speaks /v1/responses) with generateText, streamText and a tool.
// Every case runs over several upstream formats, so the translation of each pair is exercised by
// a real client, not by a hand-written body.
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, stepCountIs, streamText, tool } from "ai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { SimulatedRequest, Simulator } from "../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../harness.js";

type Format = "openai-responses" | "openai" | "anthropic" | "gemini";

const LABEL = "rsdk";
/** One provider per upstream format, one key each; the key names the provider in the reply text. */
const UPSTREAMS: Array<{ format: Format; provider: string; key: string }> = [
  { format: "openai-responses", provider: "resp", key: "resp-k1" },
  { format: "openai", provider: "chat", key: "chat-k1" },
  { format: "anthropic", provider: "ant", key: "ant-k1" },
  { format: "gemini", provider: "gem", key: "gem-k1" },
];

const hello = (key: string) => `Hello from ${LABEL} (key ${key})`;

/**
 * The text of a response's message items. `ResponseStream.finalResponse()` leaves out the
 * `output_text` convenience field (the SDK adds it only for create/retrieve), so read the items.
 */
function textOf(response: OpenAI.Responses.Response): string {
  let text = "";
  for (const item of response.output) {
    if (item.type !== "message") continue;
    for (const part of item.content) if (part.type === "output_text") text += part.text;
  }
  return text;
}

let gw: TestGateway;
let sim: Simulator;
let client: OpenAI;

beforeAll(async () => {
  sim = await startSim({ label: LABEL });
  gw = await startGateway();
  for (const u of UPSTREAMS) await addProvider(gw, u.provider, sim, u.format, [u.key]);
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused-locally", maxRetries: 0 });
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

/** Runs `fn` and returns what it resolved to plus the upstream requests the simulator received meanwhile. */
async function recording<T>(fn: () => Promise<T>): Promise<{ value: T; upstream: SimulatedRequest[] }> {
  const before = sim.requests.length;
  const value = await fn();
  return { value, upstream: sim.requests.slice(before) };
}

/** The last generation request one key sent upstream (count_tokens and model lists left out). */
function lastUpstream(requests: SimulatedRequest[], key: string): SimulatedRequest {
  const mine = requests.filter((r) => r.key === key && !/count_tokens|countTokens|input_tokens|\/models\/?(\?.*)?$/.test(r.path));
  expect(mine.length, `no upstream request with key ${key}`).toBeGreaterThan(0);
  return mine[mine.length - 1];
}

/** The tool declarations of an upstream request, whatever its format, as [name, JSON schema]. */
function declaredTools(r: SimulatedRequest): Array<{ name: string; type?: string; schema: any }> {
  const body = r.body as any;
  if (r.format === "openai") return (body.tools ?? []).map((t: any) => ({ name: t.function?.name, type: t.type, schema: t.function?.parameters }));
  if (r.format === "anthropic") return (body.tools ?? []).map((t: any) => ({ name: t.name, type: t.type, schema: t.input_schema }));
  if (r.format === "gemini") {
    return (body.tools ?? []).flatMap((t: any) =>
      (t.functionDeclarations ?? []).map((d: any) => ({ name: d.name, type: "function", schema: d.parameters ?? d.parametersJsonSchema })),
    );
  }
  return (body.tools ?? []).map((t: any) => ({ name: t.name, type: t.type, schema: t.parameters }));
}

const WEATHER_TOOL = {
  type: "function" as const,
  name: "get_weather",
  description: "Weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
  strict: true,
};

const APPLY_PATCH = {
  type: "custom" as const,
  name: "apply_patch",
  description: "Apply a patch to the workspace",
  format: { type: "grammar" as const, syntax: "lark" as const, definition: "start: /.+/" },
};

describe("R16 openai SDK: responses.create, retrieve, input items, previous_response_id, delete", () => {
  for (const u of UPSTREAMS) {
    const model = `${u.provider}/m1`;
    it(`R16.1 R16.2 R16.4 openai SDK responses.create → retrieve → inputItems.list → previous_response_id → delete, via ${u.format} (${model})`, async () => {
      const first = await client.responses.create({ model, input: "Say hello, first turn", instructions: "Be brief." });
      expect(first.id.startsWith("resp_"), first.id).toBe(true);
      expect(first.object).toBe("response");
      expect(first.status).toBe("completed");
      expect(first.output_text).toBe(hello(u.key));
      expect(first.usage?.input_tokens).toEqual(expect.any(Number));
      expect(first.usage?.output_tokens).toEqual(expect.any(Number));
      expect(first.usage!.output_tokens).toBeGreaterThan(0);
      const message = first.output.find((item) => item.type === "message");
      expect(message).toMatchObject({ type: "message", role: "assistant" });

      // GET /v1/responses/{id}
      const again = await client.responses.retrieve(first.id);
      expect(again.id).toBe(first.id);
      expect(again.output_text).toBe(first.output_text);
      expect(again.output).toEqual(first.output);

      // GET /v1/responses/{id}/input_items
      const items = await client.responses.inputItems.list(first.id);
      const listed = JSON.stringify(items.data);
      expect(items.data.length).toBeGreaterThan(0);
      expect(listed).toContain("Say hello, first turn");
      expect(items.data.some((item) => item.type === "message" && (item as any).role === "user")).toBe(true);

      // A second turn on previous_response_id: the upstream sees the first turn as history.
      const { value: second, upstream } = await recording(() => client.responses.create({ model, previous_response_id: first.id, input: "And the second turn?" }));
      expect(second.id).not.toBe(first.id);
      expect(second.output_text).toBe(hello(u.key));
      const sent = JSON.stringify(lastUpstream(upstream, u.key).body);
      expect(sent).toContain("Say hello, first turn");
      expect(sent).toContain(first.output_text);
      expect(sent).toContain("And the second turn?");
      // Order kept: first input, first output, second input.
      expect(sent.indexOf("Say hello, first turn")).toBeLessThan(sent.indexOf(first.output_text));
      expect(sent.indexOf(first.output_text)).toBeLessThan(sent.indexOf("And the second turn?"));

      // DELETE /v1/responses/{id}, then GET → 404 response_not_found as a typed SDK error.
      await client.responses.delete(first.id);
      const err = await client.responses.retrieve(first.id).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(OpenAI.NotFoundError);
      expect((err as InstanceType<typeof OpenAI.NotFoundError>).status).toBe(404);
      expect((err as InstanceType<typeof OpenAI.NotFoundError>).code).toBe("response_not_found");
      // The second turn is still there.
      expect((await client.responses.retrieve(second.id)).output_text).toBe(hello(u.key));
    });
  }
});

describe("R16.2 openai SDK: streaming", () => {
  for (const u of UPSTREAMS) {
    const model = `${u.provider}/m1`;
    it(`R16.2 openai SDK responses.stream: typed events, sequence_number from 0, finalResponse, via ${u.format} (${model})`, async () => {
      const stream = client.responses.stream({ model, input: "Stream me a hello", instructions: "Be brief." });
      const events: Array<{ type: string; sequence_number: number }> = [];
      let deltas = "";
      for await (const event of stream) {
        events.push({ type: event.type, sequence_number: event.sequence_number });
        if (event.type === "response.output_text.delta") deltas += event.delta;
      }
      const final = await stream.finalResponse();
      const types = events.map((e) => e.type);
      expect(types[0]).toBe("response.created");
      expect(types).toContain("response.in_progress");
      expect(types).toContain("response.output_item.added");
      expect(types).toContain("response.content_part.added");
      expect(types).toContain("response.output_text.delta");
      expect(types).toContain("response.output_text.done");
      expect(types).toContain("response.output_item.done");
      expect(types.at(-1)).toBe("response.completed");
      expect(types.filter((t) => t === "response.output_text.delta").length).toBeGreaterThan(1);
      expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
      expect(deltas).toBe(hello(u.key));
      expect(final.id.startsWith("resp_")).toBe(true);
      expect(final.status).toBe("completed");
      expect(textOf(final)).toBe(hello(u.key));
      expect(final.usage?.output_tokens).toEqual(expect.any(Number));
      // A streamed response is stored too.
      expect((await client.responses.retrieve(final.id)).output_text).toBe(hello(u.key));
    });

    it(`R16.2 openai SDK responses.create({stream:true}) iterates the same events, via ${u.format} (${model})`, async () => {
      const stream = await client.responses.create({ model, input: "Stream me a hello", stream: true });
      const seqs: number[] = [];
      const types: string[] = [];
      let text = "";
      let completed: OpenAI.Responses.Response | null = null;
      for await (const event of stream) {
        seqs.push(event.sequence_number);
        types.push(event.type);
        if (event.type === "response.output_text.delta") text += event.delta;
        if (event.type === "response.completed") completed = event.response;
      }
      expect(types[0]).toBe("response.created");
      expect(types.at(-1)).toBe("response.completed");
      expect(seqs).toEqual(seqs.map((_, i) => i));
      expect(text).toBe(hello(u.key));
      expect(completed?.usage?.input_tokens).toEqual(expect.any(Number));
      expect(completed?.output.some((item) => item.type === "message")).toBe(true);
    });
  }
});

describe("R16.1 function tools with the openai SDK", () => {
  for (const u of UPSTREAMS) {
    const model = `${u.provider}/m1`;
    it(`R16.1 R16.2 openai SDK function tool round trip (function_call → function_call_output), via ${u.format} (${model})`, async () => {
      const { value: first, upstream } = await recording(() => client.responses.create({ model, input: "Please use tool to get the weather", tools: [WEATHER_TOOL] }));
      const declared = declaredTools(lastUpstream(upstream, u.key));
      expect(declared.map((t) => t.name)).toEqual(["get_weather"]);
      const call = first.output.find((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === "function_call");
      expect(call, JSON.stringify(first.output)).toBeDefined();
      expect(call!.name).toBe("get_weather");
      expect(typeof call!.call_id).toBe("string");
      expect(call!.call_id.length).toBeGreaterThan(0);
      expect(JSON.parse(call!.arguments)).toEqual({ city: "sim" });

      // Round trip on previous_response_id.
      const viaPrevious = await client.responses.create({
        model,
        previous_response_id: first.id,
        tools: [WEATHER_TOOL],
        input: [{ type: "function_call_output", call_id: call!.call_id, output: "sunny, 21 C" }],
      });
      expect(viaPrevious.output_text).toBe("Tool result received: sunny, 21 C");

      // Round trip with the whole conversation in `input` and nothing stored.
      const { value: full, upstream: fullUp } = await recording(() =>
        client.responses.create({
          model,
          store: false,
          tools: [WEATHER_TOOL],
          input: [
            { role: "user", content: "Please use tool to get the weather" },
            { type: "function_call", call_id: call!.call_id, name: call!.name, arguments: call!.arguments },
            { type: "function_call_output", call_id: call!.call_id, output: "rainy" },
          ],
        }),
      );
      expect(full.output_text).toBe("Tool result received: rainy");
      const sent = JSON.stringify(lastUpstream(fullUp, u.key).body);
      expect(sent).toContain("get_weather");
      expect(sent).toContain("rainy");
    });

    it(`R16.2 openai SDK streams a function call (function_call_arguments events), via ${u.format} (${model})`, async () => {
      const stream = client.responses.stream({ model, input: "use tool now", tools: [WEATHER_TOOL] });
      const types: string[] = [];
      let args = "";
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === "response.function_call_arguments.delta") args += event.delta;
      }
      const final = await stream.finalResponse();
      expect(types).toContain("response.function_call_arguments.delta");
      expect(types).toContain("response.function_call_arguments.done");
      expect(types.at(-1)).toBe("response.completed");
      expect(JSON.parse(args)).toEqual({ city: "sim" });
      const call = final.output.find((item) => item.type === "function_call") as OpenAI.Responses.ResponseFunctionToolCall | undefined;
      expect(call?.name).toBe("get_weather");
      expect(JSON.parse(call?.arguments ?? "null")).toEqual({ city: "sim" });
    });
  }
});

describe("R16.6 custom (freeform) tools bridged to upstreams without them", () => {
  for (const u of UPSTREAMS.filter((x) => x.format !== "openai-responses")) {
    const model = `${u.provider}/m1`;
    it(`R16.6 custom tool apply_patch → one-string function upstream → custom_tool_call back, via ${u.format} (${model})`, async () => {
      const { value: r, upstream } = await recording(() => client.responses.create({ model, input: "use tool to patch the file", tools: [APPLY_PATCH] }));
      const req = lastUpstream(upstream, u.key);
      const declared = declaredTools(req);
      expect(declared).toHaveLength(1);
      expect(declared[0].name).toBe("apply_patch");
      if (u.format === "openai") expect(declared[0].type).toBe("function");
      const schema = declared[0].schema;
      const props = Object.entries<any>(schema?.properties ?? {});
      expect(props, JSON.stringify(schema)).toHaveLength(1);
      expect(String(props[0][1].type).toLowerCase()).toBe("string");
      expect(schema.required ?? [], JSON.stringify(schema)).toEqual([props[0][0]]);

      const call = r.output.find((item): item is OpenAI.Responses.ResponseCustomToolCall => item.type === "custom_tool_call");
      expect(call, JSON.stringify(r.output)).toBeDefined();
      expect(call!.name).toBe("apply_patch");
      expect(typeof call!.input).toBe("string");
      expect(call!.input).toBe("sim");
      expect(typeof call!.call_id).toBe("string");
      expect(r.output.some((item) => item.type === "function_call")).toBe(false);

      // Result back as custom_tool_call_output.
      const next = await client.responses.create({
        model,
        previous_response_id: r.id,
        tools: [APPLY_PATCH],
        input: [{ type: "custom_tool_call_output", call_id: call!.call_id, output: "patch applied" }],
      });
      expect(next.output_text).toBe("Tool result received: patch applied");
    });

    it(`R16.6 custom tool streamed: custom_tool_call_input events, via ${u.format} (${model})`, async () => {
      const stream = client.responses.stream({ model, input: "use tool to patch the file", tools: [APPLY_PATCH] });
      const types: string[] = [];
      let input = "";
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === "response.custom_tool_call_input.delta") input += event.delta;
      }
      const final = await stream.finalResponse();
      expect(types).toContain("response.custom_tool_call_input.delta");
      expect(types).toContain("response.custom_tool_call_input.done");
      expect(types).not.toContain("response.function_call_arguments.delta");
      expect(input).toBe("sim");
      const call = final.output.find((item) => item.type === "custom_tool_call");
      expect(call?.input).toBe("sim");
    });
  }

  it("R16.6 custom tool passed through unchanged to an openai-responses upstream", async () => {
    const { value: r, upstream } = await recording(() => client.responses.create({ model: "resp/m1", input: "use tool to patch the file", tools: [APPLY_PATCH] }));
    const body = lastUpstream(upstream, "resp-k1").body as any;
    expect(body.tools).toEqual([APPLY_PATCH]);
    expect(body.model).toBe("m1");
    const call = r.output.find((item) => item.type === "custom_tool_call");
    expect(call?.input).toBe("sim");
  });
});

describe("R16 Vercel AI SDK openai(model) (Responses API)", () => {
  const openai = () => createOpenAI({ baseURL: `${gw.url}/v1`, apiKey: "x" });
  for (const u of UPSTREAMS) {
    const model = `${u.provider}/m1`;
    it(`R16.1 AI SDK generateText with openai("${model}") via ${u.format}`, async () => {
      const { value: r, upstream } = await recording(() => generateText({ model: openai()(model), prompt: "Say hello", maxRetries: 0 }));
      expect(r.text).toBe(hello(u.key));
      expect(r.finishReason).toBe("stop");
      expect(r.usage.inputTokens).toEqual(expect.any(Number));
      expect(r.usage.outputTokens).toEqual(expect.any(Number));
      expect(lastUpstream(upstream, u.key).format).toBe(u.format);
    });

    it(`R16.2 AI SDK streamText with openai("${model}") via ${u.format}`, async () => {
      const result = streamText({ model: openai()(model), prompt: "Say hello", maxRetries: 0 });
      const parts: string[] = [];
      for await (const piece of result.textStream) parts.push(piece);
      expect(parts.length).toBeGreaterThan(1);
      expect(parts.join("")).toBe(hello(u.key));
      expect(await result.finishReason).toBe("stop");
      expect((await result.usage).outputTokens).toEqual(expect.any(Number));
    });

    it(`R16.1 AI SDK tool loop (generateText, stopWhen stepCountIs(2)) with openai("${model}") via ${u.format}`, async () => {
      const calls: Array<{ city: string }> = [];
      const r = await generateText({
        model: openai()(model),
        prompt: "Please use tool to get the weather in Paris",
        maxRetries: 0,
        tools: {
          get_weather: tool({
            description: "Weather for a city",
            inputSchema: z.object({ city: z.string() }),
            execute: async (args: { city: string }) => {
              calls.push(args);
              return "sunny";
            },
          }),
        },
        stopWhen: stepCountIs(2),
      });
      expect(calls).toEqual([{ city: "sim" }]);
      expect(r.steps).toHaveLength(2);
      expect(r.steps[0].toolCalls.map((c) => c.toolName)).toEqual(["get_weather"]);
      expect(r.text).toContain("Tool result received");
      expect(r.text).toContain("sunny");
      expect(r.finishReason).toBe("stop");
    });

    it(`R16.2 AI SDK tool loop streamed (streamText) with openai("${model}") via ${u.format}`, async () => {
      const calls: Array<{ city: string }> = [];
      const result = streamText({
        model: openai()(model),
        prompt: "Please use tool to get the weather in Paris",
        maxRetries: 0,
        tools: {
          get_weather: tool({
            description: "Weather for a city",
            inputSchema: z.object({ city: z.string() }),
            execute: async (args: { city: string }) => {
              calls.push(args);
              return "cloudy";
            },
          }),
        },
        stopWhen: stepCountIs(2),
      });
      let text = "";
      for await (const piece of result.textStream) text += piece;
      expect(calls).toEqual([{ city: "sim" }]);
      expect(text).toContain("Tool result received");
      expect(text).toContain("cloudy");
      expect((await result.steps).length).toBe(2);
    });
  }
});

describe("R16 errors in the Responses client's format", () => {
  it("R1.5 R16.1 unknown model → openai SDK NotFoundError, status 404, code model_not_found", async () => {
    const err = await client.responses.create({ model: "no-such/model", input: "hi" }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    const e = err as InstanceType<typeof OpenAI.NotFoundError>;
    expect(e.status).toBe(404);
    expect(e.code).toBe("model_not_found");
    expect(e.headers?.get("x-switchyard-attempts")).not.toBeNull();
    expect(e.headers?.get("x-switchyard-request-id")).not.toBeNull();
  });

  it("R1.9 R16.1 a body without input (raw fetch) → 400 invalid_request, nothing sent upstream", async () => {
    const before = sim.requests.length;
    const res = await fetch(`${gw.url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer x" },
      body: JSON.stringify({ model: "chat/m1", instructions: "no input here" }),
    });
    const body = await res.json();
    expect(res.status).toBe(400);
    expect(body.error).toMatchObject({ code: "invalid_request", type: "invalid_request_error", message: expect.any(String) });
    expect(sim.requests.length).toBe(before);
  });

  it("R16.4 GET /v1/responses/resp_nope → 404 response_not_found (raw and through the SDK)", async () => {
    const res = await fetch(`${gw.url}/v1/responses/resp_nope`, { headers: { authorization: "Bearer x" } });
    const body = await res.json();
    expect(res.status).toBe(404);
    expect(body.error).toMatchObject({ code: "response_not_found", type: "invalid_request_error", message: expect.any(String) });
    await expect(client.responses.retrieve("resp_nope")).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it("R16.4 an unknown previous_response_id → 404 response_not_found, nothing sent upstream", async () => {
    const before = sim.requests.length;
    const err = await client.responses.create({ model: "chat/m1", previous_response_id: "resp_nope", input: "hi" }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect((err as InstanceType<typeof OpenAI.NotFoundError>).code).toBe("response_not_found");
    expect(sim.requests.length).toBe(before);
  });
});

describe("R16 failover across formats in a combo", () => {
  const pairs: Array<{ first: Format; second: Format }> = [
    { first: "openai-responses", second: "anthropic" },
    { first: "anthropic", second: "openai" },
    { first: "openai", second: "openai-responses" },
  ];
  for (const [i, pair] of pairs.entries()) {
    it(`R11.3 R16.6 combo: first target (${pair.first}) answers 429, second (${pair.second}) serves; responses.create succeeds with x-switchyard-attempts 2`, async () => {
      const a = `fo${i}a`;
      const b = `fo${i}b`;
      await addProvider(gw, a, sim, pair.first, [`${a}-key`]);
      await addProvider(gw, b, sim, pair.second, [`${b}-key`]);
      const combo = await gw.api("POST", "/api/combos", { name: `fo${i}combo`, targets: [{ model: `${a}/m1` }, { model: `${b}/m1` }] });
      expect(combo.status, combo.text).toBe(201);
      sim.addFault(`${a}-key`, { status: 429, retryAfter: 30, times: 1 });
      try {
        const { value, upstream } = await recording(() =>
          client.responses.create({ model: `fo${i}combo`, input: "hello through the combo", instructions: "Be brief." }).withResponse(),
        );
        expect(value.response.status).toBe(200);
        expect(value.response.headers.get("x-switchyard-attempts")).toBe("2");
        expect(value.response.headers.get("x-omniroute-selected-connection-id")).toBe(`${b}-c1`);
        expect(value.data.output_text).toBe(hello(`${b}-key`));
        expect(upstream.map((r) => r.key)).toEqual([`${a}-key`, `${b}-key`]);
        expect(upstream.map((r) => r.format)).toEqual([pair.first, pair.second]);

        // The same through a stream: the failed first attempt stays invisible.
        sim.addFault(`${a}-key`, { status: 429, retryAfter: 30, times: 1 });
        await gw.api("POST", "/api/resilience/cooldowns", { all: true });
        const stream = client.responses.stream({ model: `fo${i}combo`, input: "hello through the combo" });
        const types: string[] = [];
        for await (const event of stream) types.push(event.type);
        expect(types.filter((t) => t === "response.created")).toHaveLength(1);
        expect(types.at(-1)).toBe("response.completed");
        expect(textOf(await stream.finalResponse())).toBe(hello(`${b}-key`));
      } finally {
        sim.clearFaults(`${a}-key`);
        await gw.api("POST", "/api/resilience/cooldowns", { all: true });
      }
    });
  }
});

describe("R16.5 input_tokens through the SDK", () => {
  for (const u of UPSTREAMS) {
    const model = `${u.provider}/m1`;
    it(`R16.5 openai SDK responses.inputTokens.count via ${u.format} (${model})`, async () => {
      const counted = await client.responses.inputTokens.count({ model, input: "How many tokens is this sentence?", instructions: "Be brief." });
      expect(counted.object).toBe("response.input_tokens");
      expect(counted.input_tokens).toEqual(expect.any(Number));
      expect(counted.input_tokens).toBeGreaterThan(0);
    });
  }
});

describe("R16.6 reasoning ⇄ thinking through the SDK", () => {
  const REASONING = { effort: "medium" as const, summary: "auto" as const };

  it("R16.2 openai SDK reasoning via openai-responses: a reasoning item with a summary before the message, reasoning_tokens, summary events", async () => {
    const r = await client.responses.create({ model: "resp/m1", input: "Think, then say hello", reasoning: REASONING });
    const reasoning = r.output.find((item): item is OpenAI.Responses.ResponseReasoningItem => item.type === "reasoning");
    expect(reasoning, JSON.stringify(r.output)).toBeDefined();
    expect(reasoning!.summary.map((s) => s.text).join("").length).toBeGreaterThan(0);
    expect(r.output.findIndex((item) => item.type === "reasoning")).toBeLessThan(r.output.findIndex((item) => item.type === "message"));
    expect(r.output_text).toBe(hello("resp-k1"));
    expect(r.usage?.output_tokens_details?.reasoning_tokens).toBeGreaterThan(0);
  });

  // The simulator's chat, Anthropic and Gemini wires think only under a reasoningOnlyMs fault
  // (streams), so JSON checks the translated request and the stream checks the translated answer.
  for (const u of UPSTREAMS) {
    const model = `${u.provider}/m1`;
    it(`R16.6 openai SDK reasoning → ${u.format} thinking request, and thinking → reasoning summary events back (${model})`, async () => {
      if (u.format !== "openai-responses") {
        const { upstream } = await recording(() => client.responses.create({ model, input: "Think, then say hello", reasoning: REASONING }));
        const body = lastUpstream(upstream, u.key).body as any;
        if (u.format === "openai") expect(body.reasoning_effort).toBe("medium");
        if (u.format === "anthropic") expect(body.thinking).toMatchObject({ type: "enabled", budget_tokens: expect.any(Number) });
        if (u.format === "gemini") expect(body.generationConfig?.thinkingConfig).toMatchObject({ includeThoughts: true });
        sim.addFault(u.key, { reasoningOnlyMs: 30, times: 1 });
      }
      const stream = client.responses.stream({ model, input: "Think, then say hello", reasoning: REASONING });
      const events: Array<{ type: string; sequence_number: number }> = [];
      let summary = "";
      for await (const event of stream) {
        events.push({ type: event.type, sequence_number: event.sequence_number });
        if (event.type === "response.reasoning_summary_text.delta") summary += event.delta;
      }
      const types = events.map((e) => e.type);
      expect(types).toContain("response.reasoning_summary_part.added");
      expect(types).toContain("response.reasoning_summary_text.done");
      expect(summary.length).toBeGreaterThan(0);
      expect(types.indexOf("response.reasoning_summary_text.delta")).toBeLessThan(types.indexOf("response.output_text.delta"));
      expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
      const final = await stream.finalResponse();
      expect(textOf(final)).toBe(hello(u.key));
      const item = final.output.find((o): o is OpenAI.Responses.ResponseReasoningItem => o.type === "reasoning");
      expect(item?.summary.map((s) => s.text).join("")).toBe(summary);
    });
  }
});
