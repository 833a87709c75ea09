import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type FaultSpec, type Simulator } from "../../../main/simulator/index.js";
import { collect, parseSse, post } from "./helpers.js";

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ label: "sim-r" });
});
afterAll(async () => {
  await sim.close();
});

const url = (path = "/v1/responses") => `${sim.url}${path}`;
const as = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });
const fault = (spec: FaultSpec): Record<string, string> => ({ "x-sim-fault": JSON.stringify(spec) });
const ask = { model: "gpt-sim", input: "hi" };
const functionTool = { type: "function", name: "read_file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } };
const customTool = { type: "custom", name: "apply_patch", description: "Apply a patch", format: { type: "grammar", syntax: "lark", definition: "start: /.+/" } };
const reasoned = { ...ask, reasoning: { effort: "medium", summary: "auto" }, include: ["reasoning.encrypted_content"] };

/** The typed events of a Responses stream, checked for the `event:` line matching `type`. */
function events(text: string): Record<string, any>[] {
  return parseSse(text)
    .filter((e) => !e.comment)
    .map((e) => {
      const data = JSON.parse(e.data) as Record<string, any>;
      expect(e.event).toBe(data.type);
      return data;
    });
}

function types(list: Record<string, any>[]): string[] {
  return list.map((e) => e.type);
}

async function json(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await post(url(path), body, headers);
  return { status: res.status, body: JSON.parse(res.text) as Record<string, any> };
}

describe("Responses JSON", () => {
  it("R16.6 answers POST /v1/responses with a completed response object", async () => {
    const { status, body } = await json("/v1/responses", { ...ask, instructions: "be brief", metadata: { a: "1" } }, as("k1"));
    expect(status).toBe(200);
    expect(body).toMatchObject({ object: "response", status: "completed", model: "gpt-sim", instructions: "be brief", metadata: { a: "1" }, error: null });
    expect(body.id).toMatch(/^resp_[0-9a-f]{48}$/);
    expect(typeof body.created_at).toBe("number");
    expect(body.output).toEqual([
      {
        id: expect.stringMatching(/^msg_/),
        type: "message",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: "Hello from sim-r (key k1)", annotations: [], logprobs: [] }],
      },
    ]);
    const u = body.usage;
    expect(u).toMatchObject({ input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } });
    expect(u.total_tokens).toBe(u.input_tokens + u.output_tokens);
    expect(sim.requests.at(-1)).toMatchObject({ path: "/v1/responses", format: "openai-responses", model: "gpt-sim", key: "k1", stream: false });
  });

  it("R16.6 serves the bare base too (/responses) and answers unknown Responses paths in OpenAI's error shape", async () => {
    expect((await json("/responses", ask)).body.object).toBe("response");
    const missing = await json("/v1/responses/nope", ask);
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ type: "invalid_request_error", param: null });
  });

  it("R16.6 calls the first function tool on 'use tool' with fc_/call_ ids and JSON arguments", async () => {
    const { body } = await json("/v1/responses", { ...ask, input: [{ role: "user", content: "please use tool" }], tools: [{ type: "web_search" }, functionTool] });
    expect(body.output).toEqual([
      { id: expect.stringMatching(/^fc_/), type: "function_call", status: "completed", arguments: '{"path":"sim"}', call_id: expect.stringMatching(/^call_/), name: "read_file" },
    ]);
  });

  it("R16.6 calls a custom (freeform) tool with custom_tool_call and raw text input", async () => {
    const input = [{ type: "message", role: "user", content: [{ type: "input_text", text: "use tool" }] }];
    const { body } = await json("/v1/responses", { ...ask, input, tools: [customTool, functionTool] });
    expect(body.output).toEqual([
      { id: expect.stringMatching(/^ctc_/), type: "custom_tool_call", status: "completed", call_id: expect.stringMatching(/^call_/), name: "apply_patch", input: "sim" },
    ]);
  });

  it("R16.6 acknowledges function_call_output and custom_tool_call_output items", async () => {
    for (const type of ["function_call_output", "custom_tool_call_output"]) {
      const input = [
        { role: "user", content: "use tool" },
        { type, call_id: "call_1", output: "file body" },
      ];
      const { body } = await json("/v1/responses", { ...ask, input, tools: [functionTool] });
      expect(body.output[0].content[0].text).toBe("Tool result received: file body");
    }
  });

  it("R16.7 adds a reasoning item with a summary and encrypted_content only when asked", async () => {
    const { body } = await json("/v1/responses", reasoned, as("k1"));
    expect(body.output.map((i: { type: string }) => i.type)).toEqual(["reasoning", "message"]);
    const rs = body.output[0];
    expect(rs.id).toMatch(/^rs_[0-9a-f]{48}$/);
    expect(rs.summary).toEqual([{ type: "summary_text", text: "Considering the request." }]);
    expect(rs.encrypted_content).toMatch(/^gAAAAA[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(rs.encrypted_content, "base64").toString("latin1")).not.toContain("k1");
    expect(body.usage.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
    const plain = await json("/v1/responses", { ...reasoned, include: [] });
    expect(plain.body.output[0].encrypted_content).toBeUndefined();
    const off = await json("/v1/responses", { ...ask, reasoning: { effort: "none" } });
    expect(off.body.output.map((i: { type: string }) => i.type)).toEqual(["message"]);
  });

  it("R16.5 counts input tokens at /v1/responses/input_tokens", async () => {
    const { status, body } = await json("/v1/responses/input_tokens", { model: "m", input: "x".repeat(40), instructions: "abcd" });
    expect(status).toBe(200);
    expect(body).toEqual({ object: "response.input_tokens", input_tokens: 11 });
  });

  it("R16.5 compacts at /v1/responses/compact into the user messages plus one sealed compaction item", async () => {
    const input = [
      { type: "message", role: "user", content: [{ type: "input_text", text: "first" }] },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "reply" }] },
      { role: "user", content: "second" },
    ];
    const { status, body } = await json("/v1/responses/compact", { model: "m", input, instructions: "x" }, as("k1"));
    expect(status).toBe(200);
    expect(body).toMatchObject({ object: "response.compaction", id: expect.stringMatching(/^resp_/), created_at: expect.any(Number) });
    expect(body.output.slice(0, 2).map((m: { content: unknown }) => m.content)).toEqual([[{ type: "input_text", text: "first" }], [{ type: "input_text", text: "second" }]]);
    expect(body.output[0]).toMatchObject({ type: "message", role: "user", id: expect.stringMatching(/^msg_/) });
    expect(body.output[2]).toEqual({ id: expect.stringMatching(/^cmp_/), type: "compaction", encrypted_content: expect.stringMatching(/^gAAAAA/) });
    expect(body.usage.total_tokens).toBe(body.usage.input_tokens + body.usage.output_tokens);
    // The next turn carries the compaction item: accepted by the same key, refused by another.
    const next = { model: "m", input: [...body.output, { role: "user", content: "go on" }] };
    expect((await json("/v1/responses", next, as("k1"))).status).toBe(200);
    const foreign = await json("/v1/responses", next, as("k2"));
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.code).toBe("invalid_encrypted_content");
  });
});

