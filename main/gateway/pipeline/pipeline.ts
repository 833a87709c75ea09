// One client request, end to end (DESIGN.md "One request", R22, R24.3): one RequestContext, the
// features' arrival, the plan of targets, then for each candidate connection (the features'
// `candidates` hooks chose them) one attempt slot, the attempt, and the features' decision; when
// nothing answered, the terminal verdict, or a count's estimate. Generation, compaction and count
// requests walk this one loop and every hook; they differ only in their upstream call
// (attemptRun.ts) and their fallback.
import { ERROR_CODES } from "../../../shared/errorCodes.js";
import { decideComboWait, type Blocker } from "../../engine/comboWait.js";
import type { RequestContext } from "../context/requestContext.js";
import { clientHalf, isStreamRequest, upstreamFormatOf } from "../formats/index.js";
import { describeError } from "../context/ports.js";
import { tryEmergencyFallback } from "./fallback.js";
import { earliestRecoveryMs, keyBudgetExceeded, terminalError, type Step } from "./finish.js";
import { heartbeatEveryMs, keepAliveEvents } from "./liveness.js";
import { planRequest } from "./plan.js";
import { candidatesFor, sameConnectionAgain, type Candidate } from "./select.js";
import { arrivalFields } from "../context/trace.js";
import type { Target } from "../context/resolve.js";
import { ClientResponse } from "../context/clientResponse.js";
import type { ClientSink } from "../context/clientSink.js";
import { holdsFor, RETRY_SOON_MS } from "../context/outcome.js";
import { waitUnlessAborted } from "./routing/comboWaitTimer.js";
import { createAttemptRunner } from "./attemptRun.js";

export type { PipelineBudgets, PipelineDeps, PipelineRouting } from "./deps.js";
import type { PipelineDeps } from "./deps.js";

