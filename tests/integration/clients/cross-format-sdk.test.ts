// The official `openai` and `@anthropic-ai/sdk` clients through the gateway against every
// upstream format, each with a full tool round trip, streaming and not (issue 4; R1.2, R1.4).
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import {
  anthropicTurn,
  FORMATS,
  lastUpstreamRequest,
  OPENAI_TOOL,
  ANTHROPIC_TOOL,
  PROMPT,
  useCrossFormatRig,
  TOOL_NAME,
  TOOL_OUTPUT,
  UPSTREAMS,
  type Json,
  type Upstream,
  type UpstreamFormat,
} from "../../fixtures/clients/crossFormat.js";
import { parseSse } from "../harness.js";

const rig = useCrossFormatRig();

/** The tool call and the tool result as the upstream received them, in its own format. */
function upstreamToolRoundTrip(up: Upstream): { callId: string | null; resultId: string | null; callName: string; callInput: unknown; resultText: string } {
  const body = lastUpstreamRequest(rig.sim, up).body as Json;
  switch (up.format) {
    case "openai": {
      const assistant = body.messages.find((m: Json) => m.role === "assistant");
      const tool = body.messages.find((m: Json) => m.role === "tool");
      const call = assistant.tool_calls[0];
      return { callId: call.id, resultId: tool.tool_call_id, callName: call.function.name, callInput: JSON.parse(call.function.arguments), resultText: tool.content };
    }
    case "anthropic": {
      const blocks: Json[] = body.messages.flatMap((m: Json) => (Array.isArray(m.content) ? m.content : []));
      const use = blocks.find((b) => b.type === "tool_use") as Json;
      const result = blocks.find((b) => b.type === "tool_result") as Json;
      const text = typeof result.content === "string" ? result.content : result.content.map((b: Json) => b.text).join("");
      return { callId: use.id, resultId: result.tool_use_id, callName: use.name, callInput: use.input, resultText: text };
    }
    case "gemini": {
      const parts: Json[] = body.contents.flatMap((c: Json) => c.parts);
      const call = parts.find((p) => p.functionCall)?.functionCall as Json;
      const response = parts.find((p) => p.functionResponse)?.functionResponse as Json;
      // Gemini's wire has no tool ids: the pairing travels by function name.
      return { callId: null, resultId: null, callName: call.name, callInput: call.args, resultText: response.response.output };
    }
  }
}

/** The id the upstream minted for its tool call (the simulator's fixed ids); Gemini mints none. */
function upstreamMintedId(format: UpstreamFormat): string | null {
  return format === "openai" ? "call_sim_1" : format === "anthropic" ? "toolu_sim_1" : null;
}

/** Ids the gateway synthesised for Gemini calls so far: each must be new. */
const syntheticIds = new Set<string>();

function expectToolIdsPreserved(up: Upstream, clientId: string): void {
  expect(clientId).toMatch(/^[A-Za-z0-9_-]+$/);
  const seen = upstreamToolRoundTrip(up);
  expect(seen.callName).toBe(TOOL_NAME);
  expect(seen.callInput).toEqual({ city: "sim" });
  expect(seen.resultText).toContain(TOOL_OUTPUT);
  const minted = upstreamMintedId(up.format);
  if (minted === null) {
    // The gateway synthesised the id; it must be unique across calls, as clients key on it.
    expect(clientId).toMatch(/^call_/);
    expect(syntheticIds.has(clientId)).toBe(false);
    syntheticIds.add(clientId);
  } else {
    expect(clientId).toBe(minted);
    expect(seen.callId).toBe(clientId);
    expect(seen.resultId).toBe(clientId);
  }
}

