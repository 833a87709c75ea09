// Stage "count" (R16.5, R17.1, R22.1): a token count is answered by an upstream of the client's own
// format that serves the model and may be called now (breaker, cooldowns, terminal states, leases
// and admission as for a generation), else by a documented estimate — counting must not fail because
// one upstream is down. It runs inside the pipeline, so it has the request's edge, session, class,
// log row and metrics like every other request; a count is no proof of health, so it never moves
// a breaker, a cooldown or a session pin.
import type { ClientLogin } from "../context/clientLogin.js";
import type { Connection } from "../../../shared/types.js";
import type { IncomingHttpHeaders } from "node:http";
import type { CountShape } from "../formats/adapter.js";
import { clientHalf, upstreamFormatOf } from "../formats/index.js";
import type { ClientResponse } from "../context/clientResponse.js";
import type { Target } from "../context/resolve.js";
import type { ConnectionsPort } from "../context/ports.js";
import type { RequestSession } from "../context/requestSession.js";
import { AUXILIARY_CALL_CEILING_MS, type CallUpstream } from "../context/upstream/call.js";
import { ClientBoundTarget, type GatewayAdmission } from "./admit.js";
import type { RequestPlan } from "./plan.js";
import type { RecordingEngine } from "./record.js";
import { candidatesFor, SelectionLog, type SelectionDeps, type SelectionEngine } from "./select.js";

/** A count answer is a few bytes; anything larger is not one. */
const COUNT_BODY_LIMIT_BYTES = 64 * 1024;

export interface CountDeps extends SelectionDeps {
  engine: SelectionEngine & Pick<RecordingEngine, "recordNeutral">;
  connections: ConnectionsPort;
  admission: GatewayAdmission;
  callUpstream: CallUpstream;
}

export interface CountRequest {
  shape: CountShape;
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  allowed: Set<string> | null;
  session: RequestSession | null;
  /** R21.1: the client's own login (a client-login connection counts on it). */
  login?: ClientLogin | null;
}

/** Answers the count: exact from the first upstream that counts it, else the estimate. */
export async function answerCount(deps: CountDeps, client: ClientResponse, plan: RequestPlan, request: CountRequest): Promise<void> {
  const selection = new SelectionLog();
  selection.login = request.login ?? null;
  client.record.planned(plan.combo, { selection, waits: { count: 0, waitedMs: 0 } });
  for (const target of plan.targets) {
    if (upstreamFormatOf(target.provider, client.format) !== client.format) continue;
    for (const { connection, probe } of candidatesFor(target, deps, selection, request.allowed, request.session)) {
      if (probe) {
        // Counting is no proof of health: the HALF_OPEN probe is left to a real request.
        deps.engine.recordNeutral({ provider: target.provider, connection, model: target.model, probe });
        break;
      }
      const text = await countOn(deps, client, target, connection, request);
      if (client.gone) return client.clientClosed();
      if (text === null) continue;
      client.answeredBy(connection.id, []);
      return client.sendJson(text);
    }
  }
  client.addHeader("X-Switchyard-Token-Count", "estimate");
  client.sendJson(request.shape.estimateBody(clientHalf(client.format).estimateInputTokens(request.body)));
}

/** One connection's exact count, through admission like any attempt; null when it could not count. */
async function countOn(deps: CountDeps, client: ClientResponse, target: Target, connection: Connection, request: CountRequest): Promise<string | null> {
  const connectionId = connection.id;
  const decided = deps.admission.admit(new ClientBoundTarget(target.provider, connection, target.model, client, false, false, client.record.trafficClass));
  const admission = decided instanceof Promise ? await decided : decided;
  if (admission.admitted !== true) return null;
  client.attemptStarted();
  const startedAt = deps.clock.now();
  let status: number | null = null;
  let text: string | null = null;
  let headers: Record<string, string | string[] | undefined> | null = null;
  try {
    const call = await deps.callUpstream({
      provider: target.provider,
      upstreamFormat: client.format,
      clientFormat: client.format,
      secret: connection.accountOf === null ? deps.connections.secret(connectionId) : null,
      login: connection.accountOf === null ? null : (request.login ?? null),
      clientHeaders: request.headers,
      path: request.shape.upstreamPath(target.model),
      body: request.shape.upstreamBody(request.body, target.model),
      ceilingMs: AUXILIARY_CALL_CEILING_MS,
      signal: client.departure,
    });
    status = call.response.status;
    headers = call.response.headers;
    const body = await call.bodyText(COUNT_BODY_LIMIT_BYTES);
    if (status === 200) text = body;
  } catch {
    // An upstream that cannot count now leaves the count to the next one, or to the estimate.
  } finally {
    admission.release({ headers, verdict: null });
  }
  client.record.attempted({
    provider: target.provider.id,
    connectionId,
    model: target.model,
    status,
    verdict: text === null ? "count_unavailable" : null,
    latencyMs: deps.clock.now() - startedAt,
  });
  return text;
}
