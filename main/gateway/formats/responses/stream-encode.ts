// Hub stream events → the Responses typed SSE sequence: response.created, response.in_progress,
// then per output item output_item.added, its part and delta events, output_item.done, and
// response.completed (or .incomplete, or .failed) carrying the whole response. Every frame has a
// sequence_number counting from 0.

import type { UpstreamHalf } from "../adapter.js";
import { emptyUsage, mergeUsage, type HubFinish, type HubStreamEvent, type HubUsage } from "../hub.js";
import { FrameTemplate } from "../frameTemplate.js";
import { markerSignature } from "../reasoning.js";
import { dataFrame, sseFrame } from "../sse.js";
import type { FrameKind, OutFrame, TranslateContext } from "../types.js";
import type { JsonObject } from "../values.js";
import { itemId } from "./ids.js";
import { wrappedAnthropicRedacted, wrappedAnthropicSignature } from "./reasoning-items.js";
import { finalStatus, messageItem, outputTextPart, reasoningItem, responseObject, ResponseJson, toolCallItem, type ResponseState } from "./response.js";
import { customToolNames, unwrapCustomInput } from "./tools.js";

interface TextItem {
  kind: "message" | "reasoning";
  id: string;
  outputIndex: number;
  text: string;
  encrypted?: string;
}

interface ToolItem {
  id: string;
  outputIndex: number;
  call: { id: string; name: string; arguments: string };
  custom: boolean;
}

/** The text delta, the one event of most of a stream, serialised around its values once. */
const TEXT_DELTA = new FrameTemplate(
  4,
  (sequence: number, itemId: string, outputIndex: number, delta: string) => ({
    type: "response.output_text.delta",
    sequence_number: sequence,
    item_id: itemId,
    output_index: outputIndex,
    content_index: 0,
    delta,
    logprobs: [],
  }),
  "response.output_text.delta",
);

export class ResponsesStreamEncoder {
  private sequence = 0;
  private started = false;
  private finished = false;
  private readonly output: JsonObject[] = [];
  private current: TextItem | null = null;
  /** Tool calls stay open together: OpenAI-compatible upstreams may interleave their arguments. */
  private readonly tools = new Map<number, ToolItem>();
  private finish: HubFinish | null = null;
  private usage: HubUsage = emptyUsage();
  private readonly createdAt = Math.floor(Date.now() / 1000);
  private readonly customTools: Set<string>;
  private readonly responseJson = new ResponseJson();

  constructor(
    private readonly ctx: TranslateContext,
    private readonly upstream: Pick<UpstreamHalf, "reasoningMarker">,
  ) {
    this.customTools = customToolNames(ctx.clientBody);
  }

  encode(event: HubStreamEvent): OutFrame[] {
    if (this.finished) return [];
    switch (event.type) {
      case "start":
        if (event.usage) this.usage = mergeUsage(this.usage, event.usage);
        return this.ensureStarted();
      case "text":
        if (event.text === "") return [];
        return [...this.open("message"), this.textDelta(event.text)];
      case "reasoning":
        // Empty reasoning deltas are kept: they are the liveness signal of a thinking model.
        return [...this.open("reasoning"), this.delta("response.reasoning_summary_text.delta", { summary_index: 0, delta: event.text }, "reasoning", event.text)];
      case "reasoning_signature":
        if (this.current?.kind === "reasoning") this.current.encrypted = wrappedAnthropicSignature(event.signature);
        return [];
      case "reasoning_redacted":
        return this.redacted(event.data);
      case "tool_start":
        return this.startTool(event.key, event.id, event.name);
      case "tool_args":
        return this.toolArgs(event.key, event.json);
      case "finish":
        this.finish = event.reason;
        return [];
      case "usage":
        this.usage = mergeUsage(this.usage, event.usage);
        return [];
      case "error":
        return this.fail(event.code ?? event.errorType ?? "server_error", event.message);
      case "done":
        return this.close();
      case "ping":
        return [];
    }
  }