/** The first leg's upstream request offered the tool in the upstream's own shape. */
function expectToolOffered(up: Upstream): void {
  const body = lastUpstreamRequest(rig.sim, up).body as Json;
  const names =
    up.format === "openai"
      ? body.tools.map((t: Json) => t.function.name)
      : up.format === "anthropic"
        ? body.tools.map((t: Json) => t.name)
        : body.tools.flatMap((t: Json) => t.functionDeclarations.map((d: Json) => d.name));
  expect(names).toEqual([TOOL_NAME]);
  if (up.format !== "gemini") expect(body.model).toBe(up.upstreamModel);
}

async function anthropicRoundTrip(up: Upstream, stream: boolean): Promise<void> {
  const model = up.alias;
  const first = await anthropicTurn(
    rig.anthropic,
    { model, max_tokens: 256, system: "You are a weather bot.", tools: [ANTHROPIC_TOOL], messages: [{ role: "user", content: PROMPT }] },
    stream,
  );
  expect(first.model).toBe(model);
  expect(first.stop_reason).toBe("tool_use");
  expect(first.usage.input_tokens).toBeGreaterThan(0);
  expect(first.usage.output_tokens).toBeGreaterThan(0);
  const use = first.content.find((b): b is Anthropic.Messages.ToolUseBlock => b.type === "tool_use");
  expect(use).toBeDefined();
  expect(use!.name).toBe(TOOL_NAME);
  expect(use!.input).toEqual({ city: "sim" });
  expectToolOffered(up);

  const second = await anthropicTurn(
    rig.anthropic,
    {
      model,
      max_tokens: 256,
      system: "You are a weather bot.",
      tools: [ANTHROPIC_TOOL],
      messages: [
        { role: "user", content: PROMPT },
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: use!.id, content: TOOL_OUTPUT }] },
      ],
    },
    stream,
  );
  expect(second.model).toBe(model);
  expect(second.stop_reason).toBe("end_turn");
  expect(second.usage.output_tokens).toBeGreaterThan(0);
  const text = second.content.map((b) => (b.type === "text" ? b.text : "")).join("");
  expect(text).toBe(`Tool result received: ${TOOL_OUTPUT}`);
  expectToolIdsPreserved(up, use!.id);
}

interface OpenaiTurn {
  model: string;
  content: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finishReason: string | null;
  usage: OpenAI.CompletionUsage | null | undefined;
}

async function openaiTurn(model: string, messages: OpenAI.Chat.ChatCompletionMessageParam[], stream: boolean): Promise<OpenaiTurn> {
  if (!stream) {
    const r = await rig.openai.chat.completions.create({ model, messages, tools: [OPENAI_TOOL] });
    const message = r.choices[0].message;
    const toolCalls = (message.tool_calls ?? []).flatMap((c) => (c.type === "function" ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }] : []));
    return { model: r.model, content: message.content ?? "", toolCalls, finishReason: r.choices[0].finish_reason, usage: r.usage };
  }
  const s = await rig.openai.chat.completions.create({ model, messages, tools: [OPENAI_TOOL], stream: true, stream_options: { include_usage: true } });
  const turn: OpenaiTurn = { model: "", content: "", toolCalls: [], finishReason: null, usage: null };
  const models = new Set<string>();
  let finishes = 0;
  let sawUsageChunk = false;
  for await (const chunk of s) {
    expect(chunk.object).toBe("chat.completion.chunk");
    // The usage chunk comes last, after the finish, with no choices.
    expect(sawUsageChunk).toBe(false);
    models.add(chunk.model);
    if (chunk.usage) {
      expect(chunk.choices).toEqual([]);
      turn.usage = chunk.usage;
      sawUsageChunk = true;
    }
    const choice = chunk.choices[0];
    if (!choice) continue;
    turn.content += choice.delta.content ?? "";
    for (const d of choice.delta.tool_calls ?? []) {
      const existing = turn.toolCalls[d.index];
      if (!existing) {
        // The first delta of a call names it and carries its id.
        expect(d.id).toBeTruthy();
        expect(d.function?.name).toBe(TOOL_NAME);
        turn.toolCalls[d.index] = { id: d.id!, name: d.function!.name!, arguments: d.function?.arguments ?? "" };
      } else {
        existing.arguments += d.function?.arguments ?? "";
      }
    }
    if (choice.finish_reason) {
      finishes += 1;
      turn.finishReason = choice.finish_reason;
    }
  }
  expect(finishes).toBe(1);
  expect(sawUsageChunk).toBe(true);
  expect([...models]).toEqual([model]);
  turn.model = model;
  return turn;
}

