// Fixture loading, golden files and SSE grammar checks for the format tests.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createParser } from "eventsource-parser";
import { expect } from "vitest";
import { createStreamTranslator, type OutFrame, type StreamTranslator, type TranslateContext, type WireFormat } from "../../../main/gateway/formats/index.js";

export const FIXTURES = path.resolve(__dirname, "..", "..", "fixtures", "formats");

export function fixtureText(relative: string): string {
  return readFileSync(path.join(FIXTURES, relative), "utf8");
}

export function fixtureJson(relative: string): Record<string, unknown> {
  return JSON.parse(fixtureText(relative)) as Record<string, unknown>;
}

/**
 * Compares with a stored golden file. `UPDATE_GOLDEN=1` rewrites it; the rewritten file is
 * then reviewed by hand like any other change.
 */
export function expectGolden(relative: string, actual: unknown): void {
  const file = path.join(FIXTURES, "golden", relative);
  const text = typeof actual === "string" ? actual : `${JSON.stringify(actual, null, 2)}\n`;
  if (process.env["UPDATE_GOLDEN"] === "1" || !existsSync(file)) {
    if (process.env["UPDATE_GOLDEN"] !== "1") throw new Error(`missing golden file ${relative}; run with UPDATE_GOLDEN=1`);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  expect(text).toBe(readFileSync(file, "utf8"));
}

export interface SseEvent {
  event?: string;
  data: string;
}

export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createParser({ onEvent: (evt) => events.push(evt.event === undefined ? { data: evt.data } : { event: evt.event, data: evt.data }) });
  parser.feed(text);
  return events;
}

export interface StreamRun {
  frames: OutFrame[];
  text: string;
  translator: StreamTranslator;
}

export function runStream(from: WireFormat, to: WireFormat, ctx: TranslateContext, sse: string, callEnd = true): StreamRun {
  const translator = createStreamTranslator(from, to, ctx);
  const frames: OutFrame[] = [];
  for (const evt of parseSse(sse)) frames.push(...translator.push(evt));
  if (callEnd) frames.push(...translator.end());
  return { frames, text: frames.map((frame) => frame.text).join(""), translator };
}

type Block =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_use"; id: string; name: string; input: unknown };

export interface AnthropicMessage {
  id: string;
  model: string;
  content: Block[];
  stopReason: string | null;
  usage: Record<string, unknown>;
  pings: number;
}

/**
 * Checks the Messages streaming grammar: message_start; blocks opened in index order, deltas
 * only inside the open block and of its kind, each block stopped; message_delta;
 * message_stop last; pings anywhere after message_start. Returns the assembled message.
 */
export function assembleAnthropicStream(text: string): AnthropicMessage {
  const events = parseSse(text);
  expect(events[0]?.event).toBe("message_start");
  expect(events[events.length - 1]?.event).toBe("message_stop");
  const start = JSON.parse(events[0].data) as { message: { id: string; model: string; usage: Record<string, unknown> } };
  const message: AnthropicMessage = { id: start.message.id, model: start.message.model, content: [], stopReason: null, usage: {}, pings: 0 };
  let open: { index: number; block: Block; json: string } | null = null;
  let sawDelta = false;
  for (const evt of events.slice(1)) {
    const payload = JSON.parse(evt.data) as Record<string, any>;
    expect(payload["type"]).toBe(evt.event);
    switch (evt.event) {
      case "ping":
        message.pings += 1;
        break;
      case "content_block_start":
        expect(open).toBeNull();
        expect(sawDelta).toBe(false);
        expect(payload["index"]).toBe(message.content.length);
        open = { index: payload["index"], block: { ...payload["content_block"] }, json: "" };
        break;
      case "content_block_delta": {
        expect(open?.index).toBe(payload["index"]);
        const delta = payload["delta"];
        const block = open!.block as Record<string, any>;
        if (delta.type === "text_delta") {
          expect(block["type"]).toBe("text");
          block["text"] += delta.text;
        } else if (delta.type === "thinking_delta") {
          expect(block["type"]).toBe("thinking");
          block["thinking"] += delta.thinking;
        } else if (delta.type === "signature_delta") {
          expect(block["type"]).toBe("thinking");
          block["signature"] = delta.signature;
        } else if (delta.type === "input_json_delta") {
          expect(block["type"]).toBe("tool_use");
          open!.json += delta.partial_json;
        } else {
          throw new Error(`unexpected delta ${String(delta.type)}`);
        }
        break;
      }
      case "content_block_stop":
        expect(open?.index).toBe(payload["index"]);
        if (open!.block.type === "tool_use") open!.block.input = open!.json === "" ? open!.block.input : JSON.parse(open!.json);
        message.content.push(open!.block);
        open = null;
        break;
      case "message_delta":
        expect(open).toBeNull();
        sawDelta = true;
        message.stopReason = payload["delta"]["stop_reason"];
        message.usage = payload["usage"];
        break;
      case "message_stop":
        expect(sawDelta).toBe(true);
        break;
      default:
        throw new Error(`unexpected event ${String(evt.event)}`);
    }
  }
  return message;
}

export interface OpenaiAssembled {
  ids: Set<string>;
  models: Set<string>;
  content: string;
  reasoning: string;
  toolCalls: { id: string; name: string; arguments: string; extra?: unknown }[];
  finishReason: string | null;
  usage: Record<string, unknown> | null;
}

/** Checks the chunk grammar: role first, one finish chunk, optional usage chunk, [DONE] last. */
export function assembleOpenaiStream(text: string): OpenaiAssembled {
  const events = parseSse(text);
  expect(events[events.length - 1]?.data).toBe("[DONE]");
  const out: OpenaiAssembled = { ids: new Set(), models: new Set(), content: "", reasoning: "", toolCalls: [], finishReason: null, usage: null };
  events.slice(0, -1).forEach((evt, position) => {
    const chunk = JSON.parse(evt.data) as Record<string, any>;
    expect(chunk["object"]).toBe("chat.completion.chunk");
    out.ids.add(chunk["id"]);
    out.models.add(chunk["model"]);
    if (chunk["usage"]) {
      expect(chunk["choices"]).toEqual([]);
      out.usage = chunk["usage"];
      return;
    }
    const choice = chunk["choices"][0];
    if (position === 0) expect(choice.delta.role).toBe("assistant");
    expect(out.finishReason).toBeNull();
    if (choice.finish_reason) out.finishReason = choice.finish_reason;
    if (choice.delta.content) out.content += choice.delta.content;
    if (choice.delta.reasoning_content) out.reasoning += choice.delta.reasoning_content;
    for (const call of choice.delta.tool_calls ?? []) {
      if (call.id) out.toolCalls[call.index] = { id: call.id, name: call.function.name, arguments: "", ...(call.extra_content ? { extra: call.extra_content } : {}) };
      out.toolCalls[call.index].arguments += call.function.arguments ?? "";
    }
  });
  return out;
}
