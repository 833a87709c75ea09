// R21.4: subscription windows route — a used-up window is its own verdict (window_exhausted), the
// account rests until the window's reset (capped by the window's length, not maxCooldownMs), a 429
// without a window signal is a burst limit, and the quota cutoff reads the windows.
import { describe, expect, it } from "vitest";
import { classifyUpstreamFailure } from "../../../main/engine/classifier.js";
import { passedOverForQuota, RemainingQuota } from "../../../main/engine/quotaCutoff.js";
import { windowFamilyOf, windowLengthMs, windowRest } from "../../../main/engine/subscriptionWindows.js";
import { answerReader, isWindowExhaustion, readWindowSignals } from "../../../main/gateway/formats/answerReader.js";
import { connection, failureInput, fail, harness, provider, settingsWith, T0 } from "./fixtures.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const oauth = provider({ id: "claude", format: "anthropic", category: "oauth", quotaFamilies: { opus: ["claude-opus"] } });
const codex = provider({ id: "codex", format: "openai-responses", category: "oauth" });
const epochS = (ms: number) => String(Math.floor(ms / 1_000));

/** Anthropic's unified headers with the 5-hour window used up, resetting in `inMs`. */
function unifiedRejected(inMs: number, extra: Record<string, string> = {}): Record<string, string> {
  return {
    "anthropic-ratelimit-unified-status": "rejected",
    "anthropic-ratelimit-unified-reset": epochS(T0 + inMs),
    "anthropic-ratelimit-unified-representative-claim": "five_hour",
    "anthropic-ratelimit-unified-5h-utilization": "1.0",
    "anthropic-ratelimit-unified-5h-reset": epochS(T0 + inMs),
    "anthropic-ratelimit-unified-5h-status": "rejected",
    "anthropic-ratelimit-unified-7d-utilization": "0.4",
    "anthropic-ratelimit-unified-7d-reset": epochS(T0 + 3 * DAY),
    "anthropic-ratelimit-unified-7d-status": "allowed",
    ...extra,
  };
}

const unifiedFine = {
  "anthropic-ratelimit-unified-status": "allowed",
  "anthropic-ratelimit-unified-reset": epochS(T0 + 2 * HOUR),
  "anthropic-ratelimit-unified-representative-claim": "five_hour",
  "anthropic-ratelimit-unified-5h-utilization": "0.3",
  "anthropic-ratelimit-unified-5h-reset": epochS(T0 + 2 * HOUR),
  "anthropic-ratelimit-unified-5h-status": "allowed",
  "anthropic-ratelimit-unified-7d-utilization": "0.2",
  "anthropic-ratelimit-unified-7d-reset": epochS(T0 + 5 * DAY),
  "anthropic-ratelimit-unified-7d-status": "allowed",
};

const RATE_LIMIT_BODY = '{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your account\'s rate limit."}}';
const classify = (status: number, headers: Record<string, string>, bodyText: string, p = oauth, model = "claude-sonnet-4") =>
  classifyUpstreamFailure(failureInput({ provider: p, model, status, headers, bodyText }), { settings: settingsWith(), now: T0, answers: answerReader });