  end(): OutFrame[] {
    return this.finished || !this.started ? [] : this.close();
  }

  private frame(type: string, payload: JsonObject, kind: FrameKind): OutFrame {
    const frame = dataFrame({ type, sequence_number: this.sequence, ...payload }, kind, type);
    this.sequence += 1;
    return frame;
  }

  /** A lifecycle event carrying the response object, its JSON text made once for both starting events. */
  private responseFrame(type: string, response: { object: JsonObject; text: string }, kind: FrameKind): OutFrame {
    const data = { type, sequence_number: this.sequence, response: response.object };
    const frame = { text: sseFrame(`{"type":${JSON.stringify(type)},"sequence_number":${this.sequence},"response":${response.text}}`, type), kind, data };
    this.sequence += 1;
    return frame;
  }

  private response(state: Omit<ResponseState, "output">): { object: JsonObject; text: string } {
    // The output so far, not the list it grows in: the frame's data must stay what its text says.
    const object = responseObject(this.ctx, this.createdAt, { ...state, output: [...this.output] });
    return { object, text: this.responseJson.text(object) };
  }

  private ensureStarted(): OutFrame[] {
    if (this.started) return [];
    this.started = true;
    const response = this.response({ status: "in_progress", usage: null });
    return [this.responseFrame("response.created", response, "lifecycle"), this.responseFrame("response.in_progress", response, "lifecycle")];
  }

  private nextIndex(): number {
    return this.output.length + (this.current ? 1 : 0) + this.tools.size;
  }

  private added(item: JsonObject, outputIndex: number, kind: FrameKind): OutFrame {
    return this.frame("response.output_item.added", { output_index: outputIndex, item }, kind);
  }

  private itemDone(item: JsonObject, outputIndex: number): OutFrame {
    this.output.push(item);
    return this.frame("response.output_item.done", { output_index: outputIndex, item }, "lifecycle");
  }

  private open(kind: TextItem["kind"]): OutFrame[] {
    if (this.current?.kind === kind) return [];
    const frames = [...this.ensureStarted(), ...this.closeOpen()];
    const outputIndex = this.nextIndex();
    const id = itemId(kind === "message" ? "msg_" : "rs_", this.ctx.requestId, outputIndex);
    this.current = { kind, id, outputIndex, text: "" };
    const at = { item_id: id, output_index: outputIndex };
    if (kind === "message") {
      frames.push(this.added(messageItem(id, "in_progress", null), outputIndex, "lifecycle"));
      frames.push(this.frame("response.content_part.added", { ...at, content_index: 0, part: outputTextPart("") }, "lifecycle"));
    } else {
      frames.push(this.added(reasoningItem(id, null, undefined), outputIndex, "reasoning"));
      frames.push(this.frame("response.reasoning_summary_part.added", { ...at, summary_index: 0, part: { type: "summary_text", text: "" } }, "reasoning"));
    }
    return frames;
  }

  private delta(type: string, payload: JsonObject, kind: FrameKind, text: string): OutFrame {
    const item = this.current!;
    item.text += text;
    return this.frame(type, { item_id: item.id, output_index: item.outputIndex, ...payload }, kind);
  }

  private textDelta(text: string): OutFrame {
    const item = this.current!;
    item.text += text;
    const frame = TEXT_DELTA.frame("content", this.sequence, item.id, item.outputIndex, text);
    this.sequence += 1;
    return frame;
  }

  private closeOpen(): OutFrame[] {
    const frames = this.closeCurrent();
    for (const tool of this.tools.values()) frames.push(...this.closeTool(tool));
    this.tools.clear();
    return frames;
  }

