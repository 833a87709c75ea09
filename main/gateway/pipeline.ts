// One client request, end to end (DESIGN.md "One request"): plan the targets, then for each
// candidate connection admit, attempt, classify and record, and answer or go on; when nothing
// answered, the terminal verdict. Each stage is its own module under request/.
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import { ERROR_CODES } from "../../shared/errorCodes.js";
import type { Connection, SwitchyardEvent, TrafficClass, WireFormat } from "../../shared/types.js";
import type { CountShape, StreamFraming } from "./formats/adapter.js";
import { decideComboWait, type Blocker, type ComboWaitSettings } from "../engine/comboWait.js";
import type { AttemptContext, Clock, Verdict } from "../engine/ports.js";
import type { ToolLimits } from "../engine/toolLimits.js";
import { StreamTranscript } from "./continuation/midstream.js";
import type { EgressLock } from "./egress/siblingLock.js";
import type { UsageWallDeps } from "./usageWall/lane.js";
import { clientHalf, isStreamRequest } from "./formats/index.js";
import { describeError, type BudgetPort, type CatalogPort, type ConnectionsPort, type ErrorLog, type RequestLogSink } from "./ports.js";
import { ClientBoundTarget, type Admission, type GatewayAdmission, type PassedOver } from "./request/admit.js";
import { runAttempt, type AttemptOutcome, type ClientRequest } from "./request/attempt.js";
import { answerCount } from "./request/count.js";
import { tryEmergencyFallback, type EmergencyFallbackSetting } from "./request/fallback.js";
import { earliestRecoveryMs, keyBudgetExceeded, settleAttempt, terminalError, type RecoveryPolicy, type Step } from "./request/finish.js";
import { heartbeatEveryMs, keepAliveEvents } from "./request/liveness.js";
import { planRequest, type RequestPlan } from "./request/plan.js";
import { recordAttempt, upstreamHeadersOf, type AttemptResult, type RecordingEngine } from "./request/record.js";
import { noteForRouting } from "./request/routingNotes.js";
import { candidatesFor, SelectionLog, type Candidate, type SelectionEngine } from "./request/select.js";
import type { UsageMeter } from "./request/requestRecord.js";
import { arrivalFields } from "./request/trace.js";
import { learnToolLimit, skipTargetsOverToolLimit } from "./request/toolLimitGate.js";
import { abandonTimedOutTarget, targetDeadlineFor } from "./request/targetDeadline.js";
import type { QuotaCutoffPort } from "./request/quotaCutoff.js";
import type { ReasoningProvenance } from "./provenance/book.js";
import type { CodingAgentSettings } from "../engine/agentPolicy.js";
import { movesSession, shedBackground, startAgentRequest, waitForWarmCache, type AgentDeps } from "./request/agentRun.js";
import type { WarmCaches } from "./sessions/warmCaches.js";
import type { PreparedTurn } from "./responses/turn.js";
import type { RequestSession } from "./sessions/routing.js";
import type { Target } from "./resolve.js";
import { ClientResponse } from "./response/clientResponse.js";
import type { ComboRouter } from "./routing/comboRouter.js";
import { waitUnlessAborted } from "./routing/comboWaitTimer.js";
import type { LearnedQuotas } from "./routing/learnedQuota.js";
import type { QuotaObserver } from "./usage/quotaHeaders.js";
import type { StreamBudgets } from "./streaming/relay.js";
import type { CallUpstream } from "./upstream/call.js";

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
  /** R11.6: the emergency fallback in force (absent = off). */
  emergencyFallback?: () => EmergencyFallbackSetting;
  /** R11.7: tool limits learned from upstream refusals (absent = none learned). */
  toolLimits?: ToolLimits;
  /** Combo routing (R11.1, R11.4); absent, combos keep their stored order and never wait. */
  routing?: PipelineRouting;
  /** R12.5: cools the IP siblings of an egress-bucketed 429 (absent = no sibling lock). */
  egressLock?: EgressLock;
  /** R12.6: the Claude usage-wall handling of opted-in connections. */
  usageWall?: UsageWallDeps;
  /** The promptLogging setting (absent = off): the request log keeps prompt text only when true. */
  promptLogging?: () => boolean;
  /** R20.1, R16.7: which connection issued each reasoning artifact. */
  provenance?: ReasoningProvenance;
  /** R20.1–R20.4: the coding-agent settings (absent: classes, waits and provenance as their defaults say, but no class without `classify`). */
  codingAgents?: () => CodingAgentSettings;
  /** R20.3: the request's class from its client's signals (absent: every request is main). */
  classify?: AgentDeps["classify"];
  /** R20.2: which connection holds each session's warm cache (absent: none known). */
  warmCaches?: WarmCaches;
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

