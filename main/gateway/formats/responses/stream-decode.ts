// Responses SSE → hub stream events. Tool calls are keyed by output_index. A custom tool call is
// handed on as the bridged function call, its raw input streamed as the string inside
// {"input": "…"}, so every other format sees an ordinary call with JSON arguments.

import type { HubStreamEvent } from "../hub.js";
import { asNumber, asRecord, asString, parseJson, type JsonObject } from "../values.js";
import { finishFromResponses } from "./response.js";
import { CUSTOM_INPUT_FIELD } from "./tools.js";
import { usageFromResponses } from "./usage.js";

interface OpenCall {
  custom: boolean;
  sawArguments: boolean;
  closed: boolean;
}

const CUSTOM_ARGS_OPEN = `{${JSON.stringify(CUSTOM_INPUT_FIELD)}:"`;
const CUSTOM_ARGS_CLOSE = '"}';

/** Text as it reads inside a JSON string literal. */
function jsonStringBody(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

export class ResponsesStreamDecoder {
  private readonly calls = new Map<number, OpenCall>();
  private sawToolCall = false;

  decode(evt: { event?: string; data: string }): HubStreamEvent[] {
    const payload = asRecord(parseJson(evt.data));
    if (!payload) return [];
    const key = asNumber(payload["output_index"]) ?? 0;
    switch (asString(payload["type"]) ?? evt.event) {
      case "response.created":
        return [{ type: "start" }];
      case "response.output_text.delta":
      case "response.refusal.delta": {
        const text = asString(payload["delta"]);
        return text ? [{ type: "text", text }] : [];
      }
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        return [{ type: "reasoning", text: asString(payload["delta"]) ?? "" }];
      case "response.reasoning_summary_part.added":
        // Summary parts are paragraphs of one reasoning text.
        return (asNumber(payload["summary_index"]) ?? 0) > 0 ? [{ type: "reasoning", text: "\n\n" }] : [];
      case "response.output_item.added":
        return this.itemAdded(key, asRecord(payload["item"]) ?? {});
      case "response.function_call_arguments.delta":
        return this.args(key, asString(payload["delta"]) ?? "", false);
      case "response.custom_tool_call_input.delta":
        return this.args(key, asString(payload["delta"]) ?? "", true);
      case "response.output_item.done":
        return this.itemDone(key, asRecord(payload["item"]) ?? {});
      case "response.completed":
      case "response.incomplete":
        return this.completed(asRecord(payload["response"]) ?? {});
      case "response.failed": {
        const error = asRecord(asRecord(payload["response"])?.["error"]);
        return [this.error(error)];
      }
      case "error":
        return [this.error(asRecord(payload["error"]) ?? payload)];
      default:
        return [];
    }
  }

  private itemAdded(key: number, item: JsonObject): HubStreamEvent[] {
    const type = item["type"];
    if (type !== "function_call" && type !== "custom_tool_call") return [];
    const custom = type === "custom_tool_call";
    this.sawToolCall = true;
    this.calls.set(key, { custom, sawArguments: false, closed: false });
    const out: HubStreamEvent[] = [{ type: "tool_start", key, id: asString(item["call_id"]) ?? asString(item["id"]) ?? "", name: asString(item["name"]) ?? "" }];
    if (custom) out.push({ type: "tool_args", key, json: CUSTOM_ARGS_OPEN });
    return out;
  }

  private args(key: number, delta: string, custom: boolean): HubStreamEvent[] {
    const call = this.calls.get(key);
    if (!call || call.custom !== custom || call.closed || delta === "") return [];
    call.sawArguments = true;
    return [{ type: "tool_args", key, json: custom ? jsonStringBody(delta) : delta }];
  }

  /** Servers that send a call whole, without deltas, still get its arguments through. */
  private itemDone(key: number, item: JsonObject): HubStreamEvent[] {
    const call = this.calls.get(key);
    if (!call || call.closed) return [];
    call.closed = true;
    const out: HubStreamEvent[] = [];
    const whole = asString(call.custom ? item["input"] : item["arguments"]) ?? "";
    if (!call.sawArguments && whole !== "") out.push({ type: "tool_args", key, json: call.custom ? jsonStringBody(whole) : whole });
    if (call.custom) out.push({ type: "tool_args", key, json: CUSTOM_ARGS_CLOSE });
    return out;
  }

  private completed(response: JsonObject): HubStreamEvent[] {
    const out: HubStreamEvent[] = [];
    // A call the upstream never closed still needs its bridged arguments closed.
    for (const [key, call] of this.calls) {
      if (call.custom && !call.closed) out.push({ type: "tool_args", key, json: CUSTOM_ARGS_CLOSE });
      call.closed = true;
    }
    const usage = usageFromResponses(response["usage"]);
    if (usage) out.push({ type: "usage", usage });
    out.push({ type: "finish", reason: finishFromResponses(response, this.sawToolCall) }, { type: "done" });
    return out;
  }

  private error(error: JsonObject | undefined): HubStreamEvent {
    const code = asString(error?.["code"]);
    return {
      type: "error",
      message: asString(error?.["message"]) ?? "upstream error",
      errorType: asString(error?.["type"]) ?? "server_error",
      ...(code !== undefined ? { code } : {}),
    };
  }
}
