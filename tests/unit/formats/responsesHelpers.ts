// The Responses streaming grammar, checked event by event, for the Responses format tests.
import { expect } from "vitest";
import { parseSse } from "./helpers.js";

export interface ResponsesAssembled {
  types: string[];
  items: Record<string, any>[];
  response: Record<string, any>;
  text: string;
  reasoning: string;
  customInputs: string[];
}

const TERMINAL = new Set(["response.completed", "response.incomplete", "response.failed"]);

/**
 * Checks: event name equals data.type; sequence_number 0, 1, 2…; created then in_progress first;
 * every delta inside the item it names, which is open; items added and done in output order;
 * one terminal event, last, whose output equals the items that were done.
 */
export function assembleResponsesStream(text: string): ResponsesAssembled {
  const events = parseSse(text);
  const out: ResponsesAssembled = { types: [], items: [], response: {}, text: "", reasoning: "", customInputs: [] };
  const open = new Map<number, Record<string, any>>();
  events.forEach((evt, position) => {
    const payload = JSON.parse(evt.data) as Record<string, any>;
    expect(payload["type"]).toBe(evt.event);
    expect(payload["sequence_number"]).toBe(position);
    out.types.push(payload["type"]);
    const type = payload["type"] as string;
    if (position === 0) expect(type).toBe("response.created");
    if (position === 1) expect(type).toBe("response.in_progress");
    if (type === "response.created" || type === "response.in_progress") {
      expect(payload["response"]["status"]).toBe("in_progress");
      expect(payload["response"]["output"]).toEqual([]);
    }
    if (type === "response.output_item.added") {
      expect(payload["output_index"]).toBe(out.items.length + open.size);
      open.set(payload["output_index"], payload["item"]);
    } else if (type === "response.output_item.done") {
      expect(open.get(payload["output_index"])?.["id"]).toBe(payload["item"]["id"]);
      expect(payload["output_index"]).toBe(out.items.length);
      open.delete(payload["output_index"]);
      out.items.push(payload["item"]);
    } else if (payload["item_id"] !== undefined) {
      expect(open.get(payload["output_index"])?.["id"]).toBe(payload["item_id"]);
      if (type === "response.output_text.delta") out.text += payload["delta"];
      if (type === "response.reasoning_summary_text.delta") out.reasoning += payload["delta"];
      if (type === "response.custom_tool_call_input.done") out.customInputs.push(payload["input"]);
    }
    if (TERMINAL.has(type)) {
      expect(position).toBe(events.length - 1);
      out.response = payload["response"];
    }
  });
  expect(TERMINAL.has(out.types[out.types.length - 1] ?? "")).toBe(true);
  if (out.response["status"] !== "failed") {
    expect(open.size).toBe(0);
    expect(out.response["output"]).toEqual(out.items);
  }
  return out;
}
