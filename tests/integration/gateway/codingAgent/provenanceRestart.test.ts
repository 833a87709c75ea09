// R22.3: reasoning provenance survives a restart. A thinking conversation served by account A,
// the gateway closed and started again on the same home, the next turn (A's signed thinking in its
// history) must reach A intact: byte for byte, nothing stripped, thinking still on in a tool loop.
// Before the book was kept in the store, the new process knew none of A's artifacts and took
// them out as a stranger's, losing the reasoning and the cached prefix of a conversation that
// never moved (R20.1, R20.2).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../../../../main/simulator/index.js";
import { addProvider, parseSse, startGateway, startSim, type TestGateway } from "../../harness.js";

type Json = Record<string, any>;

const CLAUDE_CODE = { "user-agent": "claude-cli/2.1.332 (external, cli)", "anthropic-version": "2023-06-01", "x-api-key": "x" };
const TOOLS = [{ name: "read_file", description: "Read a file", input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }];

let sim: Simulator;
let home: string;
let gw: TestGateway | undefined;

beforeAll(async () => {
  sim = await startSim({ label: "restart" });
  home = mkdtempSync(path.join(tmpdir(), "switchyard-provenance-restart-"));
});

afterAll(async () => {
  await gw?.close();
  await sim?.close();
  rmSync(home, { recursive: true, force: true });
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

const body = (messages: Json[], stream: boolean) => ({
  model: "agent",
  max_tokens: 4096,
  stream,
  tools: TOOLS,
  thinking: { type: "enabled", budget_tokens: 2048 },
  metadata: { user_id: "user_abc_account__session_restart" },
  messages,
});

describe("R22.3 reasoning provenance across a restart", () => {
  it("R22.3 after a restart on the same home, account A's own signed thinking goes back to A intact (byte for byte, thinking on in the tool loop)", async () => {
    gw = await startGateway({ home });
    await addProvider(gw, "acct-a", sim, "anthropic", ["key-a"]);
    await addProvider(gw, "acct-b", sim, "anthropic", ["key-b"]);
    expect((await gw.api("POST", "/api/combos", { name: "agent", strategy: "priority", targets: [{ model: "acct-a/m1" }, { model: "acct-b/m1" }] })).status).toBe(201);

    const ask = [{ role: "user", content: "Please use tool now." }];
    const first = await gw.post("/v1/messages", body(ask, true), CLAUDE_CODE);
    expect(first.status).toBe(200);
    expect(sim.requests.at(-1)!.key).toBe("key-a");
    const assistant = messageFromStream(first.text);
    expect(assistant.map((b) => b.type)).toEqual(["thinking", "tool_use"]);
    expect(assistant[0].signature).toMatch(/^gAAAAA/);

    await gw.close();
    gw = await startGateway({ home });

    const loop = [...ask, { role: "assistant", content: assistant }, { role: "user", content: [{ type: "tool_result", tool_use_id: assistant[1].id, content: "# README" }] }];
    const raw = JSON.stringify(body(loop, false));
    const res = await fetch(`${gw.url}/v1/messages`, { method: "POST", headers: { ...CLAUDE_CODE, "content-type": "application/json" }, body: raw });
    expect(res.status).toBe(200);
    await res.text();
    const sent = sim.requests.at(-1)!;
    expect(sent.key).toBe("key-a");
    // The signed thinking reached its own account as the client sent it: same bytes, so the same cached prefix.
    expect(sent.rawBody).toBe(raw.replace('"model":"agent"', '"model":"m1"'));
    expect((sent.body as Json).thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect((sent.body as Json).messages[1].content[0]).toEqual(assistant[0]);
    const row = (await gw.api<Json[]>("GET", "/api/logs?limit=1")).body[0];
    expect(row.connectionId).toBe("acct-a-c1");
    expect(row.provenance ?? null).toBeNull();
  });
});
