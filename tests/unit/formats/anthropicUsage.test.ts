// R18.1: Anthropic's reasoning tokens are read from the field its Messages API sends —
// `usage.output_tokens_details.thinking_tokens` (Usage and MessageDeltaUsage in @anthropic-ai/sdk;
// a part of output_tokens, not added to it; null or absent when the API gives no breakdown) — in a
// JSON answer, a translated stream and a same-format stream alike. Without that field there is no
// reasoning count: it stays unknown (null in the log), never a number made up from output_tokens.
import { describe, expect, it } from "vitest";
import { AnthropicPassthroughTracker } from "../../../main/gateway/formats/anthropic/passthrough.js";
import { AnthropicStreamDecoder } from "../../../main/gateway/formats/anthropic/stream-decode.js";
import type { HubUsage } from "../../../main/gateway/formats/hub.js";
import { upstreamHalf } from "../../../main/gateway/formats/index.js";
import { summariseUsage } from "../../../main/gateway/formats/usage.js";

const START = { type: "message_start", message: { id: "msg_1", model: "claude-sonnet-4-5", usage: { input_tokens: 12, output_tokens: 1, output_tokens_details: null } } };
const DELTA = (details: unknown) => ({
  type: "message_delta",
  delta: { stop_reason: "end_turn", stop_sequence: null },
  usage: { output_tokens: 40, output_tokens_details: details },
});

/** The last usage a translated stream reports. */
function decoded(...payloads: Record<string, unknown>[]): HubUsage | undefined {
  const decoder = new AnthropicStreamDecoder();
  let usage: HubUsage | undefined;
  for (const p of payloads) for (const e of decoder.decode({ event: String(p.type), data: JSON.stringify(p) })) if ("usage" in e && e.usage) usage = e.usage;
  return usage;
}

/** The last usage a same-format stream reports. */
function tracked(...payloads: Record<string, unknown>[]): HubUsage | undefined {
  const tracker = new AnthropicPassthroughTracker();
  let usage: HubUsage | undefined;
  for (const p of payloads) usage = tracker.track({ event: String(p.type), data: JSON.stringify(p) }, p).usage ?? usage;
  return usage;
}

describe("Anthropic reasoning tokens (R18.1)", () => {
  it("R18.1 a JSON answer's usage.output_tokens_details.thinking_tokens is the reasoning count, inside output_tokens", () => {
    const usage = upstreamHalf("anthropic").usage({ usage: { input_tokens: 12, output_tokens: 40, output_tokens_details: { thinking_tokens: 25 } } });
    expect(usage).toEqual({ inputTokens: 12, outputTokens: 40, reasoningTokens: 25 });
  });

  it("R18.1 a stream's message_delta carries it (message_start's null breakdown does not hide it), translated or passed through", () => {
    for (const read of [decoded, tracked]) {
      expect(read(START, DELTA({ thinking_tokens: 25 }))).toMatchObject({ inputTokens: 12, outputTokens: 40, reasoningTokens: 25 });
    }
  });

  it("R18.1 without the breakdown (absent, null, or another field name) the reasoning count is unknown, null in the log — never invented", () => {
    const bodies = [
      { input_tokens: 12, output_tokens: 40 },
      { input_tokens: 12, output_tokens: 40, output_tokens_details: null },
      { input_tokens: 12, output_tokens: 40, output_tokens_details: { reasoning_tokens: 25 } },
    ];
    for (const body of bodies) {
      const usage = upstreamHalf("anthropic").usage({ usage: body });
      expect(usage).toEqual({ inputTokens: 12, outputTokens: 40 });
      expect(summariseUsage(usage).reasoningTokens ?? null).toBeNull();
    }
    for (const read of [decoded, tracked]) expect(read(START, DELTA(null))?.reasoningTokens).toBeUndefined();
  });
});
