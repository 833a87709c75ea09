// One client request, end to end (DESIGN.md "One request"): plan the targets, then for each
// candidate connection admit, attempt, classify and record, and answer or go on; when nothing
// answered, the terminal verdict. Each stage is its own module under request/.
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import type { SwitchyardEvent, WireFormat } from "../../shared/types.js";
import type { AttemptContext, Clock, Verdict } from "../engine/ports.js";
import type { ToolLimits } from "../engine/toolLimits.js";
import { isStreamRequest } from "./formats/index.js";
import type { CatalogPort, ConnectionsPort, RequestLogSink } from "./ports.js";
import type { AdmissionStage } from "./request/admit.js";
import { runAttempt, type ClientRequest } from "./request/attempt.js";
import { tryEmergencyFallback, type EmergencyFallbackSetting } from "./request/fallback.js";
import { settleAttempt, terminalError, type RecoveryPolicy, type Step } from "./request/finish.js";
import { planRequest, type RequestPlan } from "./request/plan.js";
import { recordAttempt, type RecordingEngine } from "./request/record.js";
import { candidatesFor, SelectionLog, type Candidate, type SelectionEngine } from "./request/select.js";
import { learnToolLimit, skipTargetsOverToolLimit } from "./request/toolLimitGate.js";
import type { RequestSession } from "./sessions/routing.js";
import type { Target } from "./resolve.js";
import { ClientResponse } from "./response/clientResponse.js";
import type { StreamBudgets } from "./streaming/relay.js";
import type { CallUpstream } from "./upstream/call.js";

export interface PipelineBudgets extends StreamBudgets {
  /** R13.2: fail over on a stream failure before any client-visible content. */
  recoveryEnabled: boolean;
  /** Keep-alive frames to a waiting streaming client (Anthropic `ping`, SSE comments for OpenAI). */
  heartbeatMs: number;
}

export interface PipelineDeps {
  catalog: CatalogPort;
  connections: ConnectionsPort;
  requestLog: RequestLogSink;
  engine: SelectionEngine & RecordingEngine;
  admission: AdmissionStage;
  callUpstream: CallUpstream;
  clock: Clock;
  streamBudgets: () => PipelineBudgets;
  /** Live events for the dashboard (R15.2): one `request` event per finished request. */
  emit: (event: SwitchyardEvent) => void;
  /** R11.6: the emergency fallback in force (absent = off). */
  emergencyFallback?: () => EmergencyFallbackSetting;
  /** R11.7: tool limits learned from upstream refusals (absent = none learned). */
  toolLimits?: ToolLimits;
}

export interface ClientCall {
  format: WireFormat;
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  res: ServerResponse;
  /** Given by the client routes, which already sent it in X-Switchyard-Request-Id. */
  requestId: string;
  /** R1.7: a client key limited to these connections (null = any). */
  allowedConnections?: Set<string> | null;
  /** R7: the session pin and lease view of this request (null = no session routing). */
  session?: RequestSession | null;
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
}

export function createPipeline(deps: PipelineDeps) {
  async function handle(call: ClientCall): Promise<void> {
    const model = typeof call.body.model === "string" ? call.body.model : "";
    const stream = isStreamRequest(call.format, call.body);
    const client = new ClientResponse(call.res, {
      format: call.format, requestId: call.requestId, model, stream, clock: deps.clock, log: deps.requestLog, emit: deps.emit,
    });
    const plan = planRequest(model, deps.catalog);
    if (!plan) {
      client.fail({ status: 404, code: "model_not_found", message: `Unknown model: ${model || "(none)"}`, retryAfterMs: null, noRetry: true });
      return;
    }
    client.combo = plan.combo;
    const budgets = deps.streamBudgets();
    const run: RequestRun = {
      request: { format: call.format, body: call.body, headers: call.headers, model },
      client, plan, selection: new SelectionLog(), lastVerdict: null,
      policy: { recoveryEnabled: budgets.recoveryEnabled, earlyEofRetries: { spent: 0 } },
      allowed: call.allowedConnections ?? null,
      session: call.session ?? null,
    };
    skipTargetsOverToolLimit(run, deps.toolLimits);
    if (stream) client.startHeartbeat(budgets.heartbeatMs);
    try {
      await tryTargets(run);
    } finally {
      client.stopHeartbeat();
    }
  }

  async function tryTargets(run: RequestRun): Promise<void> {
    for (const target of run.plan.targets) {
      for (const candidate of candidatesFor(target, deps, run.selection, run.allowed, run.session)) {
        if ((await tryCandidate(run, target, candidate)) === "answered") return;
        if (run.client.gone) return run.client.clientClosed();
      }
      if (run.client.gone) return run.client.clientClosed();
    }
    if ((await tryEmergencyFallback(run, deps, tryCandidate)) === "answered") return;
    run.client.fail(run.session?.capacityRefusal() ?? terminalError(deps, run.lastVerdict, run.selection, run.plan.targets.length, run.plan.combo !== null));
  }

  async function tryCandidate(run: RequestRun, target: Target, { connection, probe }: Candidate): Promise<Step> {
    const ctx: AttemptContext = { provider: target.provider, connection, model: target.model, probe };
    const admission = await neutralOnThrow(ctx, () =>
      deps.admission.admit({ provider: target.provider, connection, model: target.model, signal: run.client.signal }),
    );
    if (!admission.admitted) {
      deps.engine.recordNeutral(ctx);
      run.client.fail(admission.refusal);
      return "answered";
    }
    const startedAt = deps.clock.now();
    run.client.attemptStarted();
    const outcome = await neutralOnThrow(ctx, () => runAttempt(deps, run.request, run.client, target, connection)).finally(admission.release);
    const result = recordAttempt(deps.engine, deps.clock, ctx, run.client, outcome, startedAt);
    if (result.kind === "failure") run.lastVerdict = result.verdict;
    if (result.kind === "failure") learnToolLimit(deps.toolLimits, target, run, result.verdict);
    if (result.kind === "success") run.session?.served(target.provider.id, connection.id);
    return settleAttempt(run.client, outcome, result, run.policy);
  }

  /** A stage that broke inside Switchyard must not hold the HALF_OPEN probe slot. */
  async function neutralOnThrow<T>(ctx: AttemptContext, stage: () => Promise<T>): Promise<T> {
    try {
      return await stage();
    } catch (err) {
      deps.engine.recordNeutral(ctx);
      throw err;
    }
  }

  return { handle };
}

export type Pipeline = ReturnType<typeof createPipeline>;
