// Reasoning crosses formats that disagree on what it is: Anthropic signs thinking blocks,
// OpenAI-compatible upstreams stream unsigned `reasoning_content`, Gemini marks thought
// parts, the Responses API returns reasoning items with an opaque `encrypted_content`. Anthropic rejects a thinking block whose signature it did not issue, so reasoning
// produced elsewhere is handed to Anthropic clients with a marker signature that says where
// it came from; on the way back the marker decides where it may be replayed.

import type { ReasoningEffort, ReasoningOrigin } from "./hub.js";

const MARKER_PREFIX = "switchyard.reasoning.";

export function markerSignature(origin: Exclude<ReasoningOrigin, "anthropic">): string {
  return `${MARKER_PREFIX}${origin}`;
}

export function originOfSignature(signature: string | undefined): ReasoningOrigin | undefined {
  if (signature === undefined || signature === "") return undefined;
  if (!signature.startsWith(MARKER_PREFIX)) return "anthropic";
  const origin = signature.slice(MARKER_PREFIX.length);
  return origin === "openai" || origin === "gemini" || origin === "openai-responses" ? origin : undefined;
}

/**
 * Budgets used when only an effort level is known. Anthropic's minimum budget is 1 024;
 * the steps roughly quadruple, which is how providers space their own effort levels.
 */
const BUDGET_FOR_EFFORT: Record<ReasoningEffort, number> = {
  none: 0,
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 24576,
  xhigh: 32768,
  max: 32768,
};

export function budgetForEffort(effort: ReasoningEffort): number {
  return BUDGET_FOR_EFFORT[effort];
}

export function effortForBudget(budget: number): ReasoningEffort {
  if (budget <= 0) return "none";
  if (budget <= 2048) return "low";
  if (budget <= 8192) return "medium";
  return "high";
}

export function parseEffort(value: unknown): ReasoningEffort | undefined {
  switch (value) {
    case "none":
    case "minimal":
    case "low":
    case "medium":
    case "high":
    case "xhigh":
    case "max":
      return value;
    default:
      return undefined;
  }
}

/** OpenAI-compatible `reasoning_effort` has no "max"; the closest is its top level. */
export function openaiEffort(effort: ReasoningEffort): string {
  return effort === "max" ? "xhigh" : effort;
}

/** Name reported in the dropped list when replaying reasoning is impossible. */
export function droppedReasoningField(origin: ReasoningOrigin): string {
  switch (origin) {
    case "anthropic":
      return "messages.thinking";
    case "openai":
      return "messages.reasoning_content";
    case "gemini":
      return "messages.thought";
    case "openai-responses":
      return "input.reasoning";
  }
}
