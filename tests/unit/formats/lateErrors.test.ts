// R24.4: each format half's mid-stream error event, for an answer decided after the stream's headers
// went out (keep-alives committed the 200): it carries what the status line and headers would have —
// the verdict code, the status's standard type, retry_after and reset_at — where that format's
// clients read an error.
import { describe, expect, it } from "vitest";
import { clientHalf, type LateAnswer } from "../../../main/gateway/formats/index.js";
import { responsesKeepAlive } from "../../../main/gateway/formats/responses/keepalive.js";
import { parseSse } from "./helpers.js";

const NOW = Date.UTC(2026, 11, 6, 8, 0, 0);
const RESET = NOW + 600_000;
const RESET_ISO = new Date(RESET).toISOString();

/** What the writer hands a half for a 429 decided late: the body's retry fields, as ClientResponse makes them. */
const late = (extra: Record<string, unknown> = {}): LateAnswer => ({
  status: 429,
  retryAfterSeconds: 600,
  resetAt: RESET,
  extra: { retry_after: 600, reset_at: RESET_ISO, ...extra },
});

function onlyEvent(frame: string): { event?: string; data: Record<string, any> } {
  const events = parseSse(frame);
  expect(events).toHaveLength(1);
  return { event: events[0].event, data: JSON.parse(events[0].data) as Record<string, any> };
}

describe("R24.4 late answers in each format half's stream error event", () => {
  it("R24.4 Anthropic: the error event's error object has the status's type, the code, retry_after and reset_at", () => {
    const { event, data } = onlyEvent(clientHalf("anthropic").errorFrame("window_exhausted", "window used up", "", late()));
    expect(event).toBe("error");
    expect(data).toEqual({
      type: "error",
      error: { type: "rate_limit_error", message: "window used up", code: "window_exhausted", retry_after: 600, reset_at: RESET_ISO },
    });
  });

  it("R24.4 OpenAI Chat: the error chunk carries the code, retry_after and reset_at", () => {
    const { event, data } = onlyEvent(clientHalf("openai").errorFrame("budget_exceeded", "over budget", "", late()));
    expect(event).toBeUndefined();
    expect(data).toEqual({ error: { message: "over budget", type: "rate_limit_error", code: "budget_exceeded", retry_after: 600, reset_at: RESET_ISO } });
  });

  it("R24.4 Gemini: the error chunk has Google's status, the verdict as ErrorInfo, the wait as RetryInfo and retry_after/reset_at", () => {
    const { data } = onlyEvent(clientHalf("gemini").errorFrame("traffic_shed", "shed", "", late()));
    expect(data).toEqual({
      error: {
        code: 429,
        message: "shed",
        status: "RESOURCE_EXHAUSTED",
        details: [
          { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "traffic_shed", domain: "switchyard" },
          { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "600s" },
        ],
        retry_after: 600,
        reset_at: RESET_ISO,
      },
    });
  });

  it("R24.4 Responses: response.failed continues the numbering and carries resets_at/resets_in_seconds as Codex reads a usage limit", () => {
    const written = responsesKeepAlive.frame(4);
    const { event, data } = onlyEvent(clientHalf("openai-responses").errorFrame("rate_limit_error", "every target is rate limited", written, late()));
    expect(event).toBe("response.failed");
    expect(data).toMatchObject({ type: "response.failed", sequence_number: 5, response: { object: "response", status: "failed" } });
    expect(data.response.error).toEqual({
      type: "rate_limit_error",
      code: "rate_limit_error",
      message: "every target is rate limited",
      retry_after: 600,
      reset_at: RESET_ISO,
      resets_at: RESET / 1000,
      resets_in_seconds: 600,
    });
  });

  it("R24.4 Responses: a used-up window says usage_limit_reached, the type Codex tells its user about, with the window_exhausted code", () => {
    const window = clientHalf("openai-responses").windowExhausted!("5h", RESET, NOW);
    const { data } = onlyEvent(clientHalf("openai-responses").errorFrame("window_exhausted", "window used up", "", late(window.extra)));
    expect(data.response.error).toEqual({
      type: "usage_limit_reached",
      code: "window_exhausted",
      message: "window used up",
      retry_after: 600,
      reset_at: RESET_ISO,
      resets_at: RESET / 1000,
      resets_in_seconds: 600,
    });
  });

  it("R24.4 a late answer that names no wait keeps the status it would have had (a refused login's 403) and carries no retry fields", () => {
    const refused: LateAnswer = { status: 403, retryAfterSeconds: null, resetAt: null };
    expect(onlyEvent(clientHalf("anthropic").errorFrame("unauthorized", "login refused", "", refused)).data.error).toEqual({
      type: "permission_error",
      message: "login refused",
      code: "unauthorized",
    });
    expect(onlyEvent(clientHalf("openai").errorFrame("unauthorized", "login refused", "", refused)).data.error).toEqual({
      message: "login refused",
      type: "permission_error",
      code: "unauthorized",
    });
    const failed = onlyEvent(clientHalf("openai-responses").errorFrame("unauthorized", "login refused", "", refused)).data;
    expect(failed.response.error).toEqual({ type: "permission_error", code: "unauthorized", message: "login refused" });
    const gemini = onlyEvent(clientHalf("gemini").errorFrame("unauthorized", "login refused", "", refused)).data;
    expect(gemini.error).toMatchObject({ code: 403, status: "PERMISSION_DENIED" });
    expect(gemini.error.details).toHaveLength(1);
  });
});
