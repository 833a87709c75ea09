// R21.4(d): the stream events that end a 200 on the account's limit, read per upstream format, and
// what the classifier makes of them with the stream's headers.
import { answerReader } from "../../../main/gateway/formats/answerReader.js";
import { describe, expect, it } from "vitest";
import { classifyUpstreamFailure } from "../../../main/engine/classifier.js";
import { limitEventReader } from "../../../main/gateway/formats/limitEvents.js";
import { failureInput, provider, settingsWith, T0 } from "../engine/fixtures.js";

const anthropic = limitEventReader("anthropic")!;
const responses = limitEventReader("openai-responses")!;
const ev = (event: string, data: unknown) => ({ event, data: JSON.stringify(data) });

describe("R21.4 limit events inside a 200 stream", () => {
  it("R21.4 Anthropic: an error event rate_limit_error is read; other errors and events are not", () => {
    const body = anthropic(ev("error", { type: "error", error: { type: "rate_limit_error", message: "limit" } }));
    expect(JSON.parse(body!)).toEqual({ type: "error", error: { type: "rate_limit_error", message: "limit" } });
    expect(anthropic(ev("error", { type: "error", error: { type: "overloaded_error", message: "busy" } }))).toBeNull();
    expect(anthropic(ev("content_block_delta", { type: "content_block_delta", delta: { type: "text_delta", text: "rate_limit_error" } }))).toBeNull();
  });

  it("R21.4 Responses: response.failed with code usage_limit_reached, response.incomplete with that reason, an error event saying it", () => {
    const failed = responses(
      ev("response.failed", { type: "response.failed", response: { status: "failed", error: { code: "usage_limit_reached", message: "The usage limit has been reached" } } }),
    );
    expect(JSON.parse(failed!).error).toMatchObject({ type: "usage_limit_reached", code: "usage_limit_reached" });
    const incomplete = responses(
      ev("response.incomplete", { type: "response.incomplete", response: { status: "incomplete", incomplete_details: { reason: "usage_limit_reached" } } }),
    );
    expect(JSON.parse(incomplete!).error.code).toBe("usage_limit_reached");
    expect(responses(ev("error", { type: "error", error: { type: "usage_limit_reached", resets_in_seconds: 60 } }))).toContain("resets_in_seconds");
    expect(responses(ev("response.incomplete", { type: "response.incomplete", response: { incomplete_details: { reason: "max_output_tokens" } } }))).toBeNull();
    expect(responses(ev("response.failed", { type: "response.failed", response: { error: { code: "server_error", message: "usage_limit_reached? no" } } }))).toBeNull();
    expect(limitEventReader("gemini")).toBeNull();
  });

  it("R21.4 the classifier makes a stream limit the window verdict it stands for, with the stream's headers; without a window signal a rate limit", () => {
    const codex = provider({ id: "codex", format: "openai-responses", category: "oauth" });
    const headers = { "x-codex-primary-used-percent": "96", "x-codex-primary-window-minutes": "300", "x-codex-primary-reset-after-seconds": "5400" };
    const body = responses(ev("response.failed", { type: "response.failed", response: { error: { code: "usage_limit_reached", message: "The usage limit has been reached" } } }))!;
    const v = classifyUpstreamFailure(failureInput({ provider: codex, failure: { kind: "stream_limit", headers, bodyText: body } }), {
      settings: settingsWith(),
      now: T0,
      answers: answerReader,
    });
    expect(v).toMatchObject({ reason: "quota_exhausted", errorCode: "window_exhausted", status: 429, cooldownMs: 5_400_000, window: { name: "5h", resetAt: T0 + 5_400_000 } });
    const claude = provider({ id: "claude", format: "anthropic", category: "oauth" });
    const burst = anthropic(ev("error", { type: "error", error: { type: "rate_limit_error", message: "slow down" } }))!;
    const r = classifyUpstreamFailure(failureInput({ provider: claude, failure: { kind: "stream_limit", headers: {}, bodyText: burst } }), {
      settings: settingsWith(),
      now: T0,
      answers: answerReader,
    });
    expect(r).toMatchObject({ reason: "rate_limit", status: 429, cooldownMs: null });
  });
});