async function openaiRoundTrip(up: Upstream, stream: boolean): Promise<void> {
  const model = `${up.provider}/${up.upstreamModel}`;
  const history: OpenAI.Chat.ChatCompletionMessageParam[] = [
    { role: "system", content: "You are a weather bot." },
    { role: "user", content: PROMPT },
  ];
  const first = await openaiTurn(model, history, stream);
  expect(first.model).toBe(model);
  expect(first.finishReason).toBe("tool_calls");
  expect(first.usage?.prompt_tokens).toBeGreaterThan(0);
  expect(first.usage?.completion_tokens).toBeGreaterThan(0);
  expect(first.toolCalls).toHaveLength(1);
  const call = first.toolCalls[0];
  expect(call.name).toBe(TOOL_NAME);
  expect(JSON.parse(call.arguments)).toEqual({ city: "sim" });
  expectToolOffered(up);

  const second = await openaiTurn(
    model,
    [
      ...history,
      { role: "assistant", content: null, tool_calls: [{ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } }] },
      { role: "tool", tool_call_id: call.id, content: TOOL_OUTPUT },
    ],
    stream,
  );
  expect(second.model).toBe(model);
  expect(second.finishReason).toBe("stop");
  expect(second.toolCalls).toHaveLength(0);
  expect(second.content).toBe(`Tool result received: ${TOOL_OUTPUT}`);
  expect(second.usage?.completion_tokens).toBeGreaterThan(0);
  expectToolIdsPreserved(up, call.id);
}

describe("R1.4 Anthropic SDK with tools against every upstream format", () => {
  for (const format of FORMATS) {
    for (const stream of [false, true]) {
      it(`R1.4 anthropic SDK → ${format} upstream, ${stream ? "streaming" : "JSON"}: tool call, tool result, final text`, async () => {
        await anthropicRoundTrip(UPSTREAMS[format], stream);
      });
    }
  }
});

describe("R1.4 OpenAI SDK with tools against every upstream format", () => {
  for (const format of FORMATS) {
    for (const stream of [false, true]) {
      it(`R1.4 openai SDK → ${format} upstream, ${stream ? "streaming" : "JSON"}: tool call, tool result, final text`, async () => {
        await openaiRoundTrip(UPSTREAMS[format], stream);
      });
    }
  }
});

describe("R1.2 Anthropic SSE on the wire", () => {
  for (const format of FORMATS) {
    it(`R1.2 every frame from a ${format} upstream names its event as its data.type`, async () => {
      const r = await fetch(`${rig.gw.url}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
        body: JSON.stringify({ model: UPSTREAMS[format].alias, max_tokens: 64, stream: true, tools: [ANTHROPIC_TOOL], messages: [{ role: "user", content: PROMPT }] }),
      });
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toContain("text/event-stream");
      const events = parseSse(await r.text());
      expect(events.length).toBeGreaterThan(4);
      for (const e of events) expect(e.event).toBe(JSON.parse(e.data).type);
      const types = events.map((e) => e.event);
      expect(types.filter((t) => t === "message_start")).toHaveLength(1);
      expect(types.filter((t) => t === "message_delta")).toHaveLength(1);
      expect(types.at(-1)).toBe("message_stop");
      const starts = events.filter((e) => e.event === "content_block_start").map((e) => JSON.parse(e.data).content_block);
      expect(starts).toContainEqual(expect.objectContaining({ type: "tool_use", name: TOOL_NAME, input: {} }));
    });
  }
});