export interface ClientCall {
  format: WireFormat;
  body: Record<string, unknown>;
  /** The JSON text `body` was parsed from, when the route read it itself. */
  bodyText?: string;
  headers: IncomingHttpHeaders;
  res: ServerResponse;
  /** Given by the client routes, which already sent it in X-Switchyard-Request-Id. */
  requestId: string;
  /** R1.7: a client key limited to these connections (null = any). */
  allowedConnections?: Set<string> | null;
  /** The verified client key's id (usage by key, key budgets; R18). */
  apiKeyId?: string | null;
  /** R7: the session pin and lease view of this request (null = no session routing). */
  session?: RequestSession | null;
  /** A Responses turn's headers and the observer that keeps what it served (R16.4). */
  turn?: PreparedTurn;
  /** The answer in another shape than the turn that ran (R16.5 compaction); JSON answers only. */
  reshape?: (answer: Record<string, unknown>) => Record<string, unknown>;
  /** How a stream is framed for this client (default SSE; Gemini without alt=sse: a JSON array). */
  framing?: StreamFraming;
  /** The request's path (R20.3 reads it: a compaction or count route is its own class). */
  path?: string;
  /** A token count of the body rather than an answer (R16.5, R22.1): the count endpoint of the client's format. */
  count?: CountShape;
  /** The model when the path names it and the body does not (Gemini's `:countTokens`). */
  model?: string;
}

