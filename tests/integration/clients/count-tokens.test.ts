// POST /v1/messages/count_tokens (R1.2): the upstream's own count when an Anthropic-format
// provider serves the model, otherwise a documented estimate marked as such.
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { estimateInputTokens } from "../../../main/gateway/formats/index.js";
import type { Simulator } from "../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../harness.js";

let gw: TestGateway;
let sim: Simulator;
let anthropic: Anthropic;

const COUNT_BODY = {
  system: "You count words for a living.",
  tools: [
    {
      name: "lookup",
      description: "Look a word up",
      input_schema: { type: "object" as const, properties: { word: { type: "string" } }, required: ["word"] },
    },
  ],
  messages: [
    { role: "user" as const, content: "How many tokens is this sentence, roughly speaking?" },
    { role: "assistant" as const, content: [{ type: "text" as const, text: "Let me think about that for a while." }] },
    { role: "user" as const, content: [{ type: "text" as const, text: "Please answer with a single number and nothing else." }] },
  ],
};

/** What the simulated Anthropic upstream itself answers for this body. */
async function simulatorCount(model: string): Promise<number> {
  const r = await fetch(`${sim.url}/v1/messages/count_tokens`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "direct", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ ...COUNT_BODY, model }),
  });
  expect(r.status).toBe(200);
  const body = (await r.json()) as { input_tokens: number };
  return body.input_tokens;
}

function countRequests(key: string) {
  return sim.requests.filter((r) => r.path === "/v1/messages/count_tokens" && r.key === key);
}

beforeAll(async () => {
  sim = await startSim({ label: "count" });
  gw = await startGateway();
  await addProvider(gw, "ant", sim, "anthropic", ["ant-key"], { models: ["claude-counted"] });
  await addProvider(gw, "oai", sim, "openai", ["oai-key"], { models: ["gpt-estimated"] });
  await addProvider(gw, "gem", sim, "gemini", ["gem-key"], { models: ["gemini-estimated"] });
  const settings = await gw.api("PATCH", "/api/settings", { aliases: { "claude-alias": "ant/claude-counted", "gpt-alias": "oai/gpt-estimated" } });
  expect(settings.status).toBe(200);
  const combo = await gw.api("POST", "/api/combos", {
    name: "count-combo",
    strategy: "priority",
    targets: [{ model: "oai/gpt-estimated" }, { model: "ant/claude-counted" }],
  });
  expect(combo.status).toBe(201);
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: "unused-locally", maxRetries: 0 });
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

describe("R1.2 count_tokens", () => {
  it("R1.2 an Anthropic-format provider's model gets the upstream's exact count, asked with the upstream model id", async () => {
    const expected = await simulatorCount("claude-counted");
    const { data, response } = await anthropic.messages
      .countTokens({ ...COUNT_BODY, model: "ant/claude-counted" }, { headers: { "anthropic-version": "2023-06-01", "anthropic-beta": "token-counting-2024-11-01" } })
      .withResponse();
    expect(data).toEqual({ input_tokens: expected });
    expect(response.headers.get("x-switchyard-token-count")).toBeNull();
    const seen = countRequests("ant-key").at(-1)!;
    expect(seen.model).toBe("claude-counted");
    expect(seen.headers["anthropic-version"]).toBe("2023-06-01");
    expect(seen.headers["anthropic-beta"]).toBe("token-counting-2024-11-01");
    expect((seen.body as { messages: unknown[] }).messages).toEqual(COUNT_BODY.messages);
  });

  it("R1.2 an alias of an Anthropic-format model is counted exactly too", async () => {
    const r = await gw.post("/v1/messages/count_tokens", { ...COUNT_BODY, model: "claude-alias" }, { "anthropic-version": "2023-06-01" });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ input_tokens: await simulatorCount("claude-counted") });
    expect(r.headers.get("x-switchyard-token-count")).toBeNull();
  });

  it("R1.2 a combo is counted by its first Anthropic-format target", async () => {
    const before = countRequests("ant-key").length;
    const r = await gw.post("/v1/messages/count_tokens", { ...COUNT_BODY, model: "count-combo" });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ input_tokens: await simulatorCount("claude-counted") });
    expect(r.headers.get("x-switchyard-token-count")).toBeNull();
    expect(countRequests("ant-key").length).toBe(before + 1);
  });

  for (const model of ["oai/gpt-estimated", "gpt-alias", "gem/gemini-estimated"]) {
    it(`R1.2 ${model} (no Anthropic upstream) gets the documented estimate, marked X-Switchyard-Token-Count: estimate`, async () => {
      const upstreamCountsBefore = sim.requests.filter((r) => r.path === "/v1/messages/count_tokens").length;
      const { data, response } = await anthropic.messages.countTokens({ ...COUNT_BODY, model }).withResponse();
      expect(response.headers.get("x-switchyard-token-count")).toBe("estimate");
      expect(data).toEqual(estimateInputTokens({ ...COUNT_BODY, model }));
      // Documented heuristic: about four characters per token of everything the model reads.
      const chars =
        JSON.stringify(COUNT_BODY.tools[0].input_schema).length +
        "lookupLook a word up".length +
        COUNT_BODY.system.length +
        COUNT_BODY.messages.reduce((n, m) => n + (typeof m.content === "string" ? m.content.length : m.content.reduce((k, b) => k + b.text.length, 0)), 0);
      expect(data.input_tokens).toBe(Math.ceil(chars / 4));
      expect(sim.requests.filter((r) => r.path === "/v1/messages/count_tokens").length).toBe(upstreamCountsBefore);
    });
  }

  it("R1.2 a failing Anthropic upstream degrades to the estimate instead of an error", async () => {
    sim.addFault("ant-key", { status: 500, times: 1 });
    const r = await gw.post("/v1/messages/count_tokens", { ...COUNT_BODY, model: "ant/claude-counted" });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-switchyard-token-count")).toBe("estimate");
    expect(r.body).toEqual(estimateInputTokens({ ...COUNT_BODY, model: "ant/claude-counted" }));
  });

  it("R4.1 a cooling connection is not asked to count: the estimate answers and nothing reaches the upstream", async () => {
    sim.addFault("ant-key", { status: 429, retryAfter: 30, times: 1 });
    const limited = await gw.post("/v1/messages", { model: "ant/claude-counted", max_tokens: 8, messages: [{ role: "user", content: "hi" }] });
    expect(limited.status).toBe(429);
    try {
      const before = countRequests("ant-key").length;
      const r = await gw.post("/v1/messages/count_tokens", { ...COUNT_BODY, model: "ant/claude-counted" });
      expect(r.status).toBe(200);
      expect(r.headers.get("x-switchyard-token-count")).toBe("estimate");
      expect(r.headers.get("x-switchyard-attempts")).toBe("0");
      expect(countRequests("ant-key").length).toBe(before);
    } finally {
      await gw.api("POST", "/api/resilience/cooldowns", { all: true });
    }
  });

  it("R1.3 an unknown model is a 404 in Anthropic's error format", async () => {
    await expect(anthropic.messages.countTokens({ ...COUNT_BODY, model: "nobody-serves-this" })).rejects.toBeInstanceOf(Anthropic.NotFoundError);
    const r = await gw.post("/v1/messages/count_tokens", { ...COUNT_BODY, model: "nobody-serves-this" });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ type: "error", error: { type: "not_found_error", code: "model_not_found" } });
  });
});
