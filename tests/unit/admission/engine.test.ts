// Pure admission bookkeeping (R8.1, R8.3, R9.1–R9.4, D9) on a fake clock.
import { describe, expect, it } from "vitest";
import { GateBook, type GateTicket } from "../../../main/engine/admission/gateBook.js";
import { resolveAdmissionLimits } from "../../../main/engine/admission/limits.js";
import { pacingFromVerdict, pauseFromWindow } from "../../../main/engine/admission/pacing.js";
import { requestWindowOf } from "../../../main/gateway/pipeline/routing/learnedQuota.js";
import { checkQueueAdmission } from "../../../main/engine/admission/queueAdmission.js";
import type { Verdict } from "../../../main/engine/ports.js";
import { DEFAULT_RESILIENCE_SETTINGS } from "../../../shared/resilienceSettings.js";

const clockAt = (t: { now: number }) => ({ now: () => t.now });
const conn = (cap: number) => ({ key: "c1", cap });
const model = (name: string, cap: number) => ({ key: `m:${name}`, cap });
const ticket = (levels: GateTicket["levels"], pauseKey: string | null = null): GateTicket => ({ levels, pauseKey, queueKey: "c1" });

describe("composite gates (GateBook)", () => {
  it("R8.1 takes every gate at once or none: a full model gate holds no connection permit", () => {
    const book = new GateBook(clockAt({ now: 0 }));
    expect(book.tryEnter(ticket([conn(2), model("a", 1)]))).toBe(true);
    const blocked = ticket([conn(2), model("a", 1)]);
    expect(book.tryEnter(blocked)).toBe(false);
    expect(book.inFlight("c1")).toBe(1);
    expect(book.inFlight("m:a")).toBe(1);
  });

  it("R8.1 serves waiters first come, first served, and lets a waiter on another gate pass", () => {
    const book = new GateBook(clockAt({ now: 0 }));
    const first = ticket([conn(1)]);
    expect(book.tryEnter(first)).toBe(true);
    const second = ticket([conn(1)]);
    const third = ticket([conn(1)]);
    book.enqueue(second);
    book.enqueue(third);
    expect(book.queuedIn("c1")).toBe(2);
    // A newcomer never overtakes the queue on a gate someone waits for.
    expect(book.tryEnter(ticket([conn(1)]))).toBe(false);
    book.release(first.levels);
    expect(book.grant()).toEqual([second]);
    book.release(second.levels);
    expect(book.grant()).toEqual([third]);
    expect(book.queuedIn("c1")).toBe(0);

    const other = new GateBook(clockAt({ now: 0 }));
    other.tryEnter(ticket([conn(Infinity), model("a", 1)]));
    other.enqueue(ticket([conn(Infinity), model("a", 1)]));
    // Another model of the same connection is not stuck behind model a's queue.
    expect(other.tryEnter(ticket([conn(Infinity), model("b", 1)]))).toBe(true);
  });

  it("R8.3 a dropped waiter holds nothing and a dropped ticket cannot be dropped twice", () => {
    const book = new GateBook(clockAt({ now: 0 }));
    book.tryEnter(ticket([conn(1)]));
    const waiter = ticket([conn(1)]);
    book.enqueue(waiter);
    expect(book.drop(waiter)).toBe(true);
    expect(book.drop(waiter)).toBe(false);
    expect(book.queuedIn("c1")).toBe(0);
    expect(book.waitingOnGate("c1")).toBe(0);
  });

  it("R9.4 a paused limiter admits nobody until its instant, then the queue goes", () => {
    const t = { now: 1_000 };
    const book = new GateBook(clockAt(t));
    book.pause("p1", 3_000);
    const waiter = ticket([conn(Infinity)], "p1");
    expect(book.tryEnter(waiter)).toBe(false);
    book.enqueue(waiter);
    expect(book.pausedMs("p1")).toBe(2_000);
    expect(book.grant()).toEqual([]);
    t.now = 3_000;
    expect(book.grant()).toEqual([waiter]);
    expect(book.pausedMs("p1")).toBe(0);
  });
});

describe("queue admission (D9)", () => {
  const scope = { provider: "glm", connectionId: "glm-c1", model: "glm-4" };
  it("D9 depth ≤ 0 admits, queued < depth admits, else RATE_LIMIT_QUEUE_FULL 429 naming the setting and the target", () => {
    expect(checkQueueAdmission(500, 0, scope)).toEqual({ admit: true });
    expect(checkQueueAdmission(0, 1, scope)).toEqual({ admit: true });
    const full = checkQueueAdmission(1, 1, scope);
    expect(full.admit).toBe(false);
    if (full.admit) return;
    expect(full.status).toBe(429);
    expect(full.code).toBe("RATE_LIMIT_QUEUE_FULL");
    expect(full.message).toContain("maxQueueDepth");
    expect(full.message).toContain("glm");
    expect(full.message).toContain("glm-4");
  });
});

