import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../../main/simulator/index.js";
import { jsonEvents, OPENAI_TOOLS, parseSse, post } from "./helpers.js";

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ label: "sim-t" });
});
afterAll(async () => {
  await sim.close();
});

const anthropicTools = [
  { name: "read_file", input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
  { name: "other", input_schema: { type: "object" } },
];
const geminiTools = [{ functionDeclarations: [{ name: "read_file", parameters: { type: "OBJECT", properties: { path: { type: "STRING" } }, required: ["path"] } }] }];

describe("OpenAI tools", () => {
  const ask = { model: "m", tools: OPENAI_TOOLS, messages: [{ role: "user", content: "Please USE TOOL now" }] };

  it("R0.5 answers 'use tool' with a tool call to the first tool, required string args set to sim", async () => {
    const body = JSON.parse((await post(`${sim.url}/v1/chat/completions`, ask)).text);
    expect(body.choices[0].finish_reason).toBe("tool_calls");
    expect(body.choices[0].message.content).toBeNull();
    expect(body.choices[0].message.tool_calls).toEqual([{ id: "call_sim_1", type: "function", function: { name: "read_file", arguments: '{"path":"sim"}' } }]);
  });

  it("R0.5 sends {} as arguments when the tool has no required string parameter", async () => {
    const tools = [{ type: "function", function: { name: "now", parameters: { type: "object", properties: {} } } }];
    const body = JSON.parse((await post(`${sim.url}/v1/chat/completions`, { ...ask, tools })).text);
    expect(body.choices[0].message.tool_calls[0].function.arguments).toBe("{}");
  });

  it("R0.5 streams a tool call as id/name delta then argument deltas and finish_reason tool_calls", async () => {
    const events = jsonEvents((await post(`${sim.url}/v1/chat/completions`, { ...ask, stream: true })).text);
    const calls = events.filter((e) => e.choices[0]?.delta?.tool_calls).map((e) => e.choices[0].delta.tool_calls[0]);
    expect(calls[0]).toMatchObject({ index: 0, id: "call_sim_1", type: "function", function: { name: "read_file" } });
    expect(calls.map((c) => c.function.arguments).join("")).toBe('{"path":"sim"}');
    expect(events.at(-1)!.choices[0].finish_reason).toBe("tool_calls");
  });

  it("R0.5 acknowledges a tool result with its first 40 characters", async () => {
    const result = "0123456789".repeat(6);
    const messages = [
      ...ask.messages,
      { role: "assistant", content: null, tool_calls: [{ id: "call_sim_1", type: "function", function: { name: "read_file", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "call_sim_1", content: result },
    ];
    const body = JSON.parse((await post(`${sim.url}/v1/chat/completions`, { ...ask, messages })).text);
    expect(body.choices[0].message.content).toBe(`Tool result received: ${result.slice(0, 40)}`);
    expect(body.choices[0].finish_reason).toBe("stop");
  });

  it("R0.5 answers with text when 'use tool' is asked but no tools are offered", async () => {
    const body = JSON.parse((await post(`${sim.url}/v1/chat/completions`, { model: "m", messages: ask.messages })).text);
    expect(body.choices[0].message.content).toBe("Hello from sim-t (key none)");
  });
});

describe("Anthropic tools", () => {
  const ask = { model: "c", max_tokens: 10, tools: anthropicTools, messages: [{ role: "user", content: [{ type: "text", text: "use tool please" }] }] };

  it("R0.5 answers with a tool_use block toolu_sim_1 and stop_reason tool_use", async () => {
    const body = JSON.parse((await post(`${sim.url}/v1/messages`, ask)).text);
    expect(body.stop_reason).toBe("tool_use");
    expect(body.content).toEqual([{ type: "tool_use", id: "toolu_sim_1", name: "read_file", input: { path: "sim" } }]);
  });

  it("R0.5 streams tool_use with input_json_delta frames", async () => {
    const events = parseSse((await post(`${sim.url}/v1/messages`, { ...ask, stream: true })).text).map((e) => JSON.parse(e.data));
    const start = events.find((e) => e.type === "content_block_start");
    expect(start.content_block).toEqual({ type: "tool_use", id: "toolu_sim_1", name: "read_file", input: {} });
    const json = events
      .filter((e) => e.delta?.type === "input_json_delta")
      .map((e) => e.delta.partial_json)
      .join("");
    expect(JSON.parse(json)).toEqual({ path: "sim" });
    expect(events.find((e) => e.type === "message_delta").delta.stop_reason).toBe("tool_use");
  });

  it("R0.5 acknowledges a tool_result block", async () => {
    const messages = [
      ...ask.messages,
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_sim_1", name: "read_file", input: { path: "sim" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_sim_1", content: [{ type: "text", text: "# README" }] }] },
    ];
    const body = JSON.parse((await post(`${sim.url}/v1/messages`, { ...ask, messages })).text);
    expect(body.content[0].text).toBe("Tool result received: # README");
    expect(body.stop_reason).toBe("end_turn");
  });
});

describe("Gemini tools", () => {
  const ask = { tools: geminiTools, contents: [{ role: "user", parts: [{ text: "use tool" }] }] };

  it("R0.5 answers with a functionCall built from required STRING params", async () => {
    const body = JSON.parse((await post(`${sim.url}/v1beta/models/g:generateContent`, ask)).text);
    // R20.1: Gemini 3 signs the first function call of an answer with the account's thought signature.
    expect(body.candidates[0].content.parts).toEqual([{ functionCall: { name: "read_file", args: { path: "sim" } }, thoughtSignature: expect.any(String) }]);
  });

  it("R0.5 streams the functionCall as one chunk", async () => {
    const events = jsonEvents((await post(`${sim.url}/v1beta/models/g:streamGenerateContent?alt=sse`, ask)).text);
    expect(events[0].candidates[0].content.parts[0].functionCall.name).toBe("read_file");
  });

  it("R0.5 acknowledges a functionResponse", async () => {
    const contents = [
      ...ask.contents,
      { role: "model", parts: [{ functionCall: { name: "read_file", args: { path: "sim" } } }] },
      { role: "user", parts: [{ functionResponse: { name: "read_file", response: { content: "file body" } } }] },
    ];
    const body = JSON.parse((await post(`${sim.url}/v1beta/models/g:generateContent`, { ...ask, contents })).text);
    expect(body.candidates[0].content.parts[0].text).toBe("Tool result received: file body");
  });
});
