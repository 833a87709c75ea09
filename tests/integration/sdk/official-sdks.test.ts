// The official npm clients against the gateway, streaming and not (issue 2, R1.1, R1.2).
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  sim = await startSim({ label: "sdk-upstream" });
  gw = await startGateway();
  await addProvider(gw, "oai", sim, "openai", ["o-1", "o-2"]);
  await addProvider(gw, "ant", sim, "anthropic", ["a-1", "a-2"]);
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused-locally", maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: "unused-locally", maxRetries: 0 });
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

describe("official SDKs through the gateway", () => {
  it("R1.1 openai SDK: chat.completions.create, JSON", async () => {
    const r = await openai.chat.completions.create({ model: "oai/m1", messages: [{ role: "user", content: "hi" }] });
    expect(r.choices[0].message.content).toContain("o-1");
    expect(r.model).toBe("oai/m1");
  });

  it("R1.1 openai SDK: streaming with include_usage", async () => {
    const stream = await openai.chat.completions.create({ model: "oai/m1", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "hi" }] });
    let text = "";
    let usage: unknown = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? "";
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toContain("o-1");
    expect(usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) });
  });

  it("R1.2 anthropic SDK: messages.create, JSON", async () => {
    const r = await anthropic.messages.create({ model: "ant/m1", max_tokens: 64, messages: [{ role: "user", content: "hi" }] });
    expect(r.type).toBe("message");
    const block = r.content[0];
    expect(block.type === "text" && block.text).toContain("a-1");
  });

  it("R1.2 anthropic SDK: messages.stream gives the final message", async () => {
    const stream = anthropic.messages.stream({ model: "ant/m1", max_tokens: 64, messages: [{ role: "user", content: "hi" }] });
    const deltas: string[] = [];
    stream.on("text", (t) => deltas.push(t));
    const final = await stream.finalMessage();
    expect(deltas.length).toBeGreaterThan(1);
    expect(final.stop_reason).toBe("end_turn");
    expect(deltas.join("")).toContain("a-1");
  });

  it("R1.5 SDK errors are typed by status: a 429 from every connection surfaces as RateLimitError", async () => {
    sim.addFault("a-1", { status: 429, retryAfter: 3, times: 1 });
    sim.addFault("a-2", { status: 429, retryAfter: 3, times: 1 });
    await expect(anthropic.messages.create({ model: "ant/m2", max_tokens: 8, messages: [{ role: "user", content: "hi" }] })).rejects.toBeInstanceOf(Anthropic.RateLimitError);
    await gw.api("POST", "/api/resilience/cooldowns", { all: true });
  });

  it("R1.5 openai SDK gets a NotFoundError for an unknown model", async () => {
    await expect(openai.chat.completions.create({ model: "does-not-exist", messages: [{ role: "user", content: "x" }] })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });
});