  private closeCurrent(): OutFrame[] {
    const item = this.current;
    if (!item) return [];
    this.current = null;
    const at = { item_id: item.id, output_index: item.outputIndex };
    if (item.kind === "message") {
      return [
        this.frame("response.output_text.done", { ...at, content_index: 0, text: item.text, logprobs: [] }, "lifecycle"),
        this.frame("response.content_part.done", { ...at, content_index: 0, part: outputTextPart(item.text) }, "lifecycle"),
        this.itemDone(messageItem(item.id, "completed", item.text), item.outputIndex),
      ];
    }
    // Reasoning from elsewhere is marked with its origin, so the client's replay of it is recognised.
    const marker = this.upstream.reasoningMarker;
    const encrypted = item.encrypted ?? (marker !== null ? markerSignature(marker) : undefined);
    const summary = { type: "summary_text", text: item.text };
    return [
      this.frame("response.reasoning_summary_text.done", { ...at, summary_index: 0, text: item.text }, "reasoning"),
      this.frame("response.reasoning_summary_part.done", { ...at, summary_index: 0, part: summary }, "reasoning"),
      this.itemDone(reasoningItem(item.id, item.text, encrypted), item.outputIndex),
    ];
  }

  private redacted(data: string): OutFrame[] {
    const frames = [...this.ensureStarted(), ...this.closeOpen()];
    const outputIndex = this.nextIndex();
    const id = itemId("rs_", this.ctx.requestId, outputIndex);
    frames.push(this.added(reasoningItem(id, null, undefined), outputIndex, "reasoning"));
    frames.push(this.itemDone(reasoningItem(id, null, wrappedAnthropicRedacted(data)), outputIndex));
    return frames;
  }

  private startTool(key: number, callId: string, name: string): OutFrame[] {
    const frames = [...this.ensureStarted(), ...this.closeCurrent()];
    const custom = this.customTools.has(name);
    const outputIndex = this.nextIndex();
    const tool: ToolItem = { id: itemId(custom ? "ctc_" : "fc_", this.ctx.requestId, outputIndex), outputIndex, call: { id: callId, name, arguments: "" }, custom };
    this.tools.set(key, tool);
    frames.push(this.added(toolCallItem(tool.id, "in_progress", tool.call, custom), outputIndex, "tool"));
    return frames;
  }

  private toolArgs(key: number, json: string): OutFrame[] {
    const tool = this.tools.get(key);
    if (!tool) return [];
    tool.call.arguments += json;
    // A custom call's input is a string inside the bridged JSON: it is sent whole when the call ends.
    if (tool.custom || json === "") return [];
    return [this.frame("response.function_call_arguments.delta", { item_id: tool.id, output_index: tool.outputIndex, delta: json }, "tool")];
  }

  private closeTool(tool: ToolItem): OutFrame[] {
    const at = { item_id: tool.id, output_index: tool.outputIndex };
    const frames: OutFrame[] = [];
    if (tool.custom) {
      const input = unwrapCustomInput(tool.call.arguments);
      if (input !== "") frames.push(this.frame("response.custom_tool_call_input.delta", { ...at, delta: input }, "tool"));
      frames.push(this.frame("response.custom_tool_call_input.done", { ...at, input }, "tool"));
    } else {
      frames.push(this.frame("response.function_call_arguments.done", { ...at, arguments: tool.call.arguments }, "tool"));
    }
    frames.push(this.itemDone(toolCallItem(tool.id, "completed", tool.call, tool.custom), tool.outputIndex));
    return frames;
  }

  private close(): OutFrame[] {
    const frames = [...this.ensureStarted(), ...this.closeOpen()];
    this.finished = true;
    const finish = this.finish ?? (this.output.some((item) => item["type"] !== "message" && item["type"] !== "reasoning") ? "tool_calls" : "stop");
    const status = finalStatus(finish);
    const type = status === "completed" ? "response.completed" : "response.incomplete";
    frames.push(this.responseFrame(type, this.response({ status, usage: this.usage, finish }), "done"));
    return frames;
  }

  private fail(code: string, message: string): OutFrame[] {
    const frames = this.ensureStarted();
    this.finished = true;
    frames.push(this.responseFrame("response.failed", this.response({ status: "failed", usage: this.usage, error: { code, message } }), "error"));
    return frames;
  }
}