describe("R21.4(a) window exhaustion is its own verdict", () => {
  it("R21.4 an Anthropic 429 with unified status rejected is window_exhausted, scope connection, until the window's reset", () => {
    const v = classify(429, unifiedRejected(3 * HOUR), RATE_LIMIT_BODY);
    expect(v).toMatchObject({ reason: "quota_exhausted", errorCode: "window_exhausted", scope: "connection", failover: true, breakerEligible: false });
    expect(v.window).toEqual({ name: "5h", resetAt: Math.floor((T0 + 3 * HOUR) / 1_000) * 1_000, windowMs: 5 * HOUR });
    expect(v.cooldownMs).toBeGreaterThan(3 * HOUR - 1_000);
    expect(v.cooldownMs).toBeLessThanOrEqual(3 * HOUR);
    expect(v.clientRetryAfterMs).toBe(v.cooldownMs);
  });

  it("R21.4 a window's own -status: rejected or utilization ≥ 1 is enough, without the overall status", () => {
    const statusOnly = { "anthropic-ratelimit-unified-7d-status": "rejected", "anthropic-ratelimit-unified-7d-reset": epochS(T0 + 2 * DAY) };
    expect(classify(429, statusOnly, RATE_LIMIT_BODY).window).toMatchObject({ name: "7d", windowMs: 7 * DAY });
    const utilisation = { "anthropic-ratelimit-unified-5h-utilization": "1.02", "anthropic-ratelimit-unified-5h-reset": epochS(T0 + HOUR) };
    expect(classify(429, utilisation, RATE_LIMIT_BODY)).toMatchObject({ errorCode: "window_exhausted", window: { name: "5h" } });
  });

  it("R21.4 the latest reset decides when several windows are used up; Retry-After is a floor", () => {
    const both = unifiedRejected(2 * HOUR, {
      "anthropic-ratelimit-unified-7d-utilization": "1",
      "anthropic-ratelimit-unified-7d-status": "rejected",
      "anthropic-ratelimit-unified-7d-reset": epochS(T0 + 4 * DAY),
    });
    const v = classify(429, both, RATE_LIMIT_BODY);
    expect(v.window?.name).toBe("7d");
    expect(v.cooldownMs).toBeGreaterThan(4 * DAY - 1_000);
    const floored = classify(429, unifiedRejected(HOUR, { "retry-after": String(2 * 3_600) }), RATE_LIMIT_BODY);
    expect(floored.cooldownMs).toBe(2 * HOUR);
  });

  it("R21.4 the rest is capped by the window's own length, not by maxCooldownMs (30 min) nor the 30-minute connection cap", () => {
    const far = classify(429, unifiedRejected(9 * HOUR), RATE_LIMIT_BODY);
    expect(far.cooldownMs).toBe(5 * HOUR);
    const week = classify(429, { "anthropic-ratelimit-unified-7d-status": "rejected", "anthropic-ratelimit-unified-7d-reset": epochS(T0 + 6 * DAY) }, RATE_LIMIT_BODY);
    expect(week.cooldownMs).toBeGreaterThan(6 * DAY - 1_000);
  });

  it("R21.4 a per-model window (7d_opus) is scope model", () => {
    const opus = {
      "anthropic-ratelimit-unified-status": "rejected",
      "anthropic-ratelimit-unified-representative-claim": "seven_day_opus",
      "anthropic-ratelimit-unified-reset": epochS(T0 + 2 * DAY),
      "anthropic-ratelimit-unified-7d_opus-status": "rejected",
      "anthropic-ratelimit-unified-7d_opus-reset": epochS(T0 + 2 * DAY),
      "anthropic-ratelimit-unified-5h-status": "allowed",
    };
    const v = classify(429, opus, RATE_LIMIT_BODY, oauth, "claude-opus-4-5");
    expect(v).toMatchObject({ scope: "model", errorCode: "window_exhausted", window: { name: "7d_opus", windowMs: 7 * DAY } });
  });

  it("R21.4 Codex 429 usage_limit_reached rests until resets_in_seconds / resets_at, named by the fullest x-codex window", () => {
    const body = JSON.stringify({ error: { type: "usage_limit_reached", message: "The usage limit has been reached", plan_type: "plus", resets_in_seconds: 7_200 } });
    const headers = {
      "x-codex-primary-used-percent": "100",
      "x-codex-primary-window-minutes": "300",
      "x-codex-primary-reset-after-seconds": "7000",
      "x-codex-secondary-used-percent": "40",
      "x-codex-secondary-window-minutes": "10080",
    };
    const v = classify(429, headers, body, codex, "gpt-5-codex");
    expect(v).toMatchObject({ reason: "quota_exhausted", errorCode: "window_exhausted", scope: "connection", cooldownMs: 7_200_000 });
    expect(v.window).toEqual({ name: "5h", resetAt: T0 + 7_200_000, windowMs: 5 * HOUR });
    const bare = classify(429, {}, JSON.stringify({ error: { type: "usage_limit_reached", resets_at: (T0 + 3 * HOUR) / 1_000 } }), codex);
    expect(bare).toMatchObject({ errorCode: "window_exhausted", cooldownMs: 3 * HOUR, window: { name: "usage_limit", resetAt: T0 + 3 * HOUR, windowMs: null } });
  });

  it("R21.4 x-codex-<w>-used-percent ≥ 100 on a 429 is a window verdict; its length comes from -window-minutes", () => {
    const headers = { "x-codex-secondary-used-percent": "100", "x-codex-secondary-window-minutes": "10080", "x-codex-secondary-reset-after-seconds": String(2 * 86_400) };
    const v = classify(429, headers, '{"error":{"message":"slow down"}}', codex);
    expect(v.window).toEqual({ name: "7d", resetAt: T0 + 2 * DAY, windowMs: 7 * DAY });
    expect(v.cooldownMs).toBe(2 * DAY);
  });

  it("R21.4 window names state their length; the detectors agree with the verdict", () => {
    expect(windowLengthMs("5h")).toBe(5 * HOUR);
    expect(windowLengthMs("7d_sonnet")).toBe(7 * DAY);
    expect(windowLengthMs("gpt-5-codex-5h")).toBe(5 * HOUR);
    expect(windowLengthMs("unified")).toBeNull();
    expect(isWindowExhaustion(unifiedRejected(HOUR), RATE_LIMIT_BODY)).toBe(true);
    expect(isWindowExhaustion(unifiedFine, RATE_LIMIT_BODY)).toBe(false);
    expect(isWindowExhaustion({}, '{"type":"response.failed","response":{"error":{"code":"usage_limit_reached"}}}')).toBe(true);
    expect(readWindowSignals({ "anthropic-ratelimit-unified-overage-status": "rejected" }, "", T0).exhausted).toEqual([]);
    expect(windowRest({ windowHeaders: true, exhausted: [] }, {}, T0, null)).toBeNull();
  });
});

