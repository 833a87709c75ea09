// R20.2: a translated request is byte-stable for the same input, so an upstream's prompt cache
// sees the same prefix every time a conversation is sent again; a same-format request passes
// through byte for byte. The simulator keeps the raw bytes each request arrived with.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../../main/simulator/index.js";
import { addProvider, startGateway, startSim, type TestGateway } from "../../harness.js";

type Json = Record<string, any>;
type Format = "openai" | "anthropic" | "gemini" | "openai-responses";

let gw: TestGateway;
let sim: Simulator;

const UPSTREAMS: Format[] = ["openai", "anthropic", "gemini", "openai-responses"];

beforeAll(async () => {
  sim = await startSim();
  gw = await startGateway();
  for (const format of UPSTREAMS) await addProvider(gw, `up-${format}`, sim, format, [`stable-${format}`]);
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

const SCHEMA = { type: "object", properties: { path: { type: "string" }, limit: { type: "integer" } }, required: ["path"] };
const TOOL_NAMES = ["read_file", "grep", "edit_file"];

/** One coding-agent conversation (system, three tools, a tool call and its result, a new question) in each client format. */
function conversation(format: Format, model: string): { route: string; body: Json; headers: Record<string, string> } {
  const system = "You are a coding agent. Keep answers short.";
  if (format === "anthropic") {
    return {
      route: "/v1/messages",
      headers: { "anthropic-version": "2023-06-01", "x-api-key": "x" },
      body: {
        model,
        max_tokens: 512,
        system: [{ type: "text", text: system }],
        tools: TOOL_NAMES.map((name) => ({ name, description: `${name} tool`, input_schema: SCHEMA })),
        messages: [
          { role: "user", content: "Look at the README." },
          { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "README.md", limit: 10 } }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "# Project" }] },
          { role: "assistant", content: [{ type: "text", text: "It is a project." }] },
          { role: "user", content: "What next?" },
        ],
      },
    };
  }
  if (format === "openai") {
    return {
      route: "/v1/chat/completions",
      headers: {},
      body: {
        model,
        messages: [
          { role: "system", content: system },
          { role: "user", content: "Look at the README." },
          { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"README.md","limit":10}' } }] },
          { role: "tool", tool_call_id: "call_1", content: "# Project" },
          { role: "assistant", content: "It is a project." },
          { role: "user", content: "What next?" },
        ],
        tools: TOOL_NAMES.map((name) => ({ type: "function", function: { name, description: `${name} tool`, parameters: SCHEMA } })),
      },
    };
  }
  if (format === "gemini") {
    return {
      route: `/v1beta/models/${model}:generateContent`,
      headers: { "x-goog-api-key": "x" },
      body: {
        systemInstruction: { parts: [{ text: system }] },
        tools: [{ functionDeclarations: TOOL_NAMES.map((name) => ({ name, description: `${name} tool`, parameters: SCHEMA })) }],
        contents: [
          { role: "user", parts: [{ text: "Look at the README." }] },
          { role: "model", parts: [{ functionCall: { name: "read_file", args: { path: "README.md", limit: 10 } } }] },
          { role: "user", parts: [{ functionResponse: { name: "read_file", response: { content: "# Project" } } }] },
          { role: "model", parts: [{ text: "It is a project." }] },
          { role: "user", parts: [{ text: "What next?" }] },
        ],
      },
    };
  }
  return {
    route: "/v1/responses",
    headers: {},
    body: {
      model,
      instructions: system,
      store: false,
      tools: TOOL_NAMES.map((name) => ({ type: "function", name, description: `${name} tool`, parameters: SCHEMA })),
      input: [
        { type: "message", role: "user", content: [{ type: "input_text", text: "Look at the README." }] },
        { type: "function_call", call_id: "call_1", name: "read_file", arguments: '{"path":"README.md","limit":10}' },
        { type: "function_call_output", call_id: "call_1", output: "# Project" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "It is a project." }] },
        { type: "message", role: "user", content: [{ type: "input_text", text: "What next?" }] },
      ],
    },
  };
}

/** The same object with its top-level keys in the opposite order (what another client library might write). */
function reversedKeys(body: Json): Json {
  return Object.fromEntries(Object.entries(body).reverse());
}

async function sentBytes(route: string, text: string, headers: Record<string, string>, key: string): Promise<string> {
  const res = await fetch(gw.url + route, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: text });
  expect(res.status, await res.text()).toBe(200);
  return sim.requests.filter((r) => r.key === key).at(-1)!.rawBody;
}

const PAIRS = UPSTREAMS.flatMap((client) => UPSTREAMS.filter((up) => up !== client).map((up) => [client, up] as const));

describe("R20.2 byte-stable translated requests", () => {
  it.each(PAIRS)("R20.2 %s client → %s upstream: the same conversation twice, and with its keys in another order, is sent as the same bytes", async (client, up) => {
    const { route, body, headers } = conversation(client, `up-${up}/m1`);
    const key = `stable-${up}`;
    const first = await sentBytes(route, JSON.stringify(body), headers, key);
    const again = await sentBytes(route, JSON.stringify(body), headers, key);
    const reordered = await sentBytes(route, JSON.stringify(reversedKeys(body)), headers, key);
    expect(again).toBe(first);
    expect(reordered).toBe(first);
    // The tools go in the client's order: a cache prefix covers the tool list too.
    const names = TOOL_NAMES.map((n) => first.indexOf(`"${n}"`));
    expect(names.every((at, i) => at !== -1 && (i === 0 || at > names[i - 1]))).toBe(true);
  });

  it.each(UPSTREAMS)("R20.2 a %s client to an upstream of its own format passes the client's bytes, pretty-printed or not, with only the model replaced", async (format) => {
    const { route, body, headers } = conversation(format, `up-${format}/m1`);
    const pretty = JSON.stringify(body, null, 2);
    const sent = await sentBytes(route, pretty, headers, `stable-${format}`);
    // Gemini names the model in the path: its body goes as it came.
    expect(sent).toBe(format === "gemini" ? pretty : pretty.replace(`"model": "up-${format}/m1"`, `"model": "m1"`));
  });
});
