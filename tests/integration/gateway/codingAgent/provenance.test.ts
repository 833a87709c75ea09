// R20.1: a conversation with reasoning fails over mid-session to another account, and the next
// turn succeeds there: the simulator signs thinking blocks and thought signatures per API key and
// refuses a foreign one with the real APIs' own words, so a gateway that forwarded them would fail.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../../../main/simulator/index.js";
import { addProvider, parseSse, startGateway, startSim, type TestGateway } from "../../harness.js";

type Json = Record<string, any>;

let gw: TestGateway;
let sim: Simulator;

/** Each test is its own session: a failover pins the session to the account that answered (R7.1). */
let session = 0;
const CLAUDE_CODE = { "user-agent": "claude-cli/2.1.332 (external, cli)", "anthropic-version": "2023-06-01", "x-api-key": "x" };

beforeAll(async () => {
  sim = await startSim();
  gw = await startGateway();
  await addProvider(gw, "acct-a", sim, "anthropic", ["key-a"]);
  await addProvider(gw, "acct-b", sim, "anthropic", ["key-b"]);
  await addProvider(gw, "gem-a", sim, "gemini", ["gkey-a"]);
  await addProvider(gw, "gem-b", sim, "gemini", ["gkey-b"]);
  for (const [name, a, b] of [
    ["agent", "acct-a", "acct-b"],
    ["gagent", "gem-a", "gem-b"],
  ]) {
    expect((await gw.api("POST", "/api/combos", { name, strategy: "priority", targets: [{ model: `${a}/m1` }, { model: `${b}/m1` }] })).status).toBe(201);
  }
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
});

beforeEach(async () => {
  sim.clearFaults();
  sim.requests.length = 0;
  await gw.api("PATCH", "/api/resilience", { reasoningProvenance: { enabled: true } });
  await gw.api("POST", "/api/resilience/cooldowns", { all: true });
  await gw.api("POST", "/api/resilience/reset", {});
  session++;
});

/** The assistant message a streamed Anthropic answer spelled out, block by block (as Claude Code rebuilds it). */
function messageFromStream(text: string): Json[] {
  const blocks: Json[] = [];
  for (const { data } of parseSse(text)) {
    const event = JSON.parse(data) as Json;
    if (event.type === "content_block_start") blocks[event.index] = { ...event.content_block };
    if (event.type !== "content_block_delta") continue;
    const block = blocks[event.index];
    const d = event.delta;
    if (d.type === "thinking_delta") block.thinking += d.thinking;
    if (d.type === "signature_delta") block.signature = d.signature;
    if (d.type === "text_delta") block.text += d.text;
    if (d.type === "input_json_delta") block.partial = (block.partial ?? "") + d.partial_json;
  }
  return blocks.map(({ partial, ...b }) => (b.type === "tool_use" ? { ...b, input: JSON.parse(partial || "{}") } : b));
}

const TOOLS = [{ name: "read_file", description: "Read a file", input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }];

async function anthropicTurn(messages: Json[], stream: boolean) {
  const body = {
    model: "agent",
    max_tokens: 4096,
    stream,
    tools: TOOLS,
    thinking: { type: "enabled", budget_tokens: 2048 },
    metadata: { user_id: `user_abc_account__session_${session}` },
    messages,
  };
  return gw.post("/v1/messages", body, CLAUDE_CODE);
}

async function lastRow(): Promise<Json> {
  return (await gw.api<Json[]>("GET", "/api/logs?limit=1")).body[0];
}

function thinkingBlocksSentTo(key: string): Json[] {
  const sent = sim.requests.filter((r) => r.key === key).at(-1)!.body as Json;
  return sent.messages.flatMap((m: Json) => (Array.isArray(m.content) ? m.content : [])).filter((b: Json) => b.type === "thinking");
}

