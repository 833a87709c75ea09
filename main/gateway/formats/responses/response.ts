// OpenAI Responses JSON ⇄ hub. The response object echoes the request's settings, as OpenAI's
// does; the stream encoder builds the same object for response.created and response.completed.

import { emptyUsage, type HubAssistantPart, type HubFinish, type HubResponse, type HubUsage } from "../hub.js";
import type { TranslateContext } from "../types.js";
import { asArray, asRecord, asString, type JsonObject } from "../values.js";
import { itemId, responseId } from "./ids.js";
import { encryptedContentOf, reasoningPartOf } from "./reasoning-items.js";
import { bridgedArguments, customToolNames, unwrapCustomInput } from "./tools.js";
import { usageFromResponses, usageToResponses } from "./usage.js";

export type ResponseStatus = "in_progress" | "completed" | "incomplete" | "failed";

export interface ResponseState {
  status: ResponseStatus;
  output: JsonObject[];
  usage: HubUsage | null;
  finish?: HubFinish | null;
  error?: { code: string; message: string };
}

function incompleteReason(finish: HubFinish | null | undefined): string | null {
  if (finish === "length" || finish === "context_window") return "max_output_tokens";
  return finish === "content_filter" ? "content_filter" : null;
}

/** Completed, or incomplete when the answer was cut by the token limit or a content filter. */
export function finalStatus(finish: HubFinish | null): ResponseStatus {
  return incompleteReason(finish) === null ? "completed" : "incomplete";
}

export function responseObject(ctx: TranslateContext, createdAt: number, state: ResponseState): JsonObject {
  const body = ctx.clientBody ?? {};
  const reasoning = asRecord(body["reasoning"]);
  const reason = state.status === "incomplete" ? incompleteReason(state.finish) : null;
  return {
    id: responseId(ctx.requestId),
    object: "response",
    created_at: createdAt,
    status: state.status,
    background: false,
    error: state.error ?? null,
    incomplete_details: reason === null ? null : { reason },
    instructions: body["instructions"] ?? null,
    max_output_tokens: body["max_output_tokens"] ?? null,
    model: ctx.clientModel,
    output: state.output,
    parallel_tool_calls: body["parallel_tool_calls"] ?? true,
    previous_response_id: body["previous_response_id"] ?? null,
    prompt_cache_key: body["prompt_cache_key"] ?? null,
    reasoning: { effort: reasoning?.["effort"] ?? null, summary: reasoning?.["summary"] ?? null },
    store: body["store"] ?? true,
    temperature: body["temperature"] ?? 1,
    text: body["text"] ?? { format: { type: "text" } },
    tool_choice: body["tool_choice"] ?? "auto",
    tools: body["tools"] ?? [],
    top_p: body["top_p"] ?? 1,
    truncation: body["truncation"] ?? "disabled",
    usage: state.usage === null ? null : usageToResponses(state.usage),
    user: body["user"] ?? null,
    metadata: body["metadata"] ?? {},
  };
}

/** The request fields the response object echoes that can be large: a coding agent's whole system prompt and tool list. */
const HEAVY_ECHOES = new Set(["instructions", "tools"]);

/**
 * The JSON text of response objects of one request, its large echoed fields serialised once: a
 * stream carries the response three times (response.created, .in_progress, .completed), each with
 * the client's instructions and tools (issue 33). Byte for byte JSON.stringify(response).
 */
export class ResponseJson {
  private readonly echoes = new Map<unknown, string>();

  text(response: JsonObject): string {
    let out = "";
    for (const key of Object.keys(response)) {
      const value = response[key];
      const json = HEAVY_ECHOES.has(key) ? this.echo(value) : JSON.stringify(value);
      // Like JSON.stringify, a member without a JSON value is left out.
      if (json !== undefined) out += `${out === "" ? "{" : ","}${JSON.stringify(key)}:${json}`;
    }
    return out === "" ? "{}" : `${out}}`;
  }

  private echo(value: unknown): string | undefined {
    const known = this.echoes.get(value);
    if (known !== undefined) return known;
    const json = JSON.stringify(value) as string | undefined;
    if (json !== undefined) this.echoes.set(value, json);
    return json;
  }
}

export function messageItem(id: string, status: string, text: string | null): JsonObject {
  return { id, type: "message", status, role: "assistant", content: text === null ? [] : [outputTextPart(text)] };
}