describe("Responses account-bound reasoning (R16.7)", () => {
  async function issued(key: string) {
    const { body } = await json("/v1/responses", reasoned, as(key));
    return body.output[0] as { id: string; type: string; summary: unknown[]; encrypted_content: string };
  }
  const followUp = (item: unknown) => ({ ...reasoned, input: [{ role: "user", content: "hi" }, item, { role: "user", content: "again" }] });

  it("R16.7 refuses encrypted_content issued to another key with OpenAI's 400 invalid_encrypted_content", async () => {
    const item = await issued("key-a");
    const before = sim.requests.length;
    const res = await json("/v1/responses", followUp(item), as("key-b"));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {
        message: `The encrypted content for item ${item.id} could not be verified. Reason: Encrypted content could not be decrypted or parsed.`,
        type: "invalid_request_error",
        param: null,
        code: "invalid_encrypted_content",
      },
    });
    expect(sim.requests.length).toBe(before + 1);
    expect(sim.requests.at(-1)).toMatchObject({ key: "key-b", format: "openai-responses" });
  });

  it("R16.7 accepts encrypted_content issued to the same key, streamed or not", async () => {
    const item = await issued("key-a");
    expect((await json("/v1/responses", followUp(item), as("key-a"))).status).toBe(200);
    const streamed = await post(url(), { ...followUp(item), stream: true }, as("key-a"));
    expect(streamed.status).toBe(200);
    expect(events(streamed.text).at(-1)!.type).toBe("response.completed");
  });

  it("R16.7 refuses a blob that cannot be verified at all, naming it like OpenAI when the item has no id", async () => {
    const res = await json("/v1/responses", followUp({ type: "reasoning", summary: [], encrypted_content: "gAAAAABnot-a-real-blob==" }), as("key-a"));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe("The encrypted content gAAA...ob== could not be verified. Reason: Encrypted content could not be decrypted or parsed.");
  });

  it("R16.7 binds rs_ ids too: a bare reference another key issued is not found", async () => {
    const { id } = await issued("key-a");
    const ref = { type: "reasoning", id, summary: [] };
    expect((await json("/v1/responses", followUp(ref), as("key-a"))).status).toBe(200);
    const res = await json("/v1/responses", { ...followUp(ref), store: false }, as("key-b"));
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ param: "input", code: null, message: expect.stringContaining(`Item with id '${id}' not found.`) });
  });
});

