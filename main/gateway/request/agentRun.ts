// The pipeline's coding-agent stage (R20.1–R20.4), kept apart from the failover loop it joins:
// on arrival the request is classed, its answer's reasoning artifacts are tapped, and the
// connection holding its session's warm cache is noted; when it ends, the warm cache moves with
// the answer; after a rate-limited attempt on the warm connection, the pipeline may wait for it.
import type { IncomingHttpHeaders } from "node:http";
import type { TrafficClass, WireFormat } from "../../../shared/types.js";
import type { Clock, Verdict } from "../../engine/ports.js";
import type { ReasoningProvenance } from "../provenance/book.js";
import { artifactTap } from "../provenance/tap.js";
import type { ClientResponse } from "../response/clientResponse.js";
import type { Target } from "../resolve.js";
import { waitUnlessAborted } from "../routing/comboWaitTimer.js";
import type { RequestSession } from "../sessions/routing.js";
import type { WarmCaches } from "../sessions/warmCaches.js";
import { ERROR_CODES } from "../../../shared/errorCodes.js";
import { decideShed, decideWaitOrSwitch, type CodingAgentSettings } from "../../engine/agentPolicy.js";
import type { FinalError } from "../outcome.js";
import type { AttemptResult } from "./record.js";
import { blockedForMs, sameConnectionAgain, type Candidate, type SelectionDeps } from "./select.js";

/** What the classifier reads of a request (R20.3). */
export interface ClassifiedCall {
  format: WireFormat;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  clientKind: NonNullable<ClientResponse["record"]["clientKind"]>;
}

export interface AgentDeps {
  clock: Clock;
  codingAgents?: () => CodingAgentSettings;
  /** R20.3: the request's class from its client's signals (absent: every request is main). */
  classify?: (call: ClassifiedCall) => TrafficClass;
  provenance?: ReasoningProvenance;
  warmCaches?: WarmCaches;
}

/**
 * R20.3: background work carries the session's id (Claude Code's small-fast calls do) but not its
 * conversation: it neither moves the session's pin nor its warm cache, or one title request served
 * elsewhere would take the next main turn away from the account that holds its cache.
 */
export function movesSession(deps: Pick<AgentDeps, "codingAgents">, trafficClass: TrafficClass): boolean {
  // A count is answered by whichever upstream counts (or an estimate): it never served the conversation.
  if (trafficClass === "count") return false;
  return trafficClass !== "background" || deps.codingAgents?.().trafficClasses.enabled === false;
}

/** R20.1–R20.3 on arrival: the class, the artifact tap and the warm connection; returns the class. */
export function startAgentRequest(deps: AgentDeps, call: Omit<ClassifiedCall, "clientKind">, client: ClientResponse, sessionKey: string | null): TrafficClass {
  const { record } = client;
  const trafficClass = deps.classify?.({ ...call, clientKind: record.clientKind ?? "other" }) ?? "main";
  record.classed(trafficClass);
  const settings = deps.codingAgents?.();
  if (deps.provenance && settings?.reasoningProvenance.enabled !== false) {
    client.artifacts = artifactTap(call.format, deps.provenance, () => client.answeringConnectionId);
  }
  const warm = deps.warmCaches;
  if (warm && sessionKey !== null && movesSession(deps, trafficClass)) {
    record.warmCacheOn(warm.holder(sessionKey, deps.clock.now()));
    client.finished = (entry) => warm.answered(sessionKey, entry, deps.clock.now());
  }
  return trafficClass;
}

/** R20.3: the refusal of a background request that met a rate limit, or null when it goes on as any request. */
export function shedBackground(trafficClass: TrafficClass, settings: CodingAgentSettings, verdict: Verdict): FinalError | null {
  const shed = decideShed(trafficClass, settings, verdict);
  if (!shed) return null;
  return {
    status: ERROR_CODES.traffic_shed.status,
    code: "traffic_shed",
    message: "A background request met a rate limit and was not moved to another connection, so the main turn keeps the quota; retry later",
    retryAfterMs: shed.retryAfterMs,
    noRetry: false,
  };
}

/** The failed attempt the pipeline may wait after. */
export interface WarmRetry {
  client: ClientResponse;
  target: Target;
  connectionId: string;
  result: AttemptResult | null;
  /** What this request already waited for its warm cache. */
  waited: { ms: number };
  /** The key's connections and the session, checked again before the retry (R7.2). */
  allowed: Set<string> | null;
  session: RequestSession | null;
}

/**
 * R20.4: after a rate-limited attempt on the session's warm connection, waits for it when that is
 * within waitOrSwitch.maxWaitMs (the heartbeat keeps a streaming client alive) and returns it as
 * the next candidate; null to move on as usual. Every decision goes into the timeline.
 */
export async function waitForWarmCache(deps: AgentDeps & SelectionDeps, retry: WarmRetry): Promise<Candidate | null> {
  const settings = deps.codingAgents?.();
  const { client, target, connectionId, result } = retry;
  // R22.2: keep-alives are not output; only content the client received rules a wait out.
  if (!settings || result?.kind !== "failure" || client.outputStarted) return null;
  const decision = decideWaitOrSwitch(settings, {
    trafficClass: client.record.trafficClass,
    verdict: result.verdict,
    connectionId,
    warmConnectionId: client.record.warmConnectionId,
    blockedMs: blockedForMs(target, deps, connectionId),
    waitedMs: retry.waited.ms,
  });
  if (!decision) return null;
  client.record.decided(decision.record);
  if (decision.record.choice === "switch") return null;
  if (decision.waitMs > 0 && !(await waitUnlessAborted(decision.waitMs, client.signal))) return null;
  retry.waited.ms += decision.waitMs;
  return sameConnectionAgain(target, deps, connectionId, retry);
}
