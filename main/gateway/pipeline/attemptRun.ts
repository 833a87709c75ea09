// One candidate's attempt, for every route (R22.1, R24.3): the features' beforeSend, one attempt
// slot (probe and admission, released once, attemptSlot.ts), the upstream call through the
// features' beforeAttempt and send, a feature's own answer to the outcome, then classify and record
// and the features' afterAttempt. A generation's call is attempt.ts; a count's (count_tokens,
// input_tokens, countTokens) is countCall.ts: a count is no proof of health, so it records nothing
// in the engine, moves no session, and when no upstream counted it the estimate answers.
import type { AttemptContext, Verdict } from "../../engine/ports.js";
import type { RequestContext } from "../context/requestContext.js";
import type { AttemptTarget, OwnAnswer } from "../features/index.js";
import { clientHalf, upstreamFormatOf } from "../formats/index.js";
import type { Target } from "../context/resolve.js";
import { runAttempt, type AttemptHooks, type AttemptOutcome } from "./attempt.js";
import { acquireSlot, type AttemptSlot } from "./attemptSlot.js";
import { countOn } from "./countCall.js";
import { settleAttempt, type Step } from "./finish.js";
import { endedOf, recordAttempt, upstreamHeadersOf, upstreamShouldRetry } from "./record.js";
import { noteForRouting } from "./routingNotes.js";
import type { Candidate } from "./select.js";
import { abandonTimedOutTarget, targetDeadlineFor } from "./targetDeadline.js";
import type { PipelineDeps } from "./deps.js";
import type { AttemptEnded, Connection } from "../../../shared/types.js";
import { faultOf } from "../../engine/faults.js";

/** R25.4: whether the target's upstream speaks another format than the client, so Switchyard translated the request. */
function translatedFor(ctx: RequestContext, target: Target): boolean {
  return upstreamFormatOf(target.provider, ctx.format) !== ctx.format;
}

/** R25.4: a 400/422 at the response head, or an error event of that class before any content. */
function refusedAsMalformed(outcome: AttemptOutcome, verdict: Verdict): boolean {
  if (verdict.reason !== "bad_request") return false;
  return outcome.kind === "upstream_error" || (outcome.kind === "failed_before_output" && outcome.code === "stream_error_event");
}

/** Whether a target after this one in the plan takes the client's format unchanged. */
function sameFormatTargetAfter(ctx: RequestContext, target: Target): boolean {
  const targets = ctx.plan.targets;
  for (let i = targets.indexOf(target) + 1; i < targets.length; i++) {
    if (!translatedFor(ctx, targets[i])) return true;
  }
  return false;
}

/** A count spends no tokens. */
const NO_USAGE = Object.freeze({ inputTokens: null, outputTokens: null });

