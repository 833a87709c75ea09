// One client request, end to end (DESIGN.md "One request", R22): one RequestContext, the features'
// arrival, the plan of targets, then for each candidate connection admit, attempt, classify and
// record, the features' decision, and answer or go on; when nothing answered, the terminal verdict.
// Each stage is its own module under request/; each capability is a feature under features/.
import { ERROR_CODES } from "../../../shared/errorCodes.js";
import type { Connection, SwitchyardEvent } from "../../../shared/types.js";
import { decideComboWait, type Blocker, type ComboWaitSettings } from "../../engine/comboWait.js";
import type { AttemptContext, Clock, Verdict } from "../../engine/ports.js";
import { RequestContext, type ClientCall } from "../context/requestContext.js";
import type { AttemptReport, AttemptTarget, RequestFeatures } from "../features/index.js";
import { clientHalf, isStreamRequest } from "../formats/index.js";
import { describeError, type BudgetPort, type CatalogPort, type ConnectionsPort, type ErrorLog, type RequestLogSink } from "../context/ports.js";
import { ClientBoundTarget, type Admission, type GatewayAdmission, type PassedOver } from "./admit.js";
import { runAttempt, type AttemptHooks, type AttemptOutcome, type ClientRequest } from "./attempt.js";
import { answerCount } from "./count.js";
import { tryEmergencyFallback, type EmergencyFallbackSetting } from "./fallback.js";
import { earliestRecoveryMs, keyBudgetExceeded, settleAttempt, terminalError, type RecoveryPolicy, type Step } from "./finish.js";
import { heartbeatEveryMs, keepAliveEvents } from "./liveness.js";
import { planRequest, type RequestPlan } from "./plan.js";
import { recordAttempt, upstreamHeadersOf, type RecordingEngine } from "./record.js";
import { noteForRouting } from "./routingNotes.js";
import { candidatesFor, sameConnectionAgain, SelectionLog, type Candidate, type SelectionEngine } from "./select.js";
import type { UsageMeter } from "../context/requestRecord.js";
import { arrivalFields } from "../context/trace.js";
import { abandonTimedOutTarget, targetDeadlineFor } from "./targetDeadline.js";
import type { QuotaCutoffPort } from "./quotaCutoff.js";
import type { RequestSession } from "../context/requestSession.js";
import type { Target } from "../context/resolve.js";
import { ClientResponse } from "../context/clientResponse.js";
import type { ComboRouter } from "./routing/comboRouter.js";
import { waitUnlessAborted } from "./routing/comboWaitTimer.js";
import type { LearnedQuotas } from "./routing/learnedQuota.js";
import type { QuotaObserver } from "../context/usage/quotaHeaders.js";
import type { StreamBudgets } from "./streaming/relay.js";
import type { CallUpstream } from "../context/upstream/call.js";

export interface PipelineBudgets extends StreamBudgets {
  /** R13.2: fail over on a stream failure before any client-visible content. */
  recoveryEnabled: boolean;
  /** R13.3: continue a stream that broke after text on another connection (absent = off). */
  midstreamEnabled?: boolean;
  /** Keep-alive frames to a waiting streaming client (Anthropic `ping`, SSE comments for OpenAI). */
  heartbeatMs: number;
}

