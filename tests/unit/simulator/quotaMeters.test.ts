// R18.3: the simulator's rate-limit and subscription headers follow the tokens each key was served.
import { describe, expect, it } from "vitest";
import { readQuotaHeaders } from "../../../main/gateway/context/usage/quotaHeaders.js";
import { goDuration, QuotaMeters, SIM_QUOTA } from "../../../main/simulator/quotaMeters.js";

const START = Date.parse("2026-03-01T12:00:10Z");
const asStrings = (h: Record<string, unknown>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, String(v)]));

describe("simulated quota headers (R18.3)", () => {
  it("R18.3 Anthropic answers carry unified 5h/7d utilisation that grows per key, and the per-minute limits", () => {
    const meters = new QuotaMeters(START);
    meters.served("anthropic", "k1", { input: 600, output: 400 }, START + 1_000);
    const h = asStrings(meters.served("anthropic", "k1", { input: 1_000, output: 0 }, START + 2_000));
    expect(h["anthropic-ratelimit-unified-5h-utilization"]).toBe(String(2_000 / SIM_QUOTA.fiveHourTokens));
    expect(h["anthropic-ratelimit-unified-7d-utilization"]).toBe(String(2_000 / SIM_QUOTA.weekTokens));
    expect(h["anthropic-ratelimit-unified-5h-reset"]).toBe(String(Math.floor((START + SIM_QUOTA.fiveHourMs) / 1000)));
    expect(h["anthropic-ratelimit-unified-representative-claim"]).toBe("five_hour");
    expect(h["anthropic-ratelimit-unified-status"]).toBe("allowed");
    expect(h["anthropic-ratelimit-requests-remaining"]).toBe(String(SIM_QUOTA.anthropic.requests - 2));
    expect(h["anthropic-ratelimit-output-tokens-remaining"]).toBe(String(SIM_QUOTA.anthropic.outputTokens - 400));
    expect(h["anthropic-ratelimit-requests-reset"]).toBe("2026-03-01T12:01:00Z");
    const other = asStrings(meters.served("anthropic", "k2", { input: 10, output: 0 }, START + 3_000));
    expect(other["anthropic-ratelimit-unified-5h-utilization"]).toBe(String(10 / SIM_QUOTA.fiveHourTokens));
  });

  it("R18.3 a window past its fixed reset starts again at the next one; a full one says rejected", () => {
    const meters = new QuotaMeters(START);
    let h = asStrings(meters.served("anthropic", "k", { input: SIM_QUOTA.fiveHourTokens, output: 0 }, START));
    expect(h["anthropic-ratelimit-unified-5h-status"]).toBe("rejected");
    h = asStrings(meters.served("anthropic", "k", { input: 100, output: 0 }, START + SIM_QUOTA.fiveHourMs + 1));
    expect(h["anthropic-ratelimit-unified-5h-utilization"]).toBe(String(100 / SIM_QUOTA.fiveHourTokens));
    expect(h["anthropic-ratelimit-unified-5h-reset"]).toBe(String(Math.floor((START + 2 * SIM_QUOTA.fiveHourMs) / 1000)));
  });

  it("R18.3 OpenAI answers carry x-ratelimit-*, Responses answers Codex's windows too, and the gateway reads them back", () => {
    const meters = new QuotaMeters(START);
    const now = START + 5_000;
    const chat = asStrings(meters.served("openai", "o", { input: 30, output: 20 }, now));
    expect(chat).toMatchObject({
      "x-ratelimit-remaining-requests": String(SIM_QUOTA.openai.requests - 1),
      "x-ratelimit-remaining-tokens": String(SIM_QUOTA.openai.tokens - 50),
      "x-ratelimit-reset-requests": "45s",
    });
    expect(Object.keys(chat).some((k) => k.startsWith("x-codex-"))).toBe(false);
    const responses = asStrings(meters.served("openai-responses", "r", { input: 500, output: 500 }, now));
    const windows = Object.fromEntries(readQuotaHeaders(responses, now).map((r) => [`${r.source} ${r.window}`, r]));
    expect(windows["codex 5h"]).toMatchObject({ usedPercent: (1_000 / SIM_QUOTA.fiveHourTokens) * 100, resetAt: Math.floor((START + SIM_QUOTA.fiveHourMs) / 1000) * 1000 });
    expect(windows["codex 7d"]).toMatchObject({ usedPercent: (1_000 / SIM_QUOTA.weekTokens) * 100 });
    expect(windows["openai requests"]).toMatchObject({ remaining: SIM_QUOTA.openai.requests - 1, resetAt: now + 45_000 });
    expect(meters.served("gemini", "g", { input: 1, output: 1 }, now)).toEqual({});
  });

  it("R18.3 reset durations are written as OpenAI writes them", () => {
    expect(goDuration(20)).toBe("20ms");
    expect(goDuration(1_500)).toBe("1.5s");
    expect(goDuration(60_000)).toBe("1m0s");
    expect(goDuration(6 * 60_000 + 250)).toBe("6m0.25s");
  });
});