describe("R21.4(c) a 429 with no window signal is a burst limit", () => {
  it("R21.4 a bare 429 is rate_limit with no window", () => {
    const v = classify(429, {}, RATE_LIMIT_BODY);
    expect(v).toMatchObject({ reason: "rate_limit", cooldownMs: null });
    expect(v.window ?? null).toBeNull();
  });

  it("R21.4 unified headers showing the windows fine: a usage-limit text is a burst limit, and the window resets are no retry hint", () => {
    const v = classify(429, unifiedFine, '{"error":{"message":"usage limit reached"}}');
    expect(v).toMatchObject({ reason: "rate_limit", cooldownMs: null, retryHintMs: null });
    expect(v.window ?? null).toBeNull();
  });

  it("R21.4 D4 still holds without window headers: oauth usage-limit text → 1 h", () => {
    expect(classify(429, {}, "usage limit reached")).toMatchObject({ reason: "quota_exhausted", cooldownMs: HOUR });
  });
});

describe("R21.4(b) the engine rests the account until the reset", () => {
  it("R21.4 the connection cools until the window's reset, records window_exhausted / quota_exhausted, and serves again at the reset (lazy)", () => {
    const h = harness({ connections: [connection({ id: "c1", provider: "claude" })], settings: { modelLockout: { enabled: true } } });
    const v = fail(h, { provider: oauth, model: "claude-sonnet-4", status: 429, headers: unifiedRejected(3 * HOUR), bodyText: RATE_LIMIT_BODY });
    const row = h.store.row("c1");
    expect(row).toMatchObject({ testStatus: "unavailable", errorCode: "window_exhausted", lastErrorType: "quota_exhausted", backoffLevel: 0 });
    expect(row.rateLimitedUntil).toBe(T0 + (v.cooldownMs ?? 0));
    expect(row.rateLimitedUntil! - T0).toBeGreaterThan(30 * 60_000);
    // Model lockouts on (429 in errorCodes) do not turn the window into a short per-model lock.
    expect(h.engine.listModelCooldowns().items).toEqual([]);
    expect(h.engine.exclusionCheck(oauth, "claude-sonnet-4")(row)).toMatchObject({ reason: "cooling_down" });
    h.clock.advance(v.cooldownMs! + 1);
    expect(h.engine.exclusionCheck(oauth, "claude-sonnet-4")(h.store.row("c1"))).toBeNull();
  });

  it("R21.4 a later failure of the same incident never shortens the window's rest (R4.4)", () => {
    const h = harness({ connections: [connection({ id: "c1", provider: "claude" })] });
    fail(h, { provider: oauth, status: 429, headers: unifiedRejected(4 * HOUR), bodyText: RATE_LIMIT_BODY });
    const until = h.store.row("c1").rateLimitedUntil;
    fail(h, { provider: oauth, status: 429, headers: {}, bodyText: RATE_LIMIT_BODY });
    expect(h.store.row("c1").rateLimitedUntil).toBe(until);
  });

  it("R21.4 a per-model window locks only that model family, for the window's rest; the account keeps serving", () => {
    const h = harness({ connections: [connection({ id: "c1", provider: "claude" })] });
    const headers = {
      "anthropic-ratelimit-unified-7d_opus-status": "rejected",
      "anthropic-ratelimit-unified-7d_opus-reset": epochS(T0 + 2 * DAY),
    };
    fail(h, { provider: oauth, model: "claude-opus-4-5", status: 429, headers, bodyText: RATE_LIMIT_BODY });
    expect(h.store.row("c1")).toMatchObject({ rateLimitedUntil: null, errorCode: "window_exhausted" });
    const [lock] = h.engine.listModelCooldowns().items;
    expect(lock).toMatchObject({ provider: "claude", connectionId: "c1", reason: "window_exhausted" });
    expect(lock.remainingMs).toBeGreaterThan(2 * DAY - 1_000);
    expect(h.engine.exclusionCheck(oauth, "claude-opus-4-1")(h.store.row("c1"))).toMatchObject({ reason: "model_lockout" });
    expect(h.engine.exclusionCheck(oauth, "claude-sonnet-4")(h.store.row("c1"))).toBeNull();
  });

  it("R21.4 without a declared quota family, a per-model window locks the family its name says (7d_opus: every claude-opus model)", () => {
    const bare = provider({ id: "claude", format: "anthropic", category: "oauth" });
    const h = harness({ connections: [connection({ id: "c1", provider: "claude" })] });
    const headers = { "anthropic-ratelimit-unified-7d_opus-status": "rejected", "anthropic-ratelimit-unified-7d_opus-reset": epochS(T0 + DAY) };
    fail(h, { provider: bare, model: "claude-opus-4-5", status: 429, headers, bodyText: RATE_LIMIT_BODY });
    const check = h.engine.exclusionCheck(bare, "claude-opus-4-1");
    expect(check(h.store.row("c1"))).toMatchObject({ reason: "model_lockout" });
    expect(h.engine.exclusionCheck(bare, "claude-sonnet-4-5")(h.store.row("c1"))).toBeNull();
    expect(windowFamilyOf("7d_opus", "claude-opus-4-5")).toEqual({ name: "opus", prefixes: ["claude-opus"] });
    expect(windowFamilyOf("5h", "claude-opus-4-5")).toBeNull();
  });

  it("R21.4 a bare 429 cools for the R4 backoff only, seconds not hours", () => {
    const h = harness({ connections: [connection({ id: "c1", provider: "claude" })] });
    fail(h, { provider: oauth, status: 429, headers: unifiedFine, bodyText: '{"error":{"message":"usage limit reached"}}' });
    const row = h.store.row("c1");
    expect(row.errorCode).not.toBe("window_exhausted");
    expect(row.rateLimitedUntil! - T0).toBeLessThanOrEqual(60_000);
  });
});

