// Same-format OpenAI streams skip the parse of plain text-delta chunks (issue 12); the shortcut
// must agree with the parsed classification on every chunk it accepts, and refuse anything else.
import { describe, expect, it } from "vitest";
import { classifyOpenai, isPlainOpenaiContentChunk } from "../../../main/gateway/formats/openai/events.js";
import { usageFromOpenai } from "../../../main/gateway/formats/openai/usage.js";

const head = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1796077224,"model":"gpt-4o"';
const chunk = (choices: string, tail = ',"usage":null') => `${head},"choices":[${choices}]${tail}}`;

describe("plain OpenAI content chunks", () => {
  it.each([
    chunk('{"index":0,"delta":{"content":"word"},"logprobs":null,"finish_reason":null}'),
    chunk('{"index":0,"delta":{"role":"assistant","content":"\\u00e9\\"x\\""},"finish_reason":null}', ""),
    `${head},"system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":" a"},"logprobs":null,"finish_reason":null}]}`,
  ])("R13.4 a chunk it accepts parses as content, with the model and no usage: %s", (data) => {
    expect(isPlainOpenaiContentChunk(data)).toBe(true);
    const parsed = JSON.parse(data) as Record<string, unknown>;
    expect(classifyOpenai({ data }, parsed)).toBe("content");
    expect(usageFromOpenai(parsed["usage"])).toBeUndefined();
    expect(typeof parsed["model"]).toBe("string");
  });

  it.each([
    ["empty content", chunk('{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}')],
    ["a finish reason", chunk('{"index":0,"delta":{"content":"x"},"logprobs":null,"finish_reason":"stop"}')],
    ["tool calls", chunk('{"index":0,"delta":{"content":"x","tool_calls":[]},"finish_reason":null}')],
    ["usage", chunk('{"index":0,"delta":{"content":"x"},"finish_reason":null}', ',"usage":{"prompt_tokens":1}')],
    ["a second choice", chunk('{"index":0,"delta":{"content":"x"},"finish_reason":null},{"index":1,"delta":{"content":"y"},"finish_reason":null}')],
    ["an error field", `${head},"error":{"message":"x"},"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}`],
    ["spacing", chunk('{"index": 0,"delta":{"content":"x"},"finish_reason":null}')],
    ["reasoning", chunk('{"index":0,"delta":{"content":"x","reasoning_content":"r"},"finish_reason":null}')],
  ])("R13.4 refuses %s (it goes through the parse)", (_case, data) => {
    expect(isPlainOpenaiContentChunk(data)).toBe(false);
  });
});

describe("plain Anthropic text deltas", () => {
  it("R13.4 a delta it accepts parses as content", async () => {
    const { classifyAnthropic, isPlainAnthropicTextDelta } = await import("../../../main/gateway/formats/anthropic/events.js");
    const data = '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a \\"b\\""}}';
    expect(isPlainAnthropicTextDelta(data)).toBe(true);
    expect(classifyAnthropic({ event: "content_block_delta", data }, JSON.parse(data) as Record<string, unknown>)).toBe("content");
  });

  it.each([
    ['{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":""}}'],
    ['{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"x"}}'],
    ['{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"x"}}'],
    ['{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}'],
  ])("R13.4 refuses %s (it goes through the parse)", async (data) => {
    const { isPlainAnthropicTextDelta } = await import("../../../main/gateway/formats/anthropic/events.js");
    expect(isPlainAnthropicTextDelta(data)).toBe(false);
  });
});