export function createPipeline(deps: PipelineDeps) {
  const runner = createAttemptRunner(deps);

  /**
   * A failure inside Switchyard (a bug, not an upstream's answer) is logged with the request id,
   * and the client gets a 500 in its format and the request its log row, unless it was answered.
   */
  async function handle(ctx: RequestContext, res: ClientSink): Promise<void> {
    if (ctx.model === "" && typeof ctx.body.model === "string") ctx.model = ctx.body.model;
    const stream = ctx.count === null && isStreamRequest(ctx.format, ctx.body);
    ctx.client = new ClientResponse(res, {
      format: ctx.format,
      requestId: ctx.requestId,
      model: ctx.model,
      stream,
      clock: deps.clock,
      log: deps.requestLog,
      meter: deps.usageMeter,
      emit: deps.emit,
      framing: ctx.framing,
    });
    const { client } = ctx;
    client.record.transport = ctx.transport;
    client.hooks = deps.features.answerHooks(ctx);
    try {
      await serve(ctx);
    } catch (err) {
      deps.logger?.error({ requestId: ctx.requestId, err: describeError(err) }, "internal error while handling a request");
      if (!client.settled)
        client.fail({ status: ERROR_CODES.internal_error.status, code: "internal_error", message: "Switchyard failed to handle the request", retryAfterMs: null, noRetry: false });
    }
  }

  async function serve(ctx: RequestContext): Promise<void> {
    const { client, record, model, format } = ctx;
    const arrival = arrivalFields(ctx.headers, () => clientHalf(format).promptText(ctx.body), deps.promptLogging?.() ?? false);
    ctx.clientKind = arrival.clientKind ?? "other";
    record.arrived(arrival);
    record.keyed(ctx.apiKeyId);
    const refusal = deps.features.arrive(ctx);
    record.classed(ctx.trafficClass);
    if (refusal) return client.fail(refusal);
    const overBudgetMs = deps.budgets?.keyOverBudgetMs(ctx.apiKeyId) ?? null;
    if (overBudgetMs !== null) return client.fail(keyBudgetExceeded(overBudgetMs));
    const routing = deps.routing && {
      router: deps.routing.router,
      format,
      body: ctx.body,
      now: deps.clock.now(),
      random: deps.routing.random,
      sessionKey: ctx.session?.key ?? null,
      pin: ctx.session?.pin() ?? null,
      estimate: ctx,
    };
    // A count takes the stored order: it must not advance a combo's rotation or its session target.
    const plan = planRequest(model, deps.catalog, ctx.count ? undefined : routing);
    if (!plan) {
      client.fail({ status: ERROR_CODES.model_not_found.status, code: "model_not_found", message: `Unknown model: ${model || "(none)"}`, retryAfterMs: null, noRetry: true });
      return;
    }
    const narrowed = deps.features.planned(ctx, plan, ctx.selection);
    if (narrowed) return client.fail(narrowed);
    ctx.plan = plan;
    const budgets = deps.streamBudgets();
    ctx.policy.recoveryEnabled = budgets.recoveryEnabled;
    record.planned(plan.combo, ctx);
    if (client.streaming) client.startHeartbeat(heartbeatEveryMs(format, budgets.heartbeatMs), keepAliveEvents(format, ctx.clientKind));
    try {
      await tryTargets(ctx);
    } finally {
      client.stopHeartbeat();
    }
  }

  async function tryTargets(ctx: RequestContext): Promise<void> {
    for (;;) {
      if ((await walkTargets(ctx)) === "answered") return;
      // R21.5: a subscription window resets soon and the class waits for it: walk the targets again after it.
      const walkAgainMs = ctx.walkAgainMs;
      ctx.walkAgainMs = null;
      const delayMs = walkAgainMs ?? comboWaitMs(ctx) ?? heldWaitMs(ctx);
      if (delayMs === null) break;
      if (!(await waitUnlessAborted(delayMs, ctx.client.signal))) return ctx.client.clientClosed();
      ctx.waits.count++;
      ctx.waits.waitedMs += delayMs;
      ctx.selection = ctx.selection.nextPass();
      ctx.failures = [];
      ctx.failed = [];
    }
    if (ctx.count) return runner.countFallback(ctx);
    if ((await tryEmergencyFallback(ctx, deps, tryCandidate)) === "answered") return;
    ctx.client.fail(finalError(ctx));
  }

  function finalError(ctx: RequestContext) {
    return ctx.session?.capacityRefusal() ?? terminalError(deps, ctx, ctx.plan.targets.length, ctx.plan.combo !== null);
  }

  /**
   * R25.6: an answer that would tell the client to retry after more than a minute is a wait
   * Switchyard takes itself (keep-alives go on) while the request's waits stay within
   * waitOrSwitch.maxWaitMs; null when it answers now.
   */
  function heldWaitMs(ctx: RequestContext): number | null {
    const maxWaitMs = deps.maxHeldWaitMs?.() ?? 0;
    if (maxWaitMs <= RETRY_SOON_MS || ctx.count || !ctx.holdsForRecovery || ctx.client.gone) return null;
    return holdsFor(finalError(ctx), ctx.waits.waitedMs, maxWaitMs);
  }

  /** One pass over the plan's targets; "next" means nothing answered. */
  async function walkTargets(ctx: RequestContext): Promise<Step> {
    const choice = ctx.plan.connectionChoice;
    for (const target of ctx.plan.targets) {
      // A count is answered by an upstream of the client's own format only (its count route), and so is a
      // request after a translation the upstream refused as malformed (R25.4).
      if ((ctx.count || ctx.sameFormatOnly) && upstreamFormatOf(target.provider, ctx.format) !== ctx.format) continue;
      for (const candidate of candidatesFor(target, deps, ctx.selection, { features: deps.features, ctx }, choice)) {
        if ((await tryConnection(ctx, target, candidate)) === "answered") return "answered";
        if (ctx.client.gone) return closed(ctx);
        if (ctx.walkAgainMs !== null) return "next";
        if (ctx.abandonTarget) break;
      }
      ctx.abandonTarget = false;
      if (ctx.client.gone) return closed(ctx);
    }
    return "next";
  }

  /** The candidate, and while a feature asks for it after a wait (R20.4), the same connection again, re-checked. */
  async function tryConnection(ctx: RequestContext, target: Target, candidate: Candidate): Promise<Step> {
    let step = await tryCandidate(ctx, target, candidate);
    while (step === "next" && ctx.retrySameMs !== null && !ctx.client.gone && !ctx.abandonTarget) {
      const waitMs = ctx.retrySameMs;
      ctx.retrySameMs = null;
      if (waitMs > 0 && !(await waitUnlessAborted(waitMs, ctx.client.signal))) break;
      // R18.4: the key may have run out of budget while the request waited (other requests spent it).
      const overBudgetMs = waitMs > 0 ? (deps.budgets?.keyOverBudgetMs(ctx.apiKeyId) ?? null) : null;
      if (overBudgetMs !== null) return (ctx.client.fail(keyBudgetExceeded(overBudgetMs)), "answered");
      const again = sameConnectionAgain(target, deps, candidate.connection.id, { features: deps.features, ctx });
      if (!again) break;
      step = await tryCandidate(ctx, target, again);
    }
    ctx.retrySameMs = null;
    return step;
  }

  function tryCandidate(ctx: RequestContext, target: Target, candidate: Candidate): Promise<Step> {
    return runner.tryCandidate(ctx, target, candidate);
  }

  function closed(ctx: RequestContext): Step {
    ctx.client.clientClosed();
    return "answered";
  }

  /** R11.4: how long to wait before dispatching the combo again, or null to give the verdict now. */
  function comboWaitMs(ctx: RequestContext): number | null {
    if (!deps.routing || !ctx.plan.comboDef || !ctx.holdsForRecovery || ctx.count) return null;
    const recoveryMs = earliestRecoveryMs(deps, ctx.selection.triedProviders);
    const blockers: Blocker[] = [
      ...ctx.selection.exclusions.map((e) => ({ reason: e.reason, remainingMs: e.remainingMs })),
      ...ctx.failures.map((f) => ({ ...f, remainingMs: f.remainingMs ?? recoveryMs })),
    ];
    const decision = decideComboWait({
      settings: deps.routing.comboWait(),
      comboOptIn: ctx.plan.comboDef.config.comboCooldownWaitEnabled,
      blockers,
      waitsSoFar: ctx.waits.count,
      waitedMs: ctx.waits.waitedMs,
    });
    return decision.wait ? decision.delayMs : null;
  }

  return { handle };
}

export type Pipeline = ReturnType<typeof createPipeline>;
