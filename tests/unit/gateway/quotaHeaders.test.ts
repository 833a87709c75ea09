// R18.3: the quota header families, parsed into one reading per window.
import { describe, expect, it } from "vitest";
import { quotaFromHeaders } from "../../../main/gateway/pipeline/routing/learnedQuota.js";
import { hasQuotaHeaders, readQuotaHeaders, windowNameOfMinutes } from "../../../main/gateway/context/usage/quotaHeaders.js";

const NOW = Date.parse("2026-03-01T12:00:00Z");
const sec = (ms: number) => String(Math.floor(ms / 1000));
const byWindow = (headers: Record<string, string>) => Object.fromEntries(readQuotaHeaders(headers, NOW).map((r) => [r.window, r]));

describe("quota headers (R18.3)", () => {
  it("R18.3 reads Anthropic's unified 5h and 7d windows: utilization as percent, epoch-second resets, per-window status", () => {
    const reset5h = NOW + 2 * 3_600_000;
    const reset7d = NOW + 4 * 86_400_000;
    const w = byWindow({
      "anthropic-ratelimit-unified-status": "allowed_warning",
      "anthropic-ratelimit-unified-reset": sec(reset5h),
      "anthropic-ratelimit-unified-representative-claim": "five_hour",
      "anthropic-ratelimit-unified-5h-utilization": "0.42",
      "anthropic-ratelimit-unified-5h-reset": sec(reset5h),
      "anthropic-ratelimit-unified-5h-status": "allowed",
      "anthropic-ratelimit-unified-7d-utilization": "0.9",
      "anthropic-ratelimit-unified-7d-reset": sec(reset7d),
      "anthropic-ratelimit-unified-7d-status": "allowed_warning",
      "anthropic-ratelimit-unified-fallback-percentage": "0.5",
      "anthropic-ratelimit-unified-5h-surpassed-threshold": "0.4",
    });
    expect(Object.keys(w)).toEqual(["5h", "7d"]);
    expect(w["5h"]).toEqual({
      window: "5h",
      usedPercent: 42,
      remaining: null,
      limit: null,
      resetAt: Math.floor(reset5h / 1000) * 1000,
      source: "anthropic-unified",
      status: "allowed",
    });
    expect(w["7d"]).toEqual({
      window: "7d",
      usedPercent: 90,
      remaining: null,
      limit: null,
      resetAt: Math.floor(reset7d / 1000) * 1000,
      source: "anthropic-unified",
      status: "allowed_warning",
    });
  });

  it("R18.3 the overall unified status and reset belong to the claimed window, which may be a model's weekly one", () => {
    const reset = NOW + 3 * 86_400_000;
    const w = byWindow({
      "anthropic-ratelimit-unified-status": "rejected",
      "anthropic-ratelimit-unified-reset": sec(reset),
      "anthropic-ratelimit-unified-representative-claim": "seven_day_opus",
      "anthropic-ratelimit-unified-5h-utilization": "0.1",
      "anthropic-ratelimit-unified-7d_sonnet-utilization": "0.25",
      "anthropic-ratelimit-unified-overage-status": "rejected",
      "anthropic-ratelimit-unified-overage-disabled-reason": "out_of_credits",
    });
    expect(w["7d_opus"]).toMatchObject({ usedPercent: null, status: "rejected", resetAt: Math.floor(reset / 1000) * 1000 });
    expect(w["7d_sonnet"]).toMatchObject({ usedPercent: 25, status: null });
    expect(w["5h"]).toMatchObject({ usedPercent: 10, status: null, resetAt: null });
    expect(w["overage"]).toMatchObject({ usedPercent: null, status: "rejected" });
  });

  it('R18.3 a unified verdict alone is kept as the "unified" window; the slow lane\'s headers are no window', () => {
    const reset = NOW + 3_600_000;
    const readings = readQuotaHeaders(
      {
        "anthropic-ratelimit-unified-status": "rejected",
        "anthropic-ratelimit-unified-reset": sec(reset),
        "anthropic-ratelimit-unified-slow-status": "slot_busy",
        "anthropic-ratelimit-unified-slow-retry-after": "20",
      },
      NOW,
    );
    expect(readings).toEqual([
      { window: "unified", usedPercent: null, remaining: null, limit: null, resetAt: Math.floor(reset / 1000) * 1000, source: "anthropic-unified", status: "rejected" },
    ]);
  });

  it("R18.3 reads Anthropic's requests, tokens, input-tokens and output-tokens windows with RFC 3339 resets", () => {
    const w = byWindow({
      "anthropic-ratelimit-requests-limit": "1000",
      "anthropic-ratelimit-requests-remaining": "999",
      "anthropic-ratelimit-requests-reset": "2026-03-01T12:00:30Z",
      "anthropic-ratelimit-tokens-limit": "96000",
      "anthropic-ratelimit-tokens-remaining": "24000",
      "anthropic-ratelimit-tokens-reset": "2026-03-01T12:00:59Z",
      "anthropic-ratelimit-input-tokens-limit": "80000",
      "anthropic-ratelimit-input-tokens-remaining": "80000",
      "anthropic-ratelimit-output-tokens-remaining": "16000",
    });
    expect(w["requests"]).toEqual({ window: "requests", usedPercent: 0.1, remaining: 999, limit: 1000, resetAt: NOW + 30_000, source: "anthropic", status: null });
    expect(w["tokens"]).toMatchObject({ usedPercent: 75, remaining: 24000, limit: 96000, resetAt: NOW + 59_000 });
    expect(w["input-tokens"]).toMatchObject({ usedPercent: 0, remaining: 80000, limit: 80000, resetAt: null });
    expect(w["output-tokens"]).toMatchObject({ usedPercent: null, remaining: 16000, limit: null });
  });

  it("R18.3 reads OpenAI's x-ratelimit-* windows, resets given as durations from now", () => {
    const w = byWindow({
      "x-ratelimit-limit-requests": "5000",
      "x-ratelimit-remaining-requests": "4000",
      "x-ratelimit-reset-requests": "6m0s",
      "x-ratelimit-limit-tokens": "160000",
      "x-ratelimit-remaining-tokens": "159976",
      "x-ratelimit-reset-tokens": "20ms",
    });
    expect(w["requests"]).toEqual({ window: "requests", usedPercent: 20, remaining: 4000, limit: 5000, resetAt: NOW + 360_000, source: "openai", status: null });
    expect(w["tokens"]).toMatchObject({ usedPercent: 0.015, remaining: 159976, limit: 160000, resetAt: NOW + 20 });
  });

  it("R18.3 a negative count (Azure's -1) says nothing", () => {
    const w = byWindow({ "x-ratelimit-limit-tokens": "-1", "x-ratelimit-remaining-tokens": "-1", "x-ratelimit-reset-tokens": "1s" });
    expect(w["tokens"]).toMatchObject({ usedPercent: null, remaining: null, limit: null, resetAt: NOW + 1_000 });
  });

  it("R18.3 reads Codex's primary and secondary windows, named by their minutes, reset-at before reset-after-seconds", () => {
    const resetAt = NOW + 3_600_000;
    const w = byWindow({
      "x-codex-primary-used-percent": "33.5",
      "x-codex-primary-window-minutes": "300",
      "x-codex-primary-reset-at": sec(resetAt),
      "x-codex-primary-reset-after-seconds": "999999",
      "x-codex-secondary-used-percent": "12",
      "x-codex-secondary-window-minutes": "10080",
      "x-codex-secondary-reset-after-seconds": "86400",
      "x-codex-primary-over-secondary-limit-percent": "0",
      "x-codex-credits-has-credits": "False",
      "x-codex-bengalfox-primary-used-percent": "4",
      "x-codex-bengalfox-primary-window-minutes": "300",
    });
    expect(w["5h"]).toEqual({ window: "5h", usedPercent: 33.5, remaining: null, limit: null, resetAt: Math.floor(resetAt / 1000) * 1000, source: "codex", status: null });
    expect(w["7d"]).toMatchObject({ usedPercent: 12, resetAt: NOW + 86_400_000, source: "codex" });
    expect(w["bengalfox-5h"]).toMatchObject({ usedPercent: 4, resetAt: null });
    expect(Object.keys(w).sort()).toEqual(["5h", "7d", "bengalfox-5h"]);
  });

  it("R18.3 a Codex window without minutes is named by its slot; one without a used percent is none", () => {
    const w = byWindow({ "x-codex-primary-used-percent": "50", "x-codex-secondary-window-minutes": "10080" });
    expect(Object.keys(w)).toEqual(["primary"]);
    expect(windowNameOfMinutes(300)).toBe("5h");
    expect(windowNameOfMinutes(10_080)).toBe("7d");
    expect(windowNameOfMinutes(1_440)).toBe("1d");
    expect(windowNameOfMinutes(90)).toBe("90m");
  });

  it("R18.3 header names match whatever their case, and the first value of a repeated header counts", () => {
    const w = byWindow({ "X-RateLimit-Limit-Requests": "10", "X-RateLimit-Remaining-Requests": "5" });
    expect(w["requests"]).toMatchObject({ limit: 10, remaining: 5, usedPercent: 50 });
    const repeated = readQuotaHeaders({ "x-ratelimit-remaining-requests": ["7", "9"], "x-ratelimit-limit-requests": "10" }, NOW);
    expect(repeated[0]).toMatchObject({ remaining: 7, usedPercent: 30 });
  });

  it("R18.3 an answer without quota headers is told apart by a scan of names alone, and reads as no window", () => {
    const plain = { "content-type": "application/json", "x-request-id": "r1", "anthropic-version": "2023-06-01", "retry-after": "3" };
    expect(hasQuotaHeaders(plain)).toBe(false);
    expect(readQuotaHeaders(plain, NOW)).toEqual([]);
    expect(hasQuotaHeaders({ ...plain, "x-codex-primary-used-percent": "1" })).toBe(true);
    expect(hasQuotaHeaders({ "Anthropic-RateLimit-Requests-Limit": "1" })).toBe(true);
  });

  it("R11.1 learned quotas read the requests window through the same family parsers", () => {
    expect(quotaFromHeaders({ "x-ratelimit-remaining-requests": "3", "x-ratelimit-limit-requests": "10", "x-ratelimit-reset-requests": "1s" }, NOW)).toEqual({
      remaining: 3,
      limit: 10,
      resetAt: NOW + 1_000,
    });
    expect(quotaFromHeaders({ "anthropic-ratelimit-requests-remaining": "80", "anthropic-ratelimit-requests-limit": "100" }, NOW)).toEqual({ remaining: 80, limit: 100 });
    expect(quotaFromHeaders({ "x-ratelimit-remaining-requests": "-1" }, NOW)).toBeNull();
  });
});