describe("Responses SSE", () => {
  const increasing = (list: Record<string, any>[]) => list.every((e, i) => e.sequence_number === i);

  it("R16.6 streams the typed event sequence with sequence_number from 0, ending in response.completed", async () => {
    const res = await post(url(), { ...ask, stream: true }, as("k1"));
    expect(res.headers["content-type"]).toBe("text/event-stream");
    const list = events(res.text);
    expect(increasing(list)).toBe(true);
    expect(types(list)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      ...Array(5).fill("response.output_text.delta"),
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(list[0].response).toMatchObject({ status: "in_progress", output: [], usage: null });
    const text = list
      .filter((e) => e.type === "response.output_text.delta")
      .map((e) => e.delta)
      .join("");
    expect(text).toBe("Hello from sim-r (key k1)");
    const done = list.at(-1)!.response;
    expect(done).toMatchObject({ id: list[0].response.id, status: "completed", output: [{ type: "message", content: [{ text }] }] });
    expect(done.usage.total_tokens).toBeGreaterThan(0);
  });

  it("R16.6 streams reasoning summary events ahead of a function call", async () => {
    const body = { ...reasoned, stream: true, input: "use tool", tools: [functionTool] };
    const list = events((await post(url(), body, as("k1"))).text);
    expect(increasing(list)).toBe(true);
    expect(types(list)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.reasoning_summary_part.added",
      ...Array(3).fill("response.reasoning_summary_text.delta"),
      "response.reasoning_summary_text.done",
      "response.reasoning_summary_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const rsDone = list[9];
    expect(rsDone.item).toMatchObject({ type: "reasoning", summary: [{ text: "Considering the request." }], encrypted_content: expect.stringMatching(/^gAAAAA/) });
    const args = list.filter((e) => e.type === "response.function_call_arguments.delta");
    expect(args.every((e) => e.output_index === 1 && e.item_id === list[10].item.id)).toBe(true);
    expect(list.at(-3)).toMatchObject({ name: "read_file", arguments: '{"path":"sim"}' });
    expect(list.at(-1)!.response.output.map((i: { type: string }) => i.type)).toEqual(["reasoning", "function_call"]);
    expect(list.at(-1)!.response.output[0].encrypted_content).toBe(rsDone.item.encrypted_content);
  });

  it("R16.6 streams a custom tool call as custom_tool_call_input deltas", async () => {
    const list = events((await post(url(), { ...ask, stream: true, input: "use tool", tools: [customTool] })).text);
    expect(types(list).slice(2)).toEqual([
      "response.output_item.added",
      "response.custom_tool_call_input.delta",
      "response.custom_tool_call_input.delta",
      "response.custom_tool_call_input.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(list[2].item).toMatchObject({ type: "custom_tool_call", name: "apply_patch", input: "", status: "in_progress" });
    expect(
      list
        .filter((e) => e.type.endsWith(".delta"))
        .map((e) => e.delta)
        .join(""),
    ).toBe("sim");
    expect(list.at(-2)!.item).toMatchObject({ type: "custom_tool_call", input: "sim", status: "completed" });
  });
});

describe("Responses faults", () => {
  const stream = { ...ask, stream: true };
  const deltas = (list: Record<string, any>[]) => list.filter((e) => e.type === "response.output_text.delta").length;

  it("R0.5 answers a status fault with OpenAI's error body and the fault's headers", async () => {
    const res = await post(url(), stream, fault({ status: 429, retryAfter: 3 }));
    expect(res.status).toBe(429);
    expect(res.headers["retry-after"]).toBe("3");
    expect(JSON.parse(res.text)).toEqual({ error: { message: "Rate limit exceeded (simulated)", type: "rate_limit_error", param: null, code: "rate_limit_exceeded" } });
  });

  it("R11.7 maxTools refuses too many tools in the OpenAI error shape", async () => {
    const res = await json("/v1/responses", { ...ask, tools: [functionTool, customTool] }, fault({ maxTools: 1 }));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/too many tools/i);
  });

  it("R13.3 resets the socket after N text deltas (resetAfterChunks)", async () => {
    const out = await collect(url(), stream, fault({ resetAfterChunks: 2 }));
    expect(out.error).not.toBeNull();
    const list = events(out.text);
    expect(deltas(list)).toBe(2);
    expect(types(list)).not.toContain("response.completed");
  });

  it("R13.4 stalls after N deltas and ends a truncated or garbled stream (stallAfterChunks, endAfterChunks, garbleAfterChunks)", async () => {
    const stalled = await collect(url(), stream, fault({ stallAfterChunks: 1 }), 300);
    expect(stalled.ended).toBe(false);
    expect(deltas(events(stalled.text))).toBe(1);
    const ended = await collect(url(), stream, fault({ endAfterChunks: 3 }));
    expect(ended.ended).toBe(true);
    expect(deltas(events(ended.text))).toBe(3);
    expect(ended.text).not.toContain("response.completed");
    const garbled = await collect(url(), stream, fault({ garbleAfterChunks: 1 }));
    expect(garbled.ended).toBe(true);
    expect(() => JSON.parse(parseSse(garbled.text).at(-1)!.data)).toThrow();
  });

  it("R13.2 sends only lifecycle events then stalls (stallBeforeContent); emptyStream sends nothing", async () => {
    const out = await collect(url(), stream, fault({ stallBeforeContent: true }), 300);
    expect(out.ended).toBe(false);
    expect(types(events(out.text))).toEqual(["response.created", "response.in_progress", "response.output_item.added", "response.content_part.added"]);
    const empty = await collect(url(), stream, fault({ emptyStream: true }));
    expect(empty).toMatchObject({ status: 200, ended: true, text: "" });
  });

  it("R0.5 trickles events (trickleMs) and sends keep-alive comments only (pingEveryMs)", async () => {
    const slow = await collect(url(), stream, fault({ trickleMs: 30 }));
    const list = events(slow.text);
    expect(list.at(-1)!.type).toBe("response.completed");
    expect(slow.pieces.at(-1)!.at - slow.pieces[0].at).toBeGreaterThanOrEqual((list.length - 2) * 30 - 20);
    const pinged = await collect(url(), stream, fault({ pingEveryMs: 40 }), 300);
    expect(parseSse(pinged.text).filter((e) => e.comment).length).toBeGreaterThanOrEqual(3);
    expect(deltas(events(pinged.text))).toBe(0);
  });

  it("R13.4 streams reasoning summary deltas for reasoningOnlyMs, still numbered in order", async () => {
    const out = await collect(url(), { ...reasoned, stream: true }, { ...as("k1"), ...fault({ reasoningOnlyMs: 150, trickleMs: 20 }) });
    const list = events(out.text);
    expect(list.every((e, i) => e.sequence_number === i)).toBe(true);
    const summary = list.filter((e) => e.type === "response.reasoning_summary_text.delta");
    expect(summary.length).toBeGreaterThanOrEqual(4);
    const done = list.find((e) => e.type === "response.reasoning_summary_text.done")!;
    expect(done.text).toBe(summary.map((e) => e.delta).join(""));
    const firstText = list.findIndex((e) => e.type === "response.output_text.delta");
    expect(firstText).toBeGreaterThan(list.indexOf(done));
    const rs = list.at(-1)!.response.output[0];
    expect(rs).toMatchObject({ type: "reasoning", summary: [{ text: done.text }], encrypted_content: expect.any(String) });
  });

  it("R0.5 applies latency, reset and raw-body faults to Responses requests", async () => {
    const started = Date.now();
    expect((await post(url(), ask, fault({ latencyMs: 120 }))).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
    await expect(post(url(), ask, fault({ reset: true }))).rejects.toMatchObject({ code: expect.stringMatching(/ECONNRESET|UND_ERR_SOCKET/) });
    const raw = 'event: response.failed\ndata: {"type":"response.failed","sequence_number":0}\n\n';
    const res = await post(url(), stream, fault({ body: raw }));
    expect(res.headers["content-type"]).toBe("text/event-stream");
    expect(res.text).toBe(raw);
  });
});

describe("the OpenAI SDK against the Responses simulator", () => {
  it("R16.6 streams, calls tools, counts input tokens and compacts through client.responses", async () => {
    const client = new OpenAI({ apiKey: "sdk-key", baseURL: `${sim.url}/v1`, maxRetries: 0 });
    const stream = await client.responses.create({ model: "sim-fast", input: "hello", reasoning: { effort: "low", summary: "auto" }, stream: true });
    let text = "";
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.completed") completed = event.response;
    }
    expect(text).toBe("Hello from sim-r (key sdk-key)");
    expect(completed?.output.map((item) => item.type)).toEqual(["reasoning", "message"]);
    expect(completed?.usage?.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);

    const call = await client.responses.create({ model: "sim-fast", input: "use tool", tools: [{ ...functionTool, type: "function", strict: false }] });
    expect(call.output_text).toBe("");
    expect(call.output[0]).toMatchObject({ type: "function_call", name: "read_file", arguments: '{"path":"sim"}' });
    expect((await client.responses.inputTokens.count({ model: "sim-fast", input: "x".repeat(8) })).input_tokens).toBe(2);
    const compacted = await client.responses.compact({ model: "sim-fast", input: "summarise me" });
    expect(compacted.output.at(-1)?.type).toBe("compaction");
  });
});
