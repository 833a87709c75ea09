// Hub → Anthropic Messages request.

import type { HubAssistantPart, HubMessage, HubReasoning, HubRequest, HubToolChoice, HubUserPart } from "../hub.js";
import { anthropicToolId } from "../ids.js";
import { budgetForEffort, droppedReasoningField } from "../reasoning.js";
import { argumentsToObject, DroppedFields, type JsonObject } from "../values.js";

/** R1.4: Anthropic requires max_tokens; OpenAI and Gemini clients may omit it. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;
/** Anthropic's smallest thinking budget. */
const MIN_THINKING_BUDGET = 1024;

type Turn = { role: "user" | "assistant"; content: JsonObject[] } | { role: "system"; content: string };

function userBlocks(parts: HubUserPart[]): JsonObject[] {
  return parts.flatMap((part): JsonObject[] => {
    switch (part.type) {
      case "text":
        return part.text === "" ? [] : [{ type: "text", text: part.text }];
      case "image":
        return [
          {
            type: "image",
            source: part.image.kind === "url" ? { type: "url", url: part.image.url } : { type: "base64", media_type: part.image.mediaType, data: part.image.data },
          },
        ];
      case "file":
        return [
          {
            type: "document",
            source: { type: "base64", media_type: part.mediaType, data: part.data },
            ...(part.filename !== undefined ? { title: part.filename } : {}),
          },
        ];
    }
  });
}

function assistantBlocks(parts: HubAssistantPart[], dropped: DroppedFields): JsonObject[] {
  return parts.flatMap((part): JsonObject[] => {
    switch (part.type) {
      case "text":
        return part.text === "" ? [] : [{ type: "text", text: part.text }];
      case "reasoning":
        if (part.redactedData !== undefined) return [{ type: "redacted_thinking", data: part.redactedData }];
        // Anthropic verifies signatures; reasoning from elsewhere would be rejected.
        if (part.origin === "anthropic" && part.signature) return [{ type: "thinking", thinking: part.text, signature: part.signature }];
        dropped.add(droppedReasoningField(part.origin));
        return [];
      case "tool_call":
        return [{ type: "tool_use", id: anthropicToolId(part.id), name: part.name, input: argumentsToObject(part.arguments) }];
    }
  });
}

function toolResultBlock(message: Extract<HubMessage, { role: "tool" }>): JsonObject {
  const blocks = userBlocks(message.parts);
  const onlyText = blocks.every((block) => block["type"] === "text");
  return {
    type: "tool_result",
    tool_use_id: anthropicToolId(message.toolCallId),
    content: onlyText ? message.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n\n") : blocks,
    ...(message.isError ? { is_error: true } : {}),
  };
}

/** Consecutive same-role turns are merged; tool_result blocks must lead a user turn. */
function pushTurn(turns: Turn[], turn: Turn): void {
  if (turn.role !== "system" && turn.content.length === 0) return;
  const last = turns[turns.length - 1];
  if (last && last.role !== "system" && turn.role === last.role) {
    const merged = [...last.content, ...turn.content];
    last.content = [...merged.filter((b) => b["type"] === "tool_result"), ...merged.filter((b) => b["type"] !== "tool_result")];
    return;
  }
  turns.push(turn);
}

function encodeTurns(messages: HubMessage[], dropped: DroppedFields): { system: string; turns: Turn[] } {
  const leading: string[] = [];
  const turns: Turn[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "system":
        if (turns.length === 0) leading.push(message.text);
        else turns.push({ role: "system", content: message.text });
        break;
      case "user":
        pushTurn(turns, { role: "user", content: userBlocks(message.parts) });
        break;
      case "tool":
        pushTurn(turns, { role: "user", content: [toolResultBlock(message)] });
        break;
      case "assistant":
        pushTurn(turns, { role: "assistant", content: assistantBlocks(message.parts, dropped) });
        break;
    }
  }
  return { system: leading.filter((text) => text !== "").join("\n\n"), turns };
}