export interface PipelineDeps {
  catalog: CatalogPort;
  connections: ConnectionsPort;
  requestLog: RequestLogSink;
  engine: SelectionEngine & RecordingEngine;
  admission: GatewayAdmission;
  callUpstream: CallUpstream;
  clock: Clock;
  streamBudgets: () => PipelineBudgets;
  /** Live events for the dashboard (R15.2): one `request` event per finished request. */
  emit: (event: SwitchyardEvent) => void;
  /** The request features (features/index.ts), called at their hooks in their one order. */
  features: RequestFeatures;
  /** R11.6: the emergency fallback in force (absent = off). */
  emergencyFallback?: () => EmergencyFallbackSetting;
  /** Combo routing (R11.1, R11.4); absent, combos keep their stored order and never wait. */
  routing?: PipelineRouting;
  /** The promptLogging setting (absent = off): the request log keeps prompt text only when true. */
  promptLogging?: () => boolean;
  /** R18.4: key and connection budgets (absent = none enforced). */
  budgets?: BudgetPort;
  /** R18.1, R18.4: prices each request's row and counts it against the budgets (absent = unpriced). */
  usageMeter?: UsageMeter;
  /** R18.3: hears every attempt's response headers, for the quota meters (absent = none kept). */
  quotas?: QuotaObserver;
  /** quotaPreflightCutoff (R10.2): the setting and the quotas learned per connection (absent = off). */
  quotaCutoff?: QuotaCutoffPort;
  /** Failures inside Switchyard, logged with the request id (absent: not logged). */
  logger?: ErrorLog;
}

export interface PipelineRouting {
  router: ComboRouter;
  quotas: LearnedQuotas;
  comboWait: () => ComboWaitSettings;
  random: () => number;
}

export type { ClientCall } from "../context/requestContext.js";

/** The state of one request while its candidates are tried. */
interface RequestRun {
  ctx: RequestContext;
  request: ClientRequest;
  client: ClientResponse;
  plan: RequestPlan;
  selection: SelectionLog;
  policy: RecoveryPolicy;
  allowed: Set<string> | null;
  session: RequestSession | null;
  lastVerdict: Verdict | null;
  /** Why each attempt of the current pass failed (R11.4 decides on all of them, not the last). */
  failures: Blocker[];
  waits: { count: number; waitedMs: number };
  /** A combo target ran out of its config.targetTimeoutMs: the pass goes on with the next target. */
  abandonTarget?: boolean;
  /** A feature asked to try the same connection again after this wait (R20.4). */
  retrySameMs: number | null;
  /** R21.5: walk the targets again after this wait (a subscription window resets soon), or null. */
  walkAgainMs: number | null;
}