export function createAttemptRunner(deps: PipelineDeps) {
  async function tryCandidate(ctx: RequestContext, target: Target, { connection, probe }: Candidate): Promise<Step> {
    if (ctx.transcript?.resuming && !ctx.transcript.canContinueOn(target)) return release(ctx, target, connection, probe);
    // Counting is no proof of health: the HALF_OPEN probe is left to a real request.
    if (ctx.count && probe) return release(ctx, target, connection, probe, true);
    const engineCtx: AttemptContext = { provider: target.provider, connection, model: target.model, probe };
    const attempt: AttemptTarget = { target, connection, probe };
    const gate = deps.features.beforeSend(ctx, attempt, ctx.selection);
    if (gate) {
      // Nothing was sent: the HALF_OPEN probe, if this was it, is left for a real attempt.
      deps.engine.recordNeutral(engineCtx);
      if (gate.kind === "stop") return (ctx.client.fail(gate.error), "answered");
      ctx.walkAgainMs = gate.waitMs;
      return "next";
    }
    const quotaShare = ctx.plan.comboDef?.config.quotaShare === true;
    const pending = acquireSlot(deps.engine, deps.admission, { attempt: engineCtx, client: ctx.client, quotaShare: quotaShare && !ctx.count, trafficClass: ctx.trafficClass });
    const acquired = pending instanceof Promise ? await pending : pending;
    if ("passedOver" in acquired) {
      ctx.selection.exclusions.push(acquired.passedOver.skip);
      ctx.abandonTarget = true;
      return "next";
    }
    // A local refusal (R8, R9) ends the request and never blames the provider.
    if ("refused" in acquired) return ctx.client.gone ? (ctx.client.clientClosed(), "answered") : (ctx.client.fail(acquired.refused.refusal), "answered");
    const { slot } = acquired;
    try {
      return ctx.count ? await countAttempt(ctx, attempt, slot) : await generationAttempt(ctx, attempt, slot);
    } finally {
      slot.release();
    }
  }

  /** A candidate not tried after all: the probe it was admitted as goes back; a count also leaves the target. */
  function release(ctx: RequestContext, target: Target, connection: Connection, probe: boolean, leaveTarget = false): Step {
    deps.engine.recordNeutral({ provider: target.provider, connection, model: target.model, probe });
    if (leaveTarget) ctx.abandonTarget = true;
    return "next";
  }

  async function generationAttempt(ctx: RequestContext, attempt: AttemptTarget, slot: AttemptSlot): Promise<Step> {
    const { target, connection } = attempt;
    const engineCtx = slot.attempt;
    const startedAt = deps.clock.now();
    ctx.client.attemptStarted();
    const combo = deps.routing ? ctx.plan.combo : null;
    if (combo) deps.routing?.router.dispatched(combo, target);
    // A combo's own targets only: an emergency fallback's attempt is no target of the combo.
    const deadline = ctx.plan.comboDef && ctx.plan.targets.includes(target) ? targetDeadlineFor(ctx.plan.comboDef, ctx.client) : null;
    const execution = slot.admission.execution;
    let outcome: AttemptOutcome;
    try {
      outcome = await runAttempt(deps, ctx, ctx.client, target, connection, hooksFor(ctx, attempt), execution, deadline ?? ctx.client.departure);
    } finally {
      deadline?.end();
    }
    if (deadline?.expired && !ctx.client.gone) {
      abandonTimedOutTarget(deps, ctx, { ctx: engineCtx, target, combo, startedAt, deadline, ended: endedOf(outcome, ctx.client.outputStarted) });
      return "next";
    }
    if (execution?.expired && !ctx.client.gone) {
      // R9.1: the job expired; a local limit, not the provider's failure.
      attempted(ctx, attempt, { status: null, verdict: execution.error.code, startedAt, ended: endedOf(outcome, ctx.client.outputStarted) });
      ctx.client.fail(execution.error);
      return "answered";
    }
    const own = deps.features.outcome(ctx, attempt, outcome);
    if (own) return ownAnswer(ctx, attempt, own, outcome, startedAt);
    const translated = translatedFor(ctx, target);
    const result = recordAttempt(deps.engine, deps.clock, engineCtx, ctx.client, outcome, startedAt, { fresh: freshConnection, translated });
    slot.engineRecorded({ headers: upstreamHeadersOf(outcome), verdict: result.kind === "failure" ? result.verdict : null });
    noteForRouting(deps, { combo, ctx: engineCtx, target, outcome, result, startedAt, sessionKey: ctx.session?.key ?? null, trafficClass: ctx.trafficClass });
    if (result.kind === "failure") {
      ctx.lastVerdict = result.verdict;
      ctx.failures.push({ reason: result.verdict.reason, remainingMs: null, hintMs: result.verdict.retryHintMs });
      ctx.failed.push({ verdict: result.verdict, target: `${target.provider.id}/${target.model}`, upstreamShouldRetry: upstreamShouldRetry(outcome, ctx.format) });
    }
    if (result.kind === "success" && ctx.movesSession) ctx.session?.served(target.provider.id, connection.id, target.model);
    const decision = deps.features.afterAttempt(ctx, { target, connection, probe: attempt.probe, outcome, result });
    if (decision?.kind === "shed") return (ctx.client.fail(decision.error), "answered");
    if (decision?.kind === "resume") return "next";
    if (decision?.kind === "leave_target") ctx.abandonTarget = true;
    if (decision?.kind === "retry_same") {
      ctx.retrySameMs = decision.waitMs;
      return "next";
    }
    if (result.kind === "failure" && result.fault === "gateway" && refusedAsMalformed(outcome, result.verdict) && gatewayFault(ctx, target, result.verdict)) return "next";
    return settleAttempt(ctx.client, outcome, result, ctx.policy);
  }

  /**
   * R25.4: the upstream refused as malformed a request Switchyard translated: announced (who and which
   * formats, the upstream's message, never the prompt), and the request goes on once more on a
   * remaining target that takes the client's format unchanged, when there is one (true).
   */
  function gatewayFault(ctx: RequestContext, target: Target, verdict: Verdict): boolean {
    const upstreamFormat = upstreamFormatOf(target.provider, ctx.format);
    deps.emit({ type: "gateway.fault", provider: target.provider.id, clientFormat: ctx.format, upstreamFormat, message: verdict.message, at: deps.clock.now() });
    if (ctx.sameFormatOnly || ctx.client.outputStarted || !sameFormatTargetAfter(ctx, target)) return false;
    ctx.sameFormatOnly = true;
    ctx.abandonTarget = true;
    return true;
  }

  /** A count's attempt: the exact count answers; anything else leaves it to the next connection, or the estimate. */
  async function countAttempt(ctx: RequestContext, attempt: AttemptTarget, slot: AttemptSlot): Promise<Step> {
    const startedAt = deps.clock.now();
    ctx.client.attemptStarted();
    const counted = await countOn(deps, ctx, attempt, hooksFor(ctx, attempt));
    if (ctx.client.gone) return (ctx.client.clientClosed(), "answered");
    const own = counted.outcome && deps.features.outcome(ctx, attempt, counted.outcome);
    if (own && counted.outcome) return ownAnswer(ctx, attempt, own, counted.outcome, startedAt);
    const ended = counted.text !== null ? "complete" : counted.status === null ? "connect" : "headers";
    attempted(ctx, attempt, { status: counted.status, verdict: counted.text === null ? "count_unavailable" : null, startedAt, ended });
    slot.observed({ headers: counted.headers, verdict: null });
    if (counted.text === null) return "next";
    const outcome: AttemptOutcome = { kind: "json", status: 200, body: counted.text, usage: NO_USAGE };
    const decision = deps.features.afterAttempt(ctx, {
      target: attempt.target,
      connection: attempt.connection,
      probe: attempt.probe,
      outcome,
      result: { kind: "success", fault: "none" },
    });
    if (decision?.kind === "shed") return (ctx.client.fail(decision.error), "answered");
    ctx.client.answeredBy(attempt.connection.id, []);
    ctx.client.sendJson(counted.text);
    return "answered";
  }

  /** A feature answered the attempt's outcome itself (a refused login): nothing is recorded in the engine, nothing cools. */
  function ownAnswer(ctx: RequestContext, attempt: AttemptTarget, own: OwnAnswer, outcome: AttemptOutcome, startedAt: number): Step {
    attempted(ctx, attempt, { status: "status" in outcome ? outcome.status : null, verdict: own.verdict, startedAt, ended: endedOf(outcome, ctx.client.outputStarted) });
    if (own.upstreamBody !== undefined) ctx.client.passUpstreamError(own.error, own.upstreamBody, own.verdict);
    else ctx.client.fail(own.error);
    return "answered";
  }

  function attempted(
    ctx: RequestContext,
    { target, connection }: AttemptTarget,
    line: { status: number | null; verdict: string | null; startedAt: number; ended: AttemptEnded },
  ): void {
    ctx.record.attempted({
      provider: target.provider.id,
      connectionId: connection.id,
      model: target.model,
      status: line.status,
      verdict: line.verdict,
      latencyMs: deps.clock.now() - line.startedAt,
      ended: line.ended,
      fault: faultOf(line.verdict, line.ended, translatedFor(ctx, target)),
    });
  }

  /** When no upstream counted (or none could be asked): the documented estimate (R16.5, R17.1). */
  function countFallback(ctx: RequestContext): void {
    ctx.client.addHeader("X-Switchyard-Token-Count", "estimate");
    ctx.client.sendJson(ctx.count!.estimateBody(clientHalf(ctx.format).estimateInputTokens(ctx.body)));
  }

  /** What the features make of one attempt's body and call (R22: beforeAttempt, send). */
  function hooksFor(ctx: RequestContext, attempt: AttemptTarget): AttemptHooks {
    return {
      body: (body) => deps.features.beforeAttempt(ctx, attempt, body),
      send: (send) => deps.features.send(ctx, attempt, send),
      transcript: ctx.transcript,
    };
  }

  /** The request log notes the cooldown a failure left, as the store now holds it. */
  function freshConnection(c: Connection): Connection {
    return deps.connections.listByProvider(c.provider).find((x) => x.id === c.id) ?? c;
  }

  return { tryCandidate, countFallback };
}