/** The state of one request while its candidates are tried. */
interface RequestRun {
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
  /** R13.3: the text this stream sent, when mid-stream continuation is on. */
  transcript: StreamTranscript | null;
  /** A combo target ran out of its config.targetTimeoutMs: the pass goes on with the next target. */
  abandonTarget?: boolean;
  /** R20.3 */
  trafficClass: TrafficClass;
  /** The latest attempt's result (R20.4 decides on it); null before one was recorded. */
  lastResult: AttemptResult | null;
  /** R20.4: what the request waited for its warm connection so far. */
  warmWaited: { ms: number };
  /** The verified client key's id (R18.4: its budget is checked again after a wait). */
  apiKeyId: string | null;
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
    try {
      await serve(call, client, model, stream);
    } catch (err) {
      deps.logger?.error({ requestId: call.requestId, err: describeError(err) }, "internal error while handling a request");
      if (!client.settled)
        client.fail({ status: ERROR_CODES.internal_error.status, code: "internal_error", message: "Switchyard failed to handle the request", retryAfterMs: null, noRetry: false });
    }
  }

  async function serve(call: ClientCall, client: ClientResponse, model: string, stream: boolean): Promise<void> {
    if (call.reshape) client.reshape = call.reshape;
    if (call.turn) {
      for (const [name, value] of Object.entries(call.turn.headers)) client.addHeader(name, value);
      client.observer = call.turn.observe(client);
    }
    const { record } = client;
    record.arrived(arrivalFields(call.headers, () => clientHalf(call.format).promptText(call.body), deps.promptLogging?.() ?? false));
    record.keyed(call.apiKeyId ?? null);
    const trafficClass = startAgentRequest(deps, { format: call.format, path: call.path ?? "", headers: call.headers, body: call.body }, client, call.session?.key ?? null);
    const overBudgetMs = deps.budgets?.keyOverBudgetMs(call.apiKeyId ?? null) ?? null;
    if (overBudgetMs !== null) return client.fail(keyBudgetExceeded(overBudgetMs));
    const routing = deps.routing && {
      router: deps.routing.router,
      format: call.format,
      body: call.body,
      now: deps.clock.now(),
      random: deps.routing.random,
      sessionKey: call.session?.key ?? null,
      pin: call.session?.pin() ?? null,
    };
    // A count takes the stored order: it must not advance a combo's rotation or its session target.
    const plan = planRequest(model, deps.catalog, call.count ? undefined : routing);
    if (!plan) {
      client.fail({ status: ERROR_CODES.model_not_found.status, code: "model_not_found", message: `Unknown model: ${model || "(none)"}`, retryAfterMs: null, noRetry: true });
      return;
    }
    if (call.count) {
      const count = { shape: call.count, body: call.body, headers: call.headers, allowed: call.allowedConnections ?? null, session: call.session ?? null };
      return answerCount(deps, client, plan, count);
    }
    const budgets = deps.streamBudgets();
    const run: RequestRun = {
      request: { format: call.format, body: call.body, bodyText: call.bodyText, headers: call.headers, model },
      client,
      plan,
      selection: new SelectionLog(),
      lastVerdict: null,
      failures: [],
      waits: { count: 0, waitedMs: 0 },
      policy: { recoveryEnabled: budgets.recoveryEnabled, earlyEofRetries: { spent: 0 } },
      allowed: call.allowedConnections ?? null,
      session: call.session ?? null,
      transcript: stream ? StreamTranscript.for(call.format, budgets.midstreamEnabled === true) : null,
      trafficClass,
      lastResult: null,
      warmWaited: { ms: 0 },
      apiKeyId: call.apiKeyId ?? null,
    };
    record.planned(plan.combo, run);
    skipTargetsOverToolLimit(run, deps.toolLimits);
    if (stream) client.startHeartbeat(heartbeatEveryMs(call.format, budgets.heartbeatMs), keepAliveEvents(call.format, record.clientKind));
    try {
      await tryTargets(run);
    } finally {
      client.stopHeartbeat();
    }
  }

  async function tryTargets(run: RequestRun): Promise<void> {
    for (;;) {
      if ((await walkTargets(run)) === "answered") return;
      const delayMs = comboWaitMs(run);
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
        if ((await tryWarmConnection(run, target, candidate)) === "answered") return "answered";
        if (run.client.gone) return closed(run);
        if (run.abandonTarget) break;
      }
      run.abandonTarget = false;
      if (run.client.gone) return closed(run);
    }
    return "next";
  }

  /** The candidate, and while R20.4 says to wait for it (the session's warm connection at a short 429), the same connection again. */
  async function tryWarmConnection(run: RequestRun, target: Target, candidate: Candidate): Promise<Step> {
    let step = await tryCandidate(run, target, candidate);
    while (step === "next" && !run.client.gone && !run.abandonTarget) {
      const retry = {
        client: run.client,
        target,
        connectionId: candidate.connection.id,
        result: run.lastResult,
        waited: run.warmWaited,
        allowed: run.allowed,
        session: run.session,
      };
      const waitedBefore = run.warmWaited.ms;
      const again = await waitForWarmCache(deps, retry);
      if (run.warmWaited.ms > waitedBefore) {
        // R18.4: the key may have run out of budget while the request waited (other requests spent it).
        const overBudgetMs = deps.budgets?.keyOverBudgetMs(run.apiKeyId) ?? null;
        if (overBudgetMs !== null) return (run.client.fail(keyBudgetExceeded(overBudgetMs)), "answered");
      }
      if (!again) break;
      step = await tryCandidate(run, target, again);
    }
    return step;
  }

  function closed(run: RequestRun): Step {
    run.client.clientClosed();
    return "answered";
  }

  /** R11.4: how long to wait before dispatching the combo again, or null to give the verdict now. */
  function comboWaitMs(run: RequestRun): number | null {
    if (!deps.routing || !run.plan.comboDef) return null;
    // R20.3: background work does not hold on for a combo's recovery; it is shed first.
    if (run.trafficClass === "background" && deps.codingAgents?.().trafficClasses.enabled) return null;
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
    if (run.transcript?.resuming && !run.transcript.canContinueOn(target)) return "next";
    run.lastResult = null;
    const ctx: AttemptContext = { provider: target.provider, connection, model: target.model, probe };
    const quotaShare = run.plan.comboDef?.config.quotaShare === true;
    let admission: Admission | PassedOver;
    try {
      // The signal is made only if admission waits for it; most admissions decide at once.
      const decided = deps.admission.admit(new ClientBoundTarget(target.provider, connection, target.model, run.client, quotaShare, probe, run.trafficClass));
      admission = decided instanceof Promise ? await decided : decided;
    } catch (err) {
      // A stage that broke inside Switchyard must not hold the HALF_OPEN probe slot.
      deps.engine.recordNeutral(ctx);
      throw err;
    }
    if (admission.admitted === "passed_over") {
      deps.engine.recordNeutral(ctx);
      run.selection.exclusions.push(admission.skip);
      run.abandonTarget = true;
      return "next";
    }
    if (!admission.admitted) {
      // A local refusal (R8, R9) ends the request and never blames the provider.
      deps.engine.recordNeutral(ctx);
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
    let outcome: AttemptOutcome;
    try {
      outcome = await runAttempt(deps, run.request, run.client, target, connection, run.transcript, admission.execution, deadline ?? run.client.departure);
    } catch (err) {
      deps.engine.recordNeutral(ctx);
      admission.release();
      throw err;
    } finally {
      deadline?.end();
    }
    if (deadline?.expired && !run.client.gone) {
      admission.release();
      abandonTimedOutTarget(deps, run, { ctx, target, combo, startedAt, deadline });
      return "next";
    }
    if (admission.execution?.expired && !run.client.gone) {
      // R9.1: the job expired; a local limit, not the provider's failure.
      deps.engine.recordNeutral(ctx);
      admission.release();
      run.client.record.attempted({
        provider: ctx.provider.id,
        connectionId: connection.id,
        model: ctx.model,
        status: null,
        verdict: admission.execution.error.code,
        latencyMs: deps.clock.now() - startedAt,
      });
      run.client.fail(admission.execution.error);
      return "answered";
    }
    const result = recordAttempt(deps.engine, deps.clock, ctx, run.client, outcome, startedAt, { egressLock: deps.egressLock, fresh: freshConnection });
    admission.release({ headers: upstreamHeadersOf(outcome), verdict: result.kind === "failure" ? result.verdict : null });
    noteForRouting(deps, { combo, ctx, target, outcome, result, startedAt, sessionKey: run.session?.key ?? null });
    return afterAttempt(run, target, connection, outcome, result);
  }

  /** What a recorded attempt leaves the request: answered, or the next candidate. */
  function afterAttempt(run: RequestRun, target: Target, connection: Connection, outcome: AttemptOutcome, result: AttemptResult): Step {
    run.lastResult = result;
    if (result.kind === "failure") {
      const shed = deps.codingAgents && shedBackground(run.trafficClass, deps.codingAgents(), result.verdict);
      // R22.2: a keep-alive is not output; a shed after one ends the stream with an error event.
      if (shed && !run.client.outputStarted) {
        run.client.fail(shed);
        return "answered";
      }
      run.lastVerdict = result.verdict;
      run.failures.push({ reason: result.verdict.reason, remainingMs: null, hintMs: result.verdict.retryHintMs });
      learnToolLimit(deps.toolLimits, target, run, result.verdict);
    }
    if (result.kind === "success" && movesSession(deps, run.trafficClass)) run.session?.served(target.provider.id, connection.id, target.model);
    if (outcome.kind === "failed_after_output" && outcome.code !== "stream_continuation_refused" && run.transcript?.breakAfterOutput()) return "next";
    return settleAttempt(run.client, outcome, result, run.policy);
  }

  /** The request log notes the cooldown a failure left, as the store now holds it. */
  function freshConnection(c: Connection): Connection {
    return deps.connections.listByProvider(c.provider).find((x) => x.id === c.id) ?? c;
  }

  return { handle };
}

export type Pipeline = ReturnType<typeof createPipeline>;