export function createPipeline(deps: PipelineDeps) {
  /**
   * A failure inside Switchyard (a bug, not an upstream's answer) is logged with the request id,
   * and the client gets a 500 in its format and the request its log row, unless it was answered.
   */
  async function handle(call: ClientCall): Promise<void> {
    const model = call.model ?? (typeof call.body.model === "string" ? call.body.model : "");
    const stream = !call.count && isStreamRequest(call.format, call.body);
    const client = new ClientResponse(call.res, {
      format: call.format,
      requestId: call.requestId,
      model,
      stream,
      clock: deps.clock,
      log: deps.requestLog,
      meter: deps.usageMeter,
      emit: deps.emit,
      framing: call.framing,
    });
    const ctx = new RequestContext(call, client, model);
    client.hooks = deps.features.answerHooks(ctx);
    try {
      await serve(ctx);
    } catch (err) {
      deps.logger?.error({ requestId: call.requestId, err: describeError(err) }, "internal error while handling a request");
      if (!client.settled)
        client.fail({ status: ERROR_CODES.internal_error.status, code: "internal_error", message: "Switchyard failed to handle the request", retryAfterMs: null, noRetry: false });
    }
  }

  async function serve(ctx: RequestContext): Promise<void> {
    const { client, record, call, model } = ctx;
    record.arrived(arrivalFields(call.headers, () => clientHalf(call.format).promptText(ctx.body), deps.promptLogging?.() ?? false));
    record.keyed(ctx.apiKeyId);
    const refusal = deps.features.arrive(ctx);
    record.classed(ctx.trafficClass);
    if (refusal) return client.fail(refusal);
    const overBudgetMs = deps.budgets?.keyOverBudgetMs(ctx.apiKeyId) ?? null;
    if (overBudgetMs !== null) return client.fail(keyBudgetExceeded(overBudgetMs));
    const routing = deps.routing && {
      router: deps.routing.router,
      format: call.format,
      body: ctx.body,
      now: deps.clock.now(),
      random: deps.routing.random,
      sessionKey: ctx.session?.key ?? null,
      pin: ctx.session?.pin() ?? null,
    };
    // A count takes the stored order: it must not advance a combo's rotation or its session target.
    const plan = planRequest(model, deps.catalog, call.count ? undefined : routing);
    if (!plan) {
      client.fail({ status: ERROR_CODES.model_not_found.status, code: "model_not_found", message: `Unknown model: ${model || "(none)"}`, retryAfterMs: null, noRetry: true });
      return;
    }
    if (call.count)
      return answerCount(deps, client, plan, { shape: call.count, body: ctx.body, headers: call.headers, allowed: ctx.allowed, session: ctx.session, login: ctx.login });
    const budgets = deps.streamBudgets();
    const run: RequestRun = {
      ctx,
      request: { format: call.format, body: ctx.body, bodyText: ctx.bodyText, headers: call.headers, model, login: ctx.login },
      client,
      plan,
      selection: new SelectionLog(),
      lastVerdict: null,
      failures: [],
      waits: { count: 0, waitedMs: 0 },
      policy: { recoveryEnabled: budgets.recoveryEnabled, earlyEofRetries: { spent: 0 } },
      allowed: ctx.allowed,
      session: ctx.session,
      retrySameMs: null,
      walkAgainMs: null,
    };
    run.selection.login = ctx.login;
    record.planned(plan.combo, run);
    deps.features.planned(ctx, plan, run.selection);
    if (client.streaming) client.startHeartbeat(heartbeatEveryMs(call.format, budgets.heartbeatMs), keepAliveEvents(call.format, record.clientKind));
    try {
      await tryTargets(run);
    } finally {
      client.stopHeartbeat();
    }
  }

  async function tryTargets(run: RequestRun): Promise<void> {
    for (;;) {
      if ((await walkTargets(run)) === "answered") return;
      // R21.5: a subscription window resets soon and the class waits for it: walk the targets again after it.
      const walkAgainMs = run.walkAgainMs;
      run.walkAgainMs = null;
      const delayMs = walkAgainMs ?? comboWaitMs(run);
      if (delayMs === null) break;
      if (!(await waitUnlessAborted(delayMs, run.client.signal))) return run.client.clientClosed();
      run.waits.count++;
      run.waits.waitedMs += delayMs;
      run.selection = run.selection.nextPass();
      run.failures = [];
    }
    if ((await tryEmergencyFallback(run, deps, tryCandidate)) === "answered") return;
    run.client.fail(run.session?.capacityRefusal() ?? terminalError(deps, run, run.plan.targets.length, run.plan.combo !== null));
  }

  /** One pass over the plan's targets; "next" means nothing answered. */
  async function walkTargets(run: RequestRun): Promise<Step> {
    for (const target of run.plan.targets) {
      for (const candidate of candidatesFor(target, deps, run.selection, run.allowed, run.session, run.plan.connectionChoice)) {
        if ((await tryConnection(run, target, candidate)) === "answered") return "answered";
        if (run.client.gone) return closed(run);
        if (run.walkAgainMs !== null) return "next";
        if (run.abandonTarget) break;
      }
      run.abandonTarget = false;
      if (run.client.gone) return closed(run);
    }
    return "next";
  }

  /** The candidate, and while a feature asks for it after a wait (R20.4), the same connection again, re-checked. */
  async function tryConnection(run: RequestRun, target: Target, candidate: Candidate): Promise<Step> {
    let step = await tryCandidate(run, target, candidate);
    while (step === "next" && run.retrySameMs !== null && !run.client.gone && !run.abandonTarget) {
      const waitMs = run.retrySameMs;
      run.retrySameMs = null;
      if (waitMs > 0 && !(await waitUnlessAborted(waitMs, run.client.signal))) break;
      // R18.4: the key may have run out of budget while the request waited (other requests spent it).
      const overBudgetMs = waitMs > 0 ? (deps.budgets?.keyOverBudgetMs(run.ctx.apiKeyId) ?? null) : null;
      if (overBudgetMs !== null) return (run.client.fail(keyBudgetExceeded(overBudgetMs)), "answered");
      const again = sameConnectionAgain(target, deps, candidate.connection.id, run);
      if (!again) break;
      step = await tryCandidate(run, target, again);
    }
    run.retrySameMs = null;
    return step;
  }

  function closed(run: RequestRun): Step {
    run.client.clientClosed();
    return "answered";
  }

  /** R11.4: how long to wait before dispatching the combo again, or null to give the verdict now. */
  function comboWaitMs(run: RequestRun): number | null {
    if (!deps.routing || !run.plan.comboDef || !run.ctx.holdsForRecovery) return null;
    const recoveryMs = earliestRecoveryMs(deps, run.selection.triedProviders);
    const blockers: Blocker[] = [
      ...run.selection.exclusions.map((e) => ({ reason: e.reason, remainingMs: e.remainingMs })),
      ...run.failures.map((f) => ({ ...f, remainingMs: f.remainingMs ?? recoveryMs })),
    ];
    const decision = decideComboWait({
      settings: deps.routing.comboWait(),
      comboOptIn: run.plan.comboDef.config.comboCooldownWaitEnabled,
      blockers,
      waitsSoFar: run.waits.count,
      waitedMs: run.waits.waitedMs,
    });
    return decision.wait ? decision.delayMs : null;
  }

  async function tryCandidate(run: RequestRun, target: Target, { connection, probe }: Candidate): Promise<Step> {
    const { ctx } = run;
    if (ctx.transcript?.resuming && !ctx.transcript.canContinueOn(target)) return "next";
    const engineCtx: AttemptContext = { provider: target.provider, connection, model: target.model, probe };
    const gate = deps.features.beforeSend(ctx, { target, connection, probe }, run.selection);
    if (gate) {
      // Nothing was sent: the HALF_OPEN probe, if this was it, is left for a real attempt.
      deps.engine.recordNeutral(engineCtx);
      if (gate.kind === "stop") return (run.client.fail(gate.error), "answered");
      run.walkAgainMs = gate.waitMs;
      return "next";
    }
    const quotaShare = run.plan.comboDef?.config.quotaShare === true;
    let admission: Admission | PassedOver;
    try {
      // The signal is made only if admission waits for it; most admissions decide at once.
      const decided = deps.admission.admit(new ClientBoundTarget(target.provider, connection, target.model, run.client, quotaShare, probe, ctx.trafficClass));
      admission = decided instanceof Promise ? await decided : decided;
    } catch (err) {
      // A stage that broke inside Switchyard must not hold the HALF_OPEN probe slot.
      deps.engine.recordNeutral(engineCtx);
      throw err;
    }
    if (admission.admitted === "passed_over") {
      deps.engine.recordNeutral(engineCtx);
      run.selection.exclusions.push(admission.skip);
      run.abandonTarget = true;
      return "next";
    }
    if (!admission.admitted) {
      // A local refusal (R8, R9) ends the request and never blames the provider.
      deps.engine.recordNeutral(engineCtx);
      if (run.client.gone) return closed(run);
      run.client.fail(admission.refusal);
      return "answered";
    }
    const startedAt = deps.clock.now();
    run.client.attemptStarted();
    const combo = deps.routing ? run.plan.combo : null;
    if (combo) deps.routing?.router.dispatched(combo, target);
    // A combo's own targets only: an emergency fallback's attempt is no target of the combo.
    const deadline = run.plan.comboDef && run.plan.targets.includes(target) ? targetDeadlineFor(run.plan.comboDef, run.client) : null;
    const attempt: AttemptTarget = { target, connection, probe };
    let outcome: AttemptOutcome;
    try {
      outcome = await runAttempt(deps, run.request, run.client, target, connection, attemptHooks(ctx, attempt), admission.execution, deadline ?? run.client.departure);
    } catch (err) {
      deps.engine.recordNeutral(engineCtx);
      admission.release();
      throw err;
    } finally {
      deadline?.end();
    }
    if (deadline?.expired && !run.client.gone) {
      admission.release();
      abandonTimedOutTarget(deps, run, { ctx: engineCtx, target, combo, startedAt, deadline });
      return "next";
    }
    if (admission.execution?.expired && !run.client.gone) {
      // R9.1: the job expired; a local limit, not the provider's failure.
      deps.engine.recordNeutral(engineCtx);
      admission.release();
      run.client.record.attempted({
        provider: engineCtx.provider.id,
        connectionId: connection.id,
        model: engineCtx.model,
        status: null,
        verdict: admission.execution.error.code,
        latencyMs: deps.clock.now() - startedAt,
      });
      run.client.fail(admission.execution.error);
      return "answered";
    }
    if (loginRefused(connection, outcome)) {
      // R21.1: the vendor refused the client's own login: the client sees the vendor's answer, in its
      // own format, and nothing cools (the login is the client's to renew; other logins are untouched).
      deps.engine.recordNeutral(engineCtx);
      admission.release();
      const latencyMs = deps.clock.now() - startedAt;
      run.client.record.attempted({ provider: target.provider.id, connectionId: connection.id, model: target.model, status: outcome.status, verdict: "auth_error", latencyMs });
      const message = "The upstream refused the client's own login";
      const final = { status: outcome.status, code: "unauthorized" as const, message, retryAfterMs: null, noRetry: true };
      if (outcome.bodyText.trim().startsWith("{")) run.client.passUpstreamError(final, outcome.bodyText, "auth_error");
      else run.client.fail(final);
      return "answered";
    }
    const result = recordAttempt(deps.engine, deps.clock, engineCtx, run.client, outcome, startedAt, { fresh: freshConnection });
    admission.release({ headers: upstreamHeadersOf(outcome), verdict: result.kind === "failure" ? result.verdict : null });
    noteForRouting(deps, { combo, ctx: engineCtx, target, outcome, result, startedAt, sessionKey: run.session?.key ?? null, trafficClass: ctx.trafficClass });
    return afterAttempt(run, { ...attempt, outcome, result });
  }

  /** What the features make of one attempt's body and call (R22: beforeAttempt, send). */
  function attemptHooks(ctx: RequestContext, attempt: AttemptTarget): AttemptHooks {
    return {
      body: (body) => deps.features.beforeAttempt(ctx, attempt, body),
      send: (send) => deps.features.send(ctx, attempt, send),
      transcript: ctx.transcript,
    };
  }

  /** What a recorded attempt leaves the request: answered, or the next candidate. */
  function afterAttempt(run: RequestRun, report: AttemptReport): Step {
    const { outcome, result, target, connection } = report;
    if (result.kind === "failure") {
      run.lastVerdict = result.verdict;
      run.failures.push({ reason: result.verdict.reason, remainingMs: null, hintMs: result.verdict.retryHintMs });
    }
    if (result.kind === "success" && run.ctx.movesSession) run.session?.served(target.provider.id, connection.id, target.model);
    const decision = deps.features.afterAttempt(run.ctx, report);
    if (decision?.kind === "shed") return (run.client.fail(decision.error), "answered");
    if (decision?.kind === "resume") return "next";
    if (decision?.kind === "retry_same") {
      run.retrySameMs = decision.waitMs;
      return "next";
    }
    return settleAttempt(run.client, outcome, result, run.policy);
  }

  /** The request log notes the cooldown a failure left, as the store now holds it. */
  function freshConnection(c: Connection): Connection {
    return deps.connections.listByProvider(c.provider).find((x) => x.id === c.id) ?? c;
  }

  return { handle };
}

/** R21.1: a login's account answered 401 or 403: the login itself was refused. */
function loginRefused(connection: Connection, outcome: AttemptOutcome): outcome is Extract<AttemptOutcome, { kind: "upstream_error" }> {
  return connection.accountOf !== null && outcome.kind === "upstream_error" && (outcome.status === 401 || outcome.status === 403);
}

export type Pipeline = ReturnType<typeof createPipeline>;