export function outputTextPart(text: string): JsonObject {
  return { type: "output_text", annotations: [], logprobs: [], text };
}

/** Codex parses `summary` as required, so it is always present, if empty. */
export function reasoningItem(id: string, text: string | null, encryptedContent: string | undefined): JsonObject {
  return {
    id,
    type: "reasoning",
    summary: text === null || text === "" ? [] : [{ type: "summary_text", text }],
    ...(encryptedContent !== undefined ? { encrypted_content: encryptedContent } : {}),
  };
}

export function toolCallItem(id: string, status: string, call: { id: string; name: string; arguments: string }, custom: boolean): JsonObject {
  return custom
    ? { id, type: "custom_tool_call", status, call_id: call.id, name: call.name, input: unwrapCustomInput(call.arguments) }
    : { id, type: "function_call", status, arguments: call.arguments, call_id: call.id, name: call.name };
}

function outputItems(parts: HubAssistantPart[], ctx: TranslateContext): JsonObject[] {
  const custom = customToolNames(ctx.clientBody);
  const items: JsonObject[] = [];
  let text: string[] | null = null;
  const flushText = (): void => {
    if (text) items.push(messageItem(itemId("msg_", ctx.requestId, items.length), "completed", text.join("")));
    text = null;
  };
  for (const part of parts) {
    if (part.type === "text") {
      (text ??= []).push(part.text);
      continue;
    }
    flushText();
    if (part.type === "reasoning") items.push(reasoningItem(itemId("rs_", ctx.requestId, items.length), part.text, encryptedContentOf(part)));
    else {
      const isCustom = custom.has(part.name);
      items.push(toolCallItem(itemId(isCustom ? "ctc_" : "fc_", ctx.requestId, items.length), "completed", part, isCustom));
    }
  }
  flushText();
  return items;
}

export function hubToResponsesResponse(hub: HubResponse, ctx: TranslateContext): JsonObject {
  const finish = hub.finish ?? (hub.parts.some((part) => part.type === "tool_call") ? "tool_calls" : "stop");
  return responseObject(ctx, Math.floor(Date.now() / 1000), { status: finalStatus(finish), output: outputItems(hub.parts, ctx), usage: hub.usage, finish });
}

function messageParts(item: JsonObject): HubAssistantPart[] {
  const text = asArray(item["content"])
    .map((raw) => {
      const part = asRecord(raw);
      return asString(part?.["text"]) ?? asString(part?.["refusal"]) ?? "";
    })
    .join("");
  return text === "" ? [] : [{ type: "text", text }];
}

function responsesPartsOf(output: unknown): HubAssistantPart[] {
  const parts: HubAssistantPart[] = [];
  for (const raw of asArray(output)) {
    const item = asRecord(raw);
    if (!item) continue;
    const id = asString(item["call_id"]) ?? asString(item["id"]) ?? "";
    const name = asString(item["name"]) ?? "";
    switch (item["type"]) {
      case "message":
        parts.push(...messageParts(item));
        break;
      case "reasoning":
        parts.push(reasoningPartOf(item));
        break;
      case "function_call":
        parts.push({ type: "tool_call", id, name, arguments: asString(item["arguments"]) ?? "" });
        break;
      case "custom_tool_call":
        parts.push({ type: "tool_call", id, name, arguments: bridgedArguments(asString(item["input"]) ?? ""), custom: true });
        break;
    }
  }
  return parts;
}

/** The hub finish of a Responses answer: its status and incomplete reason, and whether it calls tools. */
export function finishFromResponses(response: JsonObject, sawToolCall: boolean): HubFinish {
  if (response["status"] === "incomplete") {
    return asRecord(response["incomplete_details"])?.["reason"] === "content_filter" ? "content_filter" : "length";
  }
  return sawToolCall ? "tool_calls" : "stop";
}

export function responsesResponseToHub(body: unknown): HubResponse {
  const record = asRecord(body) ?? {};
  const parts = responsesPartsOf(record["output"]);
  return {
    parts,
    finish: finishFromResponses(
      record,
      parts.some((part) => part.type === "tool_call"),
    ),
    usage: usageFromResponses(record["usage"]) ?? emptyUsage(),
  };
}
