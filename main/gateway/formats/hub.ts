// The hub: one OpenAI-chat-shaped intermediate form. Every format converts to and from it,
// so N formats need 2N converters instead of N². The hub is typed and slightly richer than
// OpenAI's wire JSON where a plain OpenAI body would lose information another format needs
// (ordered assistant parts, reasoning signatures, top_k).

export type ReasoningOrigin = "anthropic" | "openai" | "gemini" | "openai-responses";

export type HubImage = { kind: "base64"; mediaType: string; data: string } | { kind: "url"; url: string };

export type HubUserPart = { type: "text"; text: string } | { type: "image"; image: HubImage } | { type: "file"; mediaType: string; data: string; filename?: string };

export type HubAssistantPart =
  | { type: "text"; text: string }
  | {
      type: "reasoning";
      text: string;
      origin: ReasoningOrigin;
      /** Anthropic's signature; only meaningful when origin is "anthropic". */
      signature?: string;
      /** Anthropic redacted_thinking payload. */
      redactedData?: string;
      /** A Responses reasoning item's `encrypted_content`; only meaningful when origin is "openai-responses". */
      encryptedContent?: string;
    }
  | {
      type: "tool_call";
      id: string;
      name: string;
      arguments: string;
      thoughtSignature?: string;
      /** A call of a custom (freeform) tool: `arguments` is the bridged `{"input": "<raw text>"}`. */
      custom?: true;
    };

export type HubMessage =
  | { role: "system"; text: string }
  | { role: "user"; parts: HubUserPart[] }
  | { role: "assistant"; parts: HubAssistantPart[] }
  | { role: "tool"; toolCallId: string; name?: string; parts: HubUserPart[]; isError: boolean };

export interface HubTool {
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
  /**
   * A Responses custom (freeform) tool. `parameters` already bridges it as one string field, so
   * formats without custom tools offer it as a function; `format` is its grammar or text format.
   */
  custom?: { format?: Record<string, unknown> };
}

export type HubToolChoice = { type: "auto" } | { type: "required" } | { type: "none" } | { type: "function"; name: string };

export type ReasoningEffort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max";

export interface HubReasoning {
  mode: "enabled" | "adaptive" | "disabled";
  budgetTokens?: number;
  effort?: ReasoningEffort;
}

export type HubResponseFormat = { type: "json_object" } | { type: "json_schema"; name: string; schema: Record<string, unknown>; strict?: boolean };

export interface HubRequest {
  messages: HubMessage[];
  tools: HubTool[];
  toolChoice?: HubToolChoice;
  parallelToolCalls?: boolean;
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stop?: string[];
  stream: boolean;
  user?: string;
  reasoning?: HubReasoning;
  responseFormat?: HubResponseFormat;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
}

/** Finer than OpenAI's finish_reason so Anthropic's stop reasons survive a round trip. */
export type HubFinish = "stop" | "length" | "tool_calls" | "content_filter" | "stop_sequence" | "pause_turn" | "context_window";

export interface HubUsage {
  /** All prompt tokens, cache reads and writes included (OpenAI semantics). */
  inputTokens: number | null;
  /** All generated tokens, reasoning included. */
  outputTokens: number | null;
  cacheReadTokens?: number;
  cacheCreationTokens?: number;
  reasoningTokens?: number;
}

export interface HubResponse {
  parts: HubAssistantPart[];
  finish: HubFinish | null;
  stopSequence?: string | null;
  usage: HubUsage;
}

export type HubStreamEvent =
  | { type: "start"; usage?: HubUsage }
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string }
  | { type: "reasoning_signature"; signature: string }
  | { type: "reasoning_redacted"; data: string }
  | { type: "tool_start"; key: number; id: string; name: string; thoughtSignature?: string }
  | { type: "tool_args"; key: number; json: string }
  | { type: "finish"; reason: HubFinish; stopSequence?: string | null }
  | { type: "usage"; usage: HubUsage }
  | { type: "ping" }
  | { type: "error"; message: string; errorType?: string; code?: string }
  | { type: "done" };

type NumericField = "temperature" | "topP" | "topK" | "seed" | "presencePenalty" | "frequencyPenalty";

export function assignNumber(hub: HubRequest, key: NumericField, value: unknown): void {
  if (typeof value === "number" && Number.isFinite(value)) hub[key] = value;
}

export function emptyUsage(): HubUsage {
  return { inputTokens: null, outputTokens: null };
}

/** Later reports win field by field: streams report usage cumulatively and partially. */
export function mergeUsage(base: HubUsage, next: HubUsage): HubUsage {
  const merged: HubUsage = {
    inputTokens: next.inputTokens ?? base.inputTokens,
    outputTokens: next.outputTokens ?? base.outputTokens,
  };
  const cacheRead = next.cacheReadTokens ?? base.cacheReadTokens;
  const cacheCreation = next.cacheCreationTokens ?? base.cacheCreationTokens;
  const reasoning = next.reasoningTokens ?? base.reasoningTokens;
  if (cacheRead !== undefined) merged.cacheReadTokens = cacheRead;
  if (cacheCreation !== undefined) merged.cacheCreationTokens = cacheCreation;
  if (reasoning !== undefined) merged.reasoningTokens = reasoning;
  return merged;
}