describe("R21.4(d) quotaPreflightCutoff reads the windows", () => {
  it("R21.4 an account whose window is at or above (100 − cutoff) % used, or rejected, is passed over while a sibling has more", () => {
    const q = new RemainingQuota();
    q.learn("a", [{ window: "5h", usedPercent: 95, remaining: null, limit: null, resetAt: T0 + HOUR }], T0);
    q.learn("b", [{ window: "5h", usedPercent: 20, remaining: null, limit: null, resetAt: T0 + HOUR }], T0);
    q.learn("c", [{ window: "7d", usedPercent: null, remaining: null, limit: null, resetAt: T0 + DAY, status: "rejected" }], T0);
    expect(passedOverForQuota(q.shareOf("a", T0), 5, [q.shareOf("b", T0)])).toBe(true);
    expect(passedOverForQuota(q.shareOf("a", T0), 4, [q.shareOf("b", T0)])).toBe(false);
    expect(q.shareOf("c", T0)).toEqual({ remainingPercent: 0, resetAt: T0 + DAY });
    expect(passedOverForQuota(q.shareOf("c", T0), 5, [q.shareOf("a", T0)])).toBe(true);
    // Past the reset the window says nothing: the account is no longer passed over.
    expect(q.shareOf("c", T0 + DAY)).toBeNull();
  });
});
