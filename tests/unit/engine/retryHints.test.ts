import { answerReader } from "../../../main/gateway/formats/answerReader.js";
import { describe, expect, it } from "vitest";
import { headerValue, markLowerCaseNames, parseBodyResetText, parseDurationText, parseRetryAfter, parseRetryHint } from "../../../main/engine/retryHints.js";
import { T0 } from "./fixtures.js";

const DAY = 86_400_000;

describe("retry hints from body text (D4)", () => {
  it.each([
    ["will reset after 2h30m14s", 9_014_000],
    ["Your limit will reset after 45m.", 2_700_000],
    ["reset after 45m", 2_700_000],
    ["Resets in 164h27m24s", 592_044_000],
    ["Resets in 2400h", 30 * DAY],
    ["Please retry in 26.66s.", 26_660],
    ["Resets in 13 days", 1_123_200_000],
    ["Rate limit reached. Please try again in 20s. Visit https://example/limits", 20_000],
    ["try again in 1 hour and 5 minutes", 3_900_000],
    ["retry after 30 seconds", 30_000],
    ["retry after 750ms", 750],
  ])("D4 %j -> %d ms", (text, expected) => {
    expect(parseBodyResetText(text)).toBe(expected);
  });

  it.each([["no hint here"], ["try again later"], ["retry in 3 requests"]])("D4 %j carries no hint", (text) => {
    expect(parseBodyResetText(text)).toBeNull();
  });

  it("D4 a duration string must be entirely a duration", () => {
    expect(parseDurationText("6m0s")).toBe(360_000);
    expect(parseDurationText("2024-01-01")).toBeNull();
    expect(parseDurationText("12")).toBe(12_000);
  });
});

describe("retry hints from headers (R4.3, D4)", () => {
  it.each([
    ["D4 Retry-After seconds", { "Retry-After": "120" }, "", 120_000, "retry-after"],
    ["D4 Retry-After HTTP-date", { "retry-after": new Date(T0 + 90_000).toUTCString() }, "", 90_000, "retry-after"],
    ["R4.3 retry-after-ms wins over Retry-After", { "retry-after-ms": "1500", "retry-after": "120" }, "", 1_500, "retry-after-ms"],
    ["D4 x-ratelimit-reset epoch seconds", { "x-ratelimit-reset": String((T0 + 60_000) / 1_000) }, "", 60_000, "x-ratelimit-reset"],
    ["D4 x-ratelimit-reset epoch ms (> 1e10)", { "x-ratelimit-reset": String(T0 + 45_000) }, "", 45_000, "x-ratelimit-reset"],
    ["D4 x-ratelimit-reset relative seconds", { "x-ratelimit-reset": "30" }, "", 30_000, "x-ratelimit-reset"],
    ["R4.3 x-ratelimit-reset-* durations: the longest window", { "x-ratelimit-reset-requests": "1s", "x-ratelimit-reset-tokens": "6m0s" }, "", 360_000, "x-ratelimit-reset"],
    ["R4.3 anthropic-ratelimit-*-reset RFC 3339", { "anthropic-ratelimit-requests-reset": new Date(T0 + 20_000).toISOString() }, "", 20_000, "anthropic-ratelimit-reset"],
    ["D4 Gemini RetryInfo retryDelay", {}, '{"error":{"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"33s"}]}}', 33_000, "google_rpc_retry_info"],
    ["R4.3 header array values use the first", { "retry-after": ["7", "9"] }, "", 7_000, "retry-after"],
    ["R4.3 body text when no header", {}, "Please try again in 20s", 20_000, "body_text"],
  ] as const)("%s", (_name, headers, body, ms, source) => {
    expect(parseRetryHint(headers as Record<string, string | string[]>, body, T0, answerReader)).toMatchObject({ ms, source });
  });

  it("R9.4 Gemini's RetryInfo is the model's own quota's wait; HTTP's Retry-After is not", () => {
    const body = '{"error":{"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"90s"}]}}';
    expect(parseRetryHint({}, body, T0, answerReader)).toEqual({ ms: 90_000, source: "google_rpc_retry_info", perModel: true });
    expect(parseRetryHint({ "retry-after": "90" }, body, T0, answerReader)).toEqual({ ms: 90_000, source: "retry-after" });
  });

  it("R4.3 without the format halves' reader only HTTP's own headers and the body's words count", () => {
    expect(parseRetryHint({ "x-ratelimit-reset": "30" }, "", T0)).toBeNull();
    expect(parseRetryHint({ "x-ratelimit-reset": "30" }, "try again in 20s", T0)).toEqual({ ms: 20_000, source: "body_text" });
  });

  it("D4 a reset in the past, a negative or garbage value is no hint", () => {
    expect(parseRetryAfter(new Date(T0 - 5_000).toUTCString(), T0)).toBeNull();
    expect(parseRetryHint({ "x-ratelimit-reset": String((T0 - 60_000) / 1_000) }, "", T0, answerReader)).toBeNull();
    expect(parseRetryHint({ "retry-after": "soon" }, "", T0)).toBeNull();
  });

  it("D4 parsed resets are capped at 30 days", () => {
    expect(parseRetryHint({ "retry-after": String(90 * 86_400) }, "", T0)?.ms).toBe(30 * DAY);
  });

  it("R4.3 without a clock only relative hints count", () => {
    expect(parseRetryHint({ "x-ratelimit-reset": String((T0 + 60_000) / 1_000) }, "", Number.NaN, answerReader)).toBeNull();
    expect(parseRetryHint({ "retry-after": "3" }, "", Number.NaN)?.ms).toBe(3_000);
  });
});

describe("header lookup (issue 12)", () => {
  it("R4.3 a name is found whatever its case, and a miss is a miss, asked once or many times", () => {
    const lower = { "retry-after": " 5 ", "x-blank": "  " };
    for (let i = 0; i < 3; i++) {
      expect(headerValue(lower, "retry-after")).toBe("5");
      expect(headerValue(lower, "x-ratelimit-reset")).toBeUndefined();
      expect(headerValue(lower, "x-blank")).toBeUndefined();
    }
    const mixed = { "Content-Type": "application/json", "X-RateLimit-Reset": ["", "30"], "x-RATELIMIT-reset": "40" };
    for (let i = 0; i < 3; i++) {
      expect(headerValue(mixed, "content-type")).toBe("application/json");
      expect(headerValue(mixed, "x-ratelimit-reset")).toBe("40");
      expect(headerValue(mixed, "retry-after")).toBeUndefined();
    }
  });

  it("issue 12: a header object marked lower-case is trusted: a miss reads one name, not every name", () => {
    // Marked wrongly on purpose: only the mark can explain a miss on a name that is there in capitals.
    const marked = markLowerCaseNames({ "retry-after": "5", "X-RateLimit-Reset": "30" });
    expect(headerValue(marked, "retry-after")).toBe("5");
    expect(headerValue(marked, "x-ratelimit-reset")).toBeUndefined();
    // The mark is a symbol: the header names a caller lists or forwards are unchanged.
    expect(Object.keys(marked)).toEqual(["retry-after", "X-RateLimit-Reset"]);
    expect(JSON.stringify(marked)).toBe('{"retry-after":"5","X-RateLimit-Reset":"30"}');
    expect(headerValue({ "X-RateLimit-Reset": "30" }, "x-ratelimit-reset")).toBe("30");
  });
});
