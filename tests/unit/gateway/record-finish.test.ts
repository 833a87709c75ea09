// Stages "classify and record" and "next target or finish", with the real engine on a fake
// clock and a real client response over loopback.
import { describe, expect, it } from "vitest";
import type { AttemptOutcome } from "../../../main/gateway/pipeline/attempt.js";
import { settleAttempt, terminalError } from "../../../main/gateway/pipeline/finish.js";
import { recordAttempt } from "../../../main/gateway/pipeline/record.js";
import { SelectionLog } from "../../../main/gateway/pipeline/select.js";
import { errorFromExclusions, errorFromVerdict, holdsFor, type FailedAttempt } from "../../../main/gateway/context/outcome.js";
import type { Verdict } from "../../../main/engine/ports.js";

const failed = (verdict: Verdict, target = "oai/m1"): FailedAttempt => ({ verdict, target, upstreamShouldRetry: null });
import { clientSide, connection, ports, provider } from "./fixtures.js";

const oai = provider({ id: "oai", models: ["m1"] });
const setup = () => {
  const p = ports({ providers: [oai], connections: [connection({ id: "c1", provider: "oai" }), connection({ id: "c2", provider: "oai", priority: 1 })] });
  const ctx = (id = "c1") => ({ provider: oai, connection: p.h.store.row(id), model: "m1", probe: false });
  return { p, ctx };
};
const usage: Extract<AttemptOutcome, { kind: "json" }>["usage"] = { inputTokens: 2, outputTokens: 3 };
const policy = () => ({ recoveryEnabled: true, earlyEofRetries: { spent: 0 } });

describe("classify and record", () => {
  it("R4.1 a 429 becomes a rate_limit verdict, cools the connection and adds the attempt line with its latency", async () => {
    const { p, ctx } = setup();
    const side = await clientSide(p);
    const startedAt = p.h.clock.now();
    p.h.clock.advance(120);
    const outcome: AttemptOutcome = { kind: "upstream_error", status: 429, headers: { "retry-after": "10" }, bodyText: '{"error":{"message":"slow"}}', upstreamFormat: "openai" };
    const fresh = (c: { id: string }) => p.h.store.row(c.id);
    const result = recordAttempt(p.h.engine, p.h.clock, ctx(), side.client, outcome, startedAt, { fresh });
    expect(result).toMatchObject({ kind: "failure", verdict: { reason: "rate_limit", failover: true } });
    expect(p.h.store.row("c1").rateLimitedUntil).toBe(p.h.clock.now() + 10_000);
    expect(side.client.record.attempts).toEqual([
      {
        provider: "oai",
        connectionId: "c1",
        model: "m1",
        status: 429,
        verdict: "rate_limit",
        latencyMs: 120,
        // R25.4: refused at the response head, the account's fault.
        ended: "headers",
        fault: "account",
        // The request timeline: the error body's size, the hint and the cooldown it left.
        bytes: 28,
        retryHintMs: 10_000,
        retryHintSource: "retry-after",
        after: { state: "cooling_down", remainingMs: 10_000 },
      },
    ]);
    side.client.clientClosed();
    await side.close();
  });

  it("R13.6 a stream that hit the attempt deadline is classified as a timeout", async () => {
    const { p, ctx } = setup();
    const side = await clientSide(p);
    const outcome: AttemptOutcome = { kind: "failed_before_output", code: "stream_attempt_deadline", detail: "stream_attempt_deadline", usage };
    expect(recordAttempt(p.h.engine, p.h.clock, ctx(), side.client, outcome, p.h.clock.now())).toMatchObject({ kind: "failure", verdict: { reason: "timeout" } });
    side.client.clientClosed();
    await side.close();
  });

  it("R4.3 a success clears the connection's error state; a client abort counts for nothing", async () => {
    const { p, ctx } = setup();
    p.h.store.updateRuntime("c1", { backoffLevel: 2, lastError: "old" });
    const side = await clientSide(p);
    expect(recordAttempt(p.h.engine, p.h.clock, ctx(), side.client, { kind: "json", status: 200, body: {}, usage }, p.h.clock.now())).toEqual({ kind: "success", fault: "none" });
    expect(p.h.store.row("c1").backoffLevel).toBe(0);
    const writes = p.h.store.writes;
    expect(recordAttempt(p.h.engine, p.h.clock, ctx("c2"), side.client, { kind: "client_gone", usage }, p.h.clock.now())).toEqual({ kind: "client_gone", fault: "client" });
    expect(p.h.store.writes).toBe(writes);
    expect(side.client.record.attempts.map((a) => [a.verdict, a.ended, a.fault])).toEqual([
      [null, "complete", "none"],
      ["client_abort", "before_content", "client"],
    ]);
    side.client.clientClosed();
    await side.close();
  });
});

