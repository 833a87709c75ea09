import { answerReader } from "../../../main/gateway/formats/answerReader.js";
import { describe, expect, it } from "vitest";
import { classifyUpstreamFailure, msUntilLocalMidnight, type ClassifyContext } from "../../../main/engine/classifier.js";
import type { StreamCause, TransportCause } from "../../../main/engine/failure.js";
import type { Verdict } from "../../../main/engine/ports.js";
import type { AppSettings } from "../../../shared/types.js";
import { failureInput, provider, settingsWith, T0, type FailureFields } from "./fixtures.js";

const ctx = (over: Partial<ClassifyContext> = {}): ClassifyContext => ({ settings: settingsWith(), now: T0, answers: answerReader, ...over });
const classify = (input: FailureFields, over: Partial<ClassifyContext> = {}) => classifyUpstreamFailure(failureInput(input), ctx(over));
const HOUR = 3_600_000;

type Expect = Partial<Pick<Verdict, "reason" | "scope" | "status" | "breakerEligible" | "failover" | "terminal" | "cooldownMs" | "retryHintMs" | "context">>;

describe("classifyUpstreamFailure by status and body (R12.1, R4, D4)", () => {
  it.each<[string, FailureFields, Expect]>([
    [
      "D4 generic 400 is returned at once, no failover",
      { status: 400, bodyText: '{"error":{"message":"messages: field required"}}' },
      { reason: "bad_request", failover: false, scope: "request", status: 400, breakerEligible: false },
    ],
    [
      "D4 400 model does not exist fails over as 404",
      { status: 400, bodyText: "The model `gpt-9` does not exist or you do not have access to it." },
      { reason: "model_not_found", failover: true, status: 404 },
    ],
    ["D4 400 model not available fails over", { status: 400, bodyText: "model foo is not available on this account" }, { reason: "model_not_found", failover: true }],
    [
      "D4 400 with code model_not_found fails over",
      { status: 400, bodyText: '{"error":{"code":"model_not_found","message":"nope"}}' },
      { reason: "model_not_found", failover: true },
    ],
    [
      "R25.2 400 context overflow fails over (to a larger window) and states the window",
      { status: 400, bodyText: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130,512 tokens." },
      { reason: "context_overflow", failover: true, breakerEligible: false, context: { tokens: 130_512, window: 128_000 } },
    ],
    [
      "D4 400 prompt is too long is context overflow",
      { status: 400, bodyText: '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}' },
      { reason: "context_overflow", failover: true, context: { tokens: 210_000, window: 200_000 } },
    ],
    [
      "R25.2 Gemini's token-limit INVALID_ARGUMENT is context overflow with its counts",
      {
        status: 400,
        bodyText: '{"error":{"code":400,"message":"The input token count (1048577) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}',
      },
      { reason: "context_overflow", context: { tokens: 1_048_577, window: 1_048_576 } },
    ],
    [
      "R25.2 a context refusal with no numbers still classifies",
      {
        status: 400,
        bodyText: '{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","code":"context_length_exceeded"}}',
      },
      { reason: "context_overflow", context: { tokens: null, window: null } },
    ],
    [
      "R25.2 a 413 naming the context is context overflow",
      { status: 413, bodyText: "the request exceeds the available context size, try increasing it" },
      { reason: "context_overflow", failover: true },
    ],
    [
      "R4.6 first 401 is auth_error, not yet terminal",
      { status: 401, bodyText: "invalid token" },
      { reason: "auth_error", terminal: null, failover: true, breakerEligible: false },
    ],
    ["D4 402 is credits_exhausted, terminal", { status: 402, bodyText: "Payment Required" }, { reason: "credits_exhausted", terminal: "credits_exhausted" }],
    [
      "D4 credit_balance_too_low text is terminal on a 400",
      { status: 400, bodyText: '{"error":{"type":"invalid_request_error","message":"credit_balance_too_low"}}' },
      { reason: "credits_exhausted", terminal: "credits_exhausted" },
    ],
    [
      "D4 insufficient_quota on a non-429 is credits",
      { status: 403, bodyText: '{"error":{"code":"insufficient_quota"}}' },
      { reason: "credits_exhausted", terminal: "credits_exhausted" },
    ],
    ["D4 account has been deactivated is banned", { status: 401, bodyText: "Your account has been deactivated" }, { reason: "banned", terminal: "banned" }],
    ["D4 suspended account is banned", { status: 403, bodyText: "This organization has been suspended." }, { reason: "banned", terminal: "banned" }],
    [
      "R4.7 OAuth 403 Request not allowed is request_rejected, never banned",
      { status: 403, bodyText: "Request not allowed" },
      { reason: "request_rejected", scope: "model", terminal: null },
    ],
    ["R2.3 generic 403 is recoverable auth_error, never breaker", { status: 403, bodyText: "forbidden" }, { reason: "auth_error", terminal: null, breakerEligible: false }],
    ["R5.2 403 about model access is model-scoped", { status: 403, bodyText: "You do not have access to the model gpt-x" }, { reason: "auth_error", scope: "model" }],
    ["R5.2 404 is not_found scoped to the model", { status: 404, bodyText: "not found" }, { reason: "not_found", scope: "model", failover: true, breakerEligible: false }],
    ["R2.3 408 trips the breaker", { status: 408 }, { reason: "timeout", breakerEligible: true }],
    ["R2.3 500 trips the breaker", { status: 500 }, { reason: "server_error", breakerEligible: true, scope: "provider" }],
    ["R2.3 502 trips the breaker", { status: 502 }, { reason: "server_error", breakerEligible: true }],
    ["R2.3 503 trips the breaker", { status: 503 }, { reason: "server_error", breakerEligible: true }],
    ["R2.3 504 trips the breaker", { status: 504 }, { reason: "server_error", breakerEligible: true }],
    ["R2.3 529 overloaded fails over without tripping", { status: 529 }, { reason: "server_error", breakerEligible: false, failover: true }],
    ["R2.3 429 never trips the breaker", { status: 429, bodyText: "slow down" }, { reason: "rate_limit", breakerEligible: false, failover: true }],
    [
      "R2.3 ECONNREFUSED is transport, breaker-eligible",
      { failure: { kind: "transport", cause: "refused", code: "ECONNREFUSED" } },
      { reason: "transport", breakerEligible: true, status: 502 },
    ],
    ["R2.3 ECONNRESET is transport", { failure: { kind: "transport", cause: "reset", code: "ECONNRESET" } }, { reason: "transport", breakerEligible: true }],
    [
      "R2.3 UND_ERR_HEADERS_TIMEOUT is a timeout",
      { failure: { kind: "transport", cause: "timeout", code: "UND_ERR_HEADERS_TIMEOUT" } },
      { reason: "timeout", breakerEligible: true, status: 504 },
    ],
    [
      "R4.8 stream stall is request-scoped, no breaker",
      { failure: { kind: "stream", cause: "idle_stall", detail: "" } },
      { reason: "stream_stall", breakerEligible: false, failover: true },
    ],
    ["D13 early EOF fails over", { failure: { kind: "stream", cause: "early_eof", detail: "" } }, { reason: "stream_early_eof", breakerEligible: false, failover: true }],
    ["D13 throughput watchdog abort", { failure: { kind: "stream", cause: "throughput", detail: "" } }, { reason: "stream_throughput", breakerEligible: false }],
    ["422 is a request error", { status: 422, bodyText: "bad" }, { reason: "bad_request", failover: false }],
  ])("%s", (_name, input, expected) => {
    expect(classify(input)).toMatchObject(expected);
  });
});

describe("429 bodies (R4.5, D4)", () => {
  it.each<[string, string, FailureFields, Expect]>([
    ["D4 quota exceeded", "You exceeded your current quota, please check your plan", {}, { reason: "quota_exhausted", cooldownMs: null }],
    ["D4 insufficient quota", '{"error":{"code":"insufficient_quota"}}', {}, { reason: "quota_exhausted" }],
    ["D4 resource has been exhausted", "Resource has been exhausted (e.g. check quota).", {}, { reason: "quota_exhausted" }],
    ["D4 monthly limit", "monthly limit reached", {}, { reason: "quota_exhausted" }],
    ["D4 usage limit reached on oauth -> 1 h", "usage limit reached", { provider: provider({ category: "oauth" }) }, { reason: "quota_exhausted", cooldownMs: HOUR }],
    [
      "D4 usage limit reached on oauth -> the hint when given",
      "usage limit reached. try again in 20m",
      { provider: provider({ category: "oauth" }) },
      { reason: "quota_exhausted", cooldownMs: 1_200_000 },
    ],
    ["D4 weekly usage limit -> 24 h", "You have hit your weekly usage limit", {}, { reason: "quota_exhausted", cooldownMs: 24 * HOUR }],
    ["D4 session usage limit -> 5 h", "session usage limit reached", {}, { reason: "quota_exhausted", cooldownMs: 5 * HOUR }],
    [
      "R4.5 too many concurrent requests",
      "Too many concurrent requests for this account",
      {},
      { reason: "concurrency_limited", cooldownMs: 1_000, breakerEligible: false, failover: true },
    ],
    ["R4.5 concurrency limit", "concurrency limit exceeded", {}, { reason: "concurrency_limited" }],
    ["R4.5 parallel request limit", "parallel request limit reached", {}, { reason: "concurrency_limited" }],
    ["R4.5 GLM 并发数过高", '{"error":{"message":"并发数过高，请降低并发"}}', {}, { reason: "concurrency_limited" }],
    [
      "R4.5 concurrency with upstream hint uses the hint",
      "too many concurrent requests",
      { headers: { "retry-after": "3" } },
      { reason: "concurrency_limited", cooldownMs: 3_000 },
    ],
    ["R4.5 a body that also matches quota stays quota", "quota exceeded: too many concurrent requests", {}, { reason: "quota_exhausted" }],
    [
      "D4 plain 429 is rate_limit with the Retry-After hint",
      "Rate limit reached",
      { headers: { "Retry-After": "120" } },
      { reason: "rate_limit", retryHintMs: 120_000, cooldownMs: null },
    ],
  ])("%s", (_name, body, input, expected) => {
    expect(classify({ status: 429, bodyText: body, ...input })).toMatchObject(expected);
  });

  it("D4 a daily quota without a hint lasts until local midnight (<= 24 h)", () => {
    const v = classify({ status: 429, bodyText: "daily limit exceeded for model" });
    expect(v.reason).toBe("quota_exhausted");
    expect(v.cooldownMs).toBe(msUntilLocalMidnight(T0));
    expect(v.cooldownMs!).toBeGreaterThan(0);
    expect(v.cooldownMs!).toBeLessThanOrEqual(24 * HOUR);
  });

  it("D4 a daily quota with a hint uses the hint", () => {
    expect(classify({ status: 429, bodyText: "Quota exceeded for quota metric 'GenerateRequestsPerDayPerProjectPerModel'", headers: { "retry-after": "600" } }).cooldownMs).toBe(
      600_000,
    );
  });
});

describe("401 towards expired (R4.6)", () => {
  it.each([
    [0, null],
    [1, null],
    [2, "expired"],
    [5, "expired"],
  ] as const)("R4.6 with %d earlier consecutive 401s the verdict is terminal=%s (EXPIRED_RETRY_MAX = 3)", (count, terminal) => {
    expect(classify({ status: 401 }, { authFailureCount: count }).terminal).toBe(terminal);
  });
});

describe("status restatement and provider rules (R12.2–R12.4)", () => {
  const agentrouter = provider({ id: "agentrouter", category: "apikey", passthroughModels: true });

  it("R12.2 agentrouter 403 用户额度不足 is restated to 429 quota_exhausted; the client is told 60 s, the cooldown is not", () => {
    const v = classify({ provider: agentrouter, status: 403, bodyText: '{"error":{"message":"用户额度不足"}}' });
    expect(v).toMatchObject({ status: 429, reason: "quota_exhausted", scope: "connection", retryHintMs: null, clientRetryAfterMs: 60_000, cooldownMs: null });
    expect(v.rule).toMatchObject({ id: "agentrouter-user-quota-exhausted", scope: "connection" });
  });

  it("R12.2 agentrouter 400 额度不足 is restated too", () => {
    expect(classify({ provider: agentrouter, status: 400, bodyText: "额度不足" })).toMatchObject({ status: 429, reason: "quota_exhausted" });
  });

  it("R12.2 无权访问模型 is never restated: stays 403, model-scoped 6 h clamped to modelLockout.maxCooldownMs", () => {
    const v = classify({ provider: agentrouter, status: 403, bodyText: "额度不足 无权访问模型" });
    expect(v).toMatchObject({ status: 403, reason: "auth_error", scope: "model", cooldownMs: 1_800_000 });
    expect(v.rule).toMatchObject({ id: "agentrouter-model-access-denied", lockoutReason: "forbidden" });
  });

  it("R12.2 a provider recognised by its agentrouter.org base URL uses the same rules", () => {
    const byUrl = provider({ id: "ar", baseUrl: "https://agentrouter.org/v1" });
    expect(classify({ provider: byUrl, status: 403, bodyText: "用户额度不足" }).status).toBe(429);
  });

  it("R12.2 other providers are not restated", () => {
    expect(classify({ status: 403, bodyText: "用户额度不足" })).toMatchObject({ status: 403, reason: "auth_error" });
  });

  const rules = (over: Partial<Pick<AppSettings, "providerErrorRules" | "providerErrorDefaults">>): Partial<ClassifyContext> => ({
    appSettings: { providerErrorRules: [], providerErrorDefaults: {}, ...over },
  });

  it("R12.4 an operator rule matches by case-insensitive substring and status (AND); first match wins", () => {
    const appSettings = rules({
      providerErrorRules: [
        { provider: "p", status: 503, match: "MAINTENANCE", scope: "provider", reason: "server_error", cooldownMs: 600_000 },
        { provider: "p", match: "maintenance", scope: "connection", cooldownMs: 5_000 },
      ],
    });
    expect(classify({ status: 503, bodyText: "down for maintenance" }, appSettings)).toMatchObject({
      scope: "provider",
      cooldownMs: 600_000,
      rule: { source: "operator", id: "operator-0" },
    });
    expect(classify({ status: 500, bodyText: "Maintenance window" }, appSettings)).toMatchObject({ scope: "connection", cooldownMs: 5_000, rule: { id: "operator-1" } });
    expect(classify({ status: 500, bodyText: "boom" }, appSettings).rule).toBeNull();
  });

  it("R12.4 match is a substring, never a RegExp", () => {
    const appSettings = rules({ providerErrorRules: [{ provider: "p", match: "a.*b", scope: "connection", cooldownMs: 1_000 }] });
    expect(classify({ status: 500, bodyText: "axxb" }, appSettings).rule).toBeNull();
    expect(classify({ status: 500, bodyText: "literal a.*b here" }, appSettings).rule?.id).toBe("operator-0");
  });

  it("R12.4 a rule with a reason that is not a verdict reason keeps it as a label", () => {
    const appSettings = rules({ providerErrorRules: [{ provider: "p", status: 429, scope: "model", reason: "team-quota" }] });
    const v = classify({ status: 429, bodyText: "slow" }, appSettings);
    expect(v).toMatchObject({ reason: "rate_limit", scope: "model", rule: { label: "team-quota" } });
  });

  it("R12.4 rule cooldown is capped at 30 days", () => {
    const appSettings = rules({ providerErrorRules: [{ provider: "p", status: 500, scope: "connection", cooldownMs: 90 * 86_400_000 }] });
    expect(classify({ status: 500 }, appSettings).cooldownMs).toBe(30 * 86_400_000);
  });

  it("R12.4 a matching operator rule decides ahead of the built-in text detectors (credits, daily quota, banned)", () => {
    const rule = rules({ providerErrorRules: [{ provider: "p", status: 403, match: "INSUFFICIENT_QUOTA", scope: "connection", cooldownMs: HOUR }] });
    const v = classify({ status: 403, bodyText: '{"error":{"message":"insufficient_quota for this org"}}' }, rule);
    expect(v).toMatchObject({ reason: "auth_error", terminal: null, scope: "connection", cooldownMs: HOUR, rule: { source: "operator" } });
    const daily = rules({ providerErrorRules: [{ provider: "p", status: 429, scope: "connection", cooldownMs: 1_000 }] });
    expect(classify({ status: 429, bodyText: "daily limit reached" }, daily)).toMatchObject({ cooldownMs: 1_000, rule: { source: "operator" } });
    const banned = rules({ providerErrorRules: [{ provider: "p", match: "suspended", scope: "connection", cooldownMs: 2_000 }] });
    expect(classify({ status: 403, bodyText: "This organization has been suspended." }, banned)).toMatchObject({ terminal: null, cooldownMs: 2_000 });
  });

  it("R12.4 without a matching operator rule the built-in detectors keep their phrases", () => {
    const other = rules({ providerErrorRules: [{ provider: "p", status: 500, scope: "connection", cooldownMs: 1_000 }] });
    expect(classify({ status: 403, bodyText: '{"error":{"code":"insufficient_quota"}}' }, other).terminal).toBe("credits_exhausted");
    expect(classify({ status: 402 }, rules({ providerErrorRules: [{ provider: "p", status: 402, scope: "connection", cooldownMs: 1_000 }] })).terminal).toBe("credits_exhausted");
  });

  it("R12.4 a provider default applies to 402/403/408/429/5xx only, with max(default, hint)", () => {
    const appSettings = rules({ providerErrorDefaults: { p: { cooldownMs: 120_000 } } });
    expect(classify({ status: 429, bodyText: "slow" }, appSettings)).toMatchObject({ cooldownMs: 120_000, scope: "connection", rule: { source: "default" } });
    expect(classify({ status: 429, bodyText: "slow", headers: { "retry-after": "600" } }, appSettings).cooldownMs).toBe(600_000);
    expect(classify({ status: 503 }, appSettings).rule?.source).toBe("default");
    expect(classify({ status: 404 }, appSettings).rule).toBeNull();
    expect(classify({ status: 401 }, appSettings).rule).toBeNull();
    expect(classify({ status: 400 }, appSettings).rule).toBeNull();
  });

  it("R12.4 an operator rule wins over the provider default", () => {
    const appSettings = rules({ providerErrorRules: [{ provider: "p", status: 503, scope: "model", cooldownMs: 7_000 }], providerErrorDefaults: { p: { cooldownMs: 120_000 } } });
    expect(classify({ status: 503 }, appSettings)).toMatchObject({ cooldownMs: 7_000, rule: { source: "operator" } });
  });

  it("R12.3 an operator rule for a provider opts it into full-text built-in rules and honoured scope", () => {
    const byUrl = provider({ id: "ar2", baseUrl: "https://agentrouter.org" });
    const appSettings = rules({ providerErrorDefaults: { ar2: { cooldownMs: 60_000 } } });
    expect(classify({ provider: byUrl, status: 403, bodyText: "无权访问模型" }, appSettings).rule?.scope).toBe("model");
  });
});

describe("typed upstream failures (issue 26 item 11)", () => {
  const stream = (cause: StreamCause): FailureFields => ({ failure: { kind: "stream", cause, detail: "watchdog" } });

  it.each<[string, StreamCause, Partial<Verdict>]>([
    ["R4.8 a content stall", "content_stall", { reason: "stream_stall", status: 504, errorCode: "STREAM_CONTENT_STALL", message: "STREAM_CONTENT_STALL", failover: true }],
    ["R13.7 an idle stream", "idle_stall", { reason: "stream_stall", status: 504, errorCode: "STREAM_STALL", failover: true }],
    ["D13 an early EOF", "early_eof", { reason: "stream_early_eof", status: 502, errorCode: "STREAM_EARLY_EOF", scope: "connection" }],
    ["R13.5 a throughput abort", "throughput", { reason: "stream_throughput", status: 504, errorCode: "STREAM_THROUGHPUT_TOO_LOW" }],
    [
      "R13.3 a refused continuation blames nobody",
      "continuation_refused",
      { reason: "bad_request", status: 502, errorCode: "STREAM_CONTINUATION_REFUSED", failover: false, cooldownMs: null },
    ],
  ])("R12.1 %s keeps its verdict and code, never the breaker", (_name, cause, expected) => {
    expect(classify(stream(cause))).toMatchObject({ ...expected, breakerEligible: false });
  });

  it("R25.4 an error event inside a 200 stream is the failure its error names, with the breaker as that class has it", () => {
    const event = (bodyText: string) => classify({ failure: { kind: "stream_error", headers: {}, bodyText } });
    expect(event('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')).toMatchObject({ reason: "server_error", status: 503, breakerEligible: true });
    expect(event('{"error":{"message":"boom","type":"server_error","code":null}}')).toMatchObject({ reason: "server_error", status: 500, breakerEligible: true });
    expect(event('{"type":"error","error":{"type":"invalid_request_error","message":"bad field"}}')).toMatchObject({ reason: "bad_request", status: 400, failover: false });
    expect(event('{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 300000 tokens > 200000 maximum"}}')).toMatchObject({
      reason: "context_overflow",
    });
    expect(event('{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}')).toMatchObject({ reason: "rate_limit", status: 429, breakerEligible: false });
  });

  it("R13.6 only a transport timeout is a 504; every other cause is a 502, both breaker-eligible, named by the raw code", () => {
    const transport = (cause: TransportCause, code: string) => classify({ failure: { kind: "transport", cause, code } });
    expect(transport("timeout", "UND_ERR_BODY_TIMEOUT")).toMatchObject({ reason: "timeout", status: 504, breakerEligible: true, errorCode: "UND_ERR_BODY_TIMEOUT" });
    for (const cause of ["refused", "reset", "dns", "tls", "aborted", "other"] as const) {
      expect(transport(cause, "E_SOMETHING")).toMatchObject({ reason: "transport", status: 502, breakerEligible: true, errorCode: "E_SOMETHING", message: "E_SOMETHING" });
    }
  });

  it("D2 a 2xx whose body is not JSON is classified as the 502 it becomes, named upstream_invalid_json", () => {
    const verdict = classify({ failure: { kind: "invalid_json", status: 200, headers: {} } });
    expect(verdict).toMatchObject({ reason: "server_error", status: 502, breakerEligible: true, failover: true, errorCode: "upstream_invalid_json" });
    expect(verdict.message).toBe("The upstream answered with a body that is not JSON");
  });

  it("R12.1 an answer below 400 is no usable answer: a breaker-eligible transport failure", () => {
    expect(classify({ status: 200 })).toMatchObject({ reason: "transport", status: 502, breakerEligible: true, errorCode: "UPSTREAM_NO_STATUS" });
  });
});