describe("admission limits (R9.2, R9.5, D9)", () => {
  const queue = { ...DEFAULT_RESILIENCE_SETTINGS.requestQueue, maxWaitMs: 5_000, executionMaxWaitMs: 60_000 };
  const provider = { category: "apikey" as const, format: "openai" as const };
  const connection = { maxConcurrent: null, rateLimitOverrides: {}, rateLimitProtection: null, active: true };

  it("R9.2 a connection's own overrides win over the saved settings, clamped to the D9 ranges", () => {
    const base = resolveAdmissionLimits(queue, provider, connection, "m1");
    expect(base).toMatchObject({ maxWaitMs: 5_000, executionMaxWaitMs: 60_000, connectionCap: null, modelCap: null });
    const own = resolveAdmissionLimits(queue, provider, { ...connection, rateLimitOverrides: { maxWaitMs: 200, executionMaxWaitMs: 0 } }, "m1");
    expect(own.maxWaitMs).toBe(200);
    expect(own.executionMaxWaitMs).toBe(1);
    const huge = resolveAdmissionLimits(queue, provider, { ...connection, rateLimitOverrides: { maxWaitMs: 10 * 86_400_000 } }, "m1");
    expect(huge.maxWaitMs).toBe(86_400_000);
  });

  it("R8.1 maxConcurrent and rateLimitOverrides.maxConcurrent are one limit; modelConcurrency matches the exact model id", () => {
    expect(resolveAdmissionLimits(queue, provider, { ...connection, maxConcurrent: 2 }, "m1").connectionCap).toBe(2);
    expect(resolveAdmissionLimits(queue, provider, { ...connection, maxConcurrent: 2, rateLimitOverrides: { maxConcurrent: 1 } }, "m1").connectionCap).toBe(1);
    expect(resolveAdmissionLimits(queue, provider, { ...connection, maxConcurrent: 0 }, "m1").connectionCap).toBeNull();
    const models = { ...connection, rateLimitOverrides: { modelConcurrency: { m1: 3 } } };
    expect(resolveAdmissionLimits(queue, provider, models, "m1").modelCap).toBe(3);
    expect(resolveAdmissionLimits(queue, provider, models, "m1-mini").modelCap).toBeNull();
  });

  it("R9.5 every active apikey connection is protected while auto-enable is on; true forces it, false equals unset", () => {
    expect(resolveAdmissionLimits(queue, provider, connection, "m").protected).toBe(true);
    expect(resolveAdmissionLimits(queue, { ...provider, category: "oauth" }, connection, "m").protected).toBe(false);
    expect(resolveAdmissionLimits(queue, { ...provider, category: "oauth" }, { ...connection, rateLimitProtection: true }, "m").protected).toBe(true);
    const off = { ...queue, autoEnableApiKeyProviders: false };
    expect(resolveAdmissionLimits(off, provider, { ...connection, rateLimitProtection: false }, "m").protected).toBe(false);
    expect(resolveAdmissionLimits(off, provider, { ...connection, rateLimitProtection: true }, "m").protected).toBe(true);
  });
});

describe("learned pacing (R9.4)", () => {
  const verdict = (retryHintMs: number | null, source: string | null = "retry-after"): Verdict => ({
    reason: "rate_limit",
    scope: "connection",
    status: 429,
    retryHintMs,
    retryHintSource: source,
    retryHintPerModel: source === "google_rpc_retry_info",
    breakerEligible: false,
    failover: true,
    terminal: null,
    cooldownMs: null,
    message: "429",
  });

  it("R9.4 an exhausted request window pauses until its reset (OpenAI duration, Anthropic instant)", () => {
    // The upstream halves read the window (their header families); the engine decides the pause.
    const pause = (headers: Record<string, string>, now: number) => pauseFromWindow(requestWindowOf(headers, now), now);
    expect(pause({ "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1.5s" }, 10_000)).toBe(11_500);
    const reset = new Date(70_000).toISOString();
    expect(pause({ "anthropic-ratelimit-requests-remaining": "0", "anthropic-ratelimit-requests-reset": reset }, 10_000)).toBe(70_000);
    expect(pause({ "x-ratelimit-remaining-requests": "3", "x-ratelimit-reset-requests": "1s" }, 10_000)).toBeNull();
    expect(pauseFromWindow(null, 0)).toBeNull();
    expect(pauseFromWindow({ remaining: 0, resetAt: 5 }, 10)).toBeNull();
  });

  it("R9.4 a stated wait within maxWaitMs pauses; a longer typed Google RetryInfo on a per-model limiter becomes a lockout (≤ 24 h)", () => {
    expect(pacingFromVerdict(verdict(2_000), 30_000, false, 100)).toEqual({ kind: "pause", until: 2_100 });
    expect(pacingFromVerdict(verdict(90_000, "google_rpc_retry_info"), 30_000, true, 0)).toEqual({ kind: "lockout", durationMs: 90_000 });
    expect(pacingFromVerdict(verdict(3 * 86_400_000, "google_rpc_retry_info"), 30_000, true, 0)).toEqual({ kind: "lockout", durationMs: 86_400_000 });
    expect(pacingFromVerdict(verdict(90_000, "google_rpc_retry_info"), 30_000, false, 0)).toBeNull();
    expect(pacingFromVerdict(verdict(null), 30_000, false, 0)).toBeNull();
    expect(pacingFromVerdict({ ...verdict(2_000), reason: "quota_exhausted" }, 30_000, false, 0)).toEqual({ kind: "pause", until: 2_000 });
    expect(pacingFromVerdict({ ...verdict(2_000), reason: "auth_error" }, 30_000, false, 0)).toBeNull();
  });
});