function encodeToolChoice(choice: HubToolChoice | undefined, parallel: boolean | undefined): JsonObject | undefined {
  let out: JsonObject | undefined;
  switch (choice?.type) {
    case "auto":
      out = { type: "auto" };
      break;
    case "required":
      out = { type: "any" };
      break;
    case "none":
      out = { type: "none" };
      break;
    case "function":
      out = { type: "tool", name: choice.name };
      break;
    case undefined:
      // No choice: the upstream's default, unless parallel tool use is off (below).
      break;
  }
  if (parallel === false && out?.["type"] !== "none") out = { ...(out ?? { type: "auto" }), disable_parallel_tool_use: true };
  return out;
}

/**
 * With thinking on, Anthropic insists that an assistant turn ending in tool_use starts with
 * a thinking block. History produced by another upstream has none, so thinking is left off.
 */
function historyAllowsThinking(turns: Turn[]): boolean {
  const lastAssistant = [...turns].reverse().find((turn) => turn.role === "assistant");
  if (!lastAssistant || lastAssistant.role !== "assistant") return true;
  const hasToolUse = lastAssistant.content.some((block) => block["type"] === "tool_use");
  const first = lastAssistant.content[0]?.["type"];
  return !hasToolUse || first === "thinking" || first === "redacted_thinking";
}

function applyReasoning(out: JsonObject, hub: HubRequest, reasoning: HubReasoning, turns: Turn[], dropped: DroppedFields): void {
  if (reasoning.mode === "disabled" || reasoning.effort === "none") {
    out["thinking"] = { type: "disabled" };
    return;
  }
  if (!historyAllowsThinking(turns)) {
    dropped.add("thinking");
    return;
  }
  if (reasoning.mode === "adaptive") {
    out["thinking"] = { type: "adaptive" };
  } else {
    let budget = reasoning.budgetTokens ?? budgetForEffort(reasoning.effort ?? "medium");
    // An unset max_tokens keeps the default room for the answer on top of the budget.
    if (hub.maxTokens === undefined) out["max_tokens"] = DEFAULT_ANTHROPIC_MAX_TOKENS + budget;
    else budget = Math.min(budget, hub.maxTokens - 1);
    if (budget < MIN_THINKING_BUDGET) {
      dropped.add("thinking");
      return;
    }
    out["thinking"] = { type: "enabled", budget_tokens: budget };
  }
  // Thinking is incompatible with modified temperature / top_k and with top_p below 0.95.
  for (const key of ["temperature", "top_k"]) {
    if (out[key] !== undefined) {
      delete out[key];
      dropped.add(key);
    }
  }
  if (typeof out["top_p"] === "number" && out["top_p"] < 0.95) {
    delete out["top_p"];
    dropped.add("top_p");
  }
}

export function hubToAnthropicRequest(hub: HubRequest, model: string, dropped: DroppedFields): Record<string, unknown> {
  const { system, turns } = encodeTurns(hub.messages, dropped);
  const out: JsonObject = { model, max_tokens: hub.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS };
  if (system !== "") out["system"] = system;
  out["messages"] = turns;
  if (hub.stream) out["stream"] = true;
  if (hub.temperature !== undefined) out["temperature"] = hub.temperature;
  if (hub.topP !== undefined) out["top_p"] = hub.topP;
  if (hub.topK !== undefined) out["top_k"] = hub.topK;
  if (hub.stop !== undefined && hub.stop.length > 0) out["stop_sequences"] = hub.stop;
  if (hub.user !== undefined) out["metadata"] = { user_id: hub.user };
  if (hub.tools.length > 0) {
    out["tools"] = hub.tools.map((tool) => ({
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      input_schema: tool.parameters,
    }));
    const choice = encodeToolChoice(hub.toolChoice, hub.parallelToolCalls);
    if (choice) out["tool_choice"] = choice;
  }
  if (hub.reasoning) applyReasoning(out, hub, hub.reasoning, turns, dropped);
  if (hub.responseFormat?.type === "json_schema") out["output_config"] = { format: { type: "json_schema", schema: hub.responseFormat.schema } };
  if (hub.responseFormat?.type === "json_object") dropped.add("response_format");
  if (hub.seed !== undefined) dropped.add("seed");
  if (hub.presencePenalty !== undefined) dropped.add("presence_penalty");
  if (hub.frequencyPenalty !== undefined) dropped.add("frequency_penalty");
  return out;
}
