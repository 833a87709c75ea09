import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulator, type Simulator } from "../../../main/simulator/index.js";

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ label: "sim-sdk" });
});
afterAll(async () => {
  await sim.close();
});

describe("official SDKs against the simulator", () => {
  it("R1.1 the OpenAI SDK streams text with usage and completes a tool round trip", async () => {
    const client = new OpenAI({ apiKey: "oa-key", baseURL: `${sim.url}/v1`, maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: "sim-fast",
      messages: [{ role: "user", content: "hello" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? "";
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe("Hello from sim-sdk (key oa-key)");
    expect(usage?.completion_tokens).toBe(5);

    const tools: OpenAI.ChatCompletionTool[] = [
      { type: "function", function: { name: "read_file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } },
    ];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "use tool to read the readme" }];
    const first = await client.chat.completions.create({ model: "sim-fast", messages, tools });
    const call = first.choices[0].message.tool_calls![0];
    expect(call.type === "function" && JSON.parse(call.function.arguments)).toEqual({ path: "sim" });
    messages.push(first.choices[0].message, { role: "tool", tool_call_id: call.id, content: "README contents" });
    const second = await client.chat.completions.create({ model: "sim-fast", messages, tools });
    expect(second.choices[0].message.content).toBe("Tool result received: README contents");
  });

  it("R1.2 the Anthropic SDK streams a message and completes a tool round trip", async () => {
    const client = new Anthropic({ apiKey: "an-key", baseURL: sim.url, maxRetries: 0 });
    const streamed = await client.messages.stream({ model: "sim-smart", max_tokens: 64, messages: [{ role: "user", content: "hello" }] }).finalMessage();
    expect(streamed.content[0]).toMatchObject({ type: "text", text: "Hello from sim-sdk (key an-key)" });
    expect(streamed.stop_reason).toBe("end_turn");
    expect(streamed.usage.output_tokens).toBe(5);

    const tools: Anthropic.Tool[] = [{ name: "read_file", input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }];
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "use tool" }];
    const first = await client.messages.stream({ model: "sim-smart", max_tokens: 64, messages, tools }).finalMessage();
    expect(first.stop_reason).toBe("tool_use");
    const use = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === "tool_use")!;
    expect(use.input).toEqual({ path: "sim" });
    messages.push({ role: "assistant", content: first.content }, { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "ok done" }] });
    const second = await client.messages.create({ model: "sim-smart", max_tokens: 64, messages, tools });
    expect(second.content[0]).toMatchObject({ type: "text", text: "Tool result received: ok done" });
  });

  it("R13.4 the Anthropic SDK accepts the simulated thinking block", async () => {
    const client = new Anthropic({
      apiKey: "an-key",
      baseURL: sim.url,
      maxRetries: 0,
      defaultHeaders: { "x-sim-fault": JSON.stringify({ reasoningOnlyMs: 60 }) },
    });
    const msg = await client.messages.stream({ model: "sim-reasoner", max_tokens: 64, messages: [{ role: "user", content: "think" }] }).finalMessage();
    expect(msg.content.map((b) => b.type)).toEqual(["thinking", "text"]);
  });
});