describe("next target or finish", () => {
  const verdictOf = (p: ReturnType<typeof setup>["p"], status: number) =>
    p.h.engine.classify({ provider: oai, model: "m1", failure: { kind: "http", status, headers: {}, bodyText: "" } });

  it("R11.3 a failover verdict goes on to the next candidate; a 400 answers the client with the upstream body", async () => {
    const { p } = setup();
    const side = await clientSide(p);
    const failure = (status: number): AttemptOutcome => ({ kind: "upstream_error", status, headers: {}, bodyText: '{"error":{"message":"no"}}', upstreamFormat: "openai" });
    expect(settleAttempt(side.client, failure(500), { kind: "failure", verdict: verdictOf(p, 500) }, policy())).toBe("next");
    expect(settleAttempt(side.client, failure(400), { kind: "failure", verdict: verdictOf(p, 400) }, policy())).toBe("answered");
    const r = await side.response;
    expect(r.status).toBe(400);
    expect(r.text).toBe('{"error":{"message":"no"}}');
    expect(p.log.entries[0]).toMatchObject({ status: 400, errorCode: "bad_request" });
    await side.close();
  });

  it("R13.2 an early EOF fails over once; the second one answers with its verdict", async () => {
    const { p } = setup();
    const side = await clientSide(p);
    const eof: AttemptOutcome = { kind: "failed_before_output", code: "STREAM_EARLY_EOF", detail: "empty", usage };
    const verdict = p.h.engine.classify({ provider: oai, model: "m1", failure: { kind: "stream", cause: "early_eof", detail: "empty" } });
    const shared = policy();
    expect(settleAttempt(side.client, eof, { kind: "failure", verdict }, shared)).toBe("next");
    expect(settleAttempt(side.client, eof, { kind: "failure", verdict }, shared)).toBe("answered");
    expect(JSON.parse((await side.response).text).error.code).toBe("STREAM_EARLY_EOF");
    await side.close();
  });

  it("R11.5 with no attempt, the exclusions decide; after attempts, the last verdict with the earliest recovery", () => {
    const { p } = setup();
    const deps = { connections: p.connections, clock: p.h.clock };
    const log = new SelectionLog();
    log.exclusions.push({ target: "oai/m1", reason: "unavailable", remainingMs: 4_000, provider: "oai" });
    expect(terminalError(deps, { lastVerdict: null, failed: [], selection: log }, 1, false)).toEqual(errorFromExclusions(log.exclusions, 1, false, log.connectionCounts));
    expect(terminalError(deps, { lastVerdict: null, failed: [], selection: log }, 1, false)).toMatchObject({
      status: 503,
      code: "all_targets_cooling_down",
      retryAfterMs: 4_000,
    });
    log.claim("c1", { provider: oai, model: "m1" });
    p.h.store.updateRuntime("c2", { rateLimitedUntil: p.h.clock.now() + 9_000 });
    const rateLimited = { ...verdictOf(p, 429), clientRetryAfterMs: null };
    expect(terminalError(deps, { lastVerdict: rateLimited, failed: [failed(rateLimited)], selection: log }, 1, false)).toEqual(errorFromVerdict(rateLimited, 9_000));
    expect(terminalError(deps, { lastVerdict: rateLimited, failed: [failed(rateLimited)], selection: log }, 1, false)).toMatchObject({
      status: 429,
      code: "rate_limit_error",
      retryAfterMs: 9_000,
    });
  });

  it("R25.6 when every target failed: the last 429, else 401/403, else 404, else the server-side failure naming how many targets were tried", () => {
    const { p } = setup();
    const deps = { connections: p.connections, clock: p.h.clock };
    const selection = new SelectionLog();
    selection.exclusions.push({ target: "oai/m1", reason: "terminal", remainingMs: null, provider: "oai", connectionId: "c2" });
    const [auth, notFound, server, limited] = [verdictOf(p, 401), verdictOf(p, 404), verdictOf(p, 500), { ...verdictOf(p, 429), clientRetryAfterMs: 5_000 }];
    const answer = (list: Verdict[], combo = true) =>
      terminalError(deps, { lastVerdict: list[list.length - 1], failed: list.map((v, i) => failed(v, `t${i}/m1`)), selection }, 2, combo);
    // The case: every target refused the credential → a 401 that tells the user, not a 503 to retry.
    expect(answer([auth, auth])).toMatchObject({ status: 401, code: "unauthorized", noRetry: true });
    expect(answer([auth, notFound])).toMatchObject({ status: 401, code: "unauthorized" });
    expect(answer([notFound, server])).toMatchObject({ status: 404, code: "model_not_found" });
    expect(answer([limited, auth, server])).toMatchObject({ status: 429, code: "rate_limit_error", retryAfterMs: 5_000, noRetry: false });
    expect(answer([auth, server], false)).toMatchObject({ status: 401 });
    const allServer = answer([server, server, server]);
    expect(allServer).toMatchObject({ status: 500, code: "upstream_error", extra: { targets_tried: 3 } });
    expect(allServer.message).toMatch(/^3 target\(s\) tried, every one failed/);
    // With no attempt, the exclusions still decide (R11.5).
    expect(terminalError(deps, { lastVerdict: null, failed: [], selection }, 2, true)).toMatchObject({ status: 503, code: "ALL_TARGETS_SKIPPED" });
  });

  it("R25.6 an upstream's x-should-retry in the client's format passes through on the deciding failure", () => {
    const { p } = setup();
    const deps = { connections: p.connections, clock: p.h.clock };
    const selection = new SelectionLog();
    const server = verdictOf(p, 500);
    const said = (value: boolean | null) => terminalError(deps, { lastVerdict: server, failed: [{ ...failed(server), upstreamShouldRetry: value }], selection }, 1, false);
    expect(said(false)).toMatchObject({ noRetry: true });
    expect(said(true)).toMatchObject({ noRetry: false, headers: { "x-should-retry": "true" } });
    expect(said(null).headers).toBeUndefined();
  });
});

describe("R25.6 a wait longer than a minute", () => {
  const err = (status: number, retryAfterMs: number | null, noRetry = false) => ({ status, code: "rate_limit_error" as const, message: "m", retryAfterMs, noRetry });
  it("R25.6 is held by Switchyard while the request's waits fit waitOrSwitch.maxWaitMs; a wait of a minute or less, a refusal or an overrun answers now", () => {
    expect(holdsFor(err(429, 90_000), 0, 120_000)).toBe(90_000);
    expect(holdsFor(err(503, 61_000), 50_000, 120_000)).toBe(61_000);
    expect(holdsFor(err(503, 61_000), 70_000, 120_000)).toBeNull();
    expect(holdsFor(err(429, 60_000), 0, 120_000)).toBeNull();
    expect(holdsFor(err(429, 90_000, true), 0, 120_000)).toBeNull();
    expect(holdsFor(err(500, 90_000), 0, 120_000)).toBeNull();
    expect(holdsFor(err(429, null), 0, 120_000)).toBeNull();
  });
});