describe("R20.1 reasoning provenance across a failover", () => {
  it("R20.1 a Claude Code-shaped turn with thinking fails over to another account and succeeds; the foreign signature never reaches it", async () => {
    const first = await anthropicTurn([{ role: "user", content: "Think first, then answer." }], true);
    expect(first.status).toBe(200);
    const assistant = messageFromStream(first.text);
    expect(assistant.map((b) => b.type)).toEqual(["thinking", "text"]);
    expect(assistant[0].signature).toMatch(/^gAAAAA/);

    sim.addFault("key-a", { status: 529, times: 1 });
    const second = await anthropicTurn(
      [
        { role: "user", content: "Think first, then answer." },
        { role: "assistant", content: assistant },
        { role: "user", content: "And now?" },
      ],
      true,
    );
    expect(second.status).toBe(200);
    expect(second.text).not.toContain('"type":"error"');
    expect(sim.requests.filter((r) => r.key === "key-b")).toHaveLength(1);
    expect(thinkingBlocksSentTo("key-b")).toEqual([]);
    const row = await lastRow();
    expect(row.connectionId).toBe("acct-b-c1");
    expect(row.provenance).toEqual({ removed: 1, plain: 0 });
  });

  it("R20.1 the same account keeps its own thinking: nothing is removed and the body passes through byte for byte", async () => {
    const first = await anthropicTurn([{ role: "user", content: "Think first." }], false);
    const assistant = first.body.content as Json[];
    const messages = [
      { role: "user", content: "Think first." },
      { role: "assistant", content: assistant },
      { role: "user", content: "Go on." },
    ];
    const raw = JSON.stringify({
      model: "agent",
      max_tokens: 4096,
      tools: TOOLS,
      thinking: { type: "enabled", budget_tokens: 2048 },
      metadata: { user_id: `user_abc_account__session_${session}` },
      messages,
    });
    const res = await fetch(`${gw.url}/v1/messages`, { method: "POST", headers: { ...CLAUDE_CODE, "content-type": "application/json" }, body: raw });
    expect(res.status).toBe(200);
    await res.text();
    expect(sim.requests.at(-1)!.key).toBe("key-a");
    expect(sim.requests.at(-1)!.rawBody).toBe(raw.replace('"model":"agent"', '"model":"m1"'));
    expect((await lastRow()).provenance ?? null).toBeNull();
  });

  it("R20.1 in an active tool loop the foreign thinking is dropped with thinking off for that request, which the other account accepts; the next turn sends the same history", async () => {
    const ask = [{ role: "user", content: "Please use tool now." }];
    const first = await anthropicTurn(ask, true);
    const assistant = messageFromStream(first.text);
    expect(assistant.map((b) => b.type)).toEqual(["thinking", "tool_use"]);
    const toolUse = assistant[1];
    sim.addFault("key-a", { status: 529, times: 1 });
    const loop = [...ask, { role: "assistant", content: assistant }, { role: "user", content: [{ type: "tool_result", tool_use_id: toolUse.id, content: "# README" }] }];
    const second = await anthropicTurn(loop, false);
    expect(second.status).toBe(200);
    const sent = sim.requests.filter((r) => r.key === "key-b").at(-1)!.body as Json;
    expect(sent.thinking).toBeUndefined();
    expect(sent.messages[1].content).toEqual([toolUse]);
    expect((await lastRow()).provenance).toEqual({ removed: 1, plain: 0 });

    // The session is on account B now: the next turn's history starts with the same messages B was sent.
    const third = await anthropicTurn([...loop, { role: "assistant", content: second.body.content }, { role: "user", content: "Thanks." }], false);
    expect(third.status).toBe(200);
    const next = sim.requests.filter((r) => r.key === "key-b").at(-1)!.body as Json;
    expect(next.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(JSON.stringify(next.messages.slice(0, 3))).toBe(JSON.stringify(sent.messages));
  });

  it("R20.1 with reasoningProvenance off the other account refuses the foreign signature (the test above is not vacuous)", async () => {
    expect((await gw.api("PATCH", "/api/resilience", { reasoningProvenance: { enabled: false } })).status).toBe(200);
    const first = await anthropicTurn([{ role: "user", content: "Think first." }], false);
    sim.addFault("key-a", { status: 529, times: 1 });
    const second = await anthropicTurn(
      [
        { role: "user", content: "Think first." },
        { role: "assistant", content: first.body.content },
        { role: "user", content: "And?" },
      ],
      false,
    );
    expect(second.status).toBe(400);
    expect(second.text).toContain("Invalid `signature` in `thinking` block");
  });

  it("R20.1 a Gemini conversation's function call moves to another account with Google's bypass value instead of the foreign thought signature", async () => {
    const ask = {
      contents: [{ role: "user", parts: [{ text: "please use tool" }] }],
      tools: [{ functionDeclarations: [{ name: "read_file", parameters: { type: "OBJECT", properties: { path: { type: "STRING" } }, required: ["path"] } }] }],
    };
    const url = `/v1beta/models/gagent:generateContent`;
    const first = await gw.post(url, ask, { "x-goog-api-key": "x" });
    expect(first.status).toBe(200);
    const modelTurn = first.body.candidates[0].content as Json;
    expect(modelTurn.parts[0].thoughtSignature).toEqual(expect.any(String));
    const next = { ...ask, contents: [...ask.contents, modelTurn, { role: "user", parts: [{ functionResponse: { name: "read_file", response: { content: "# README" } } }] }] };

    sim.addFault("gkey-a", { status: 503, times: 1 });
    const second = await gw.post(url, next, { "x-goog-api-key": "x" });
    expect(second.status).toBe(200);
    const sent = sim.requests.filter((r) => r.key === "gkey-b").at(-1)!.body as Json;
    expect(sent.contents[1].parts[0]).toEqual({ functionCall: modelTurn.parts[0].functionCall, thoughtSignature: "skip_thought_signature_validator" });
    expect((await lastRow()).provenance).toEqual({ removed: 0, plain: 1 });

    await gw.api("PATCH", "/api/resilience", { reasoningProvenance: { enabled: false } });
    await gw.api("POST", "/api/resilience/cooldowns", { all: true });
    sim.addFault("gkey-a", { status: 503, times: 1 });
    const refused = await gw.post(url, next, { "x-goog-api-key": "x" });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain("Corrupted thought signature.");
  });
});
