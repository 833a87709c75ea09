// Traffic classes (R20.3) as a feature: on arrival the request is classed from its client's own
// signals; background work neither holds on for a combo's recovery nor moves the session, and when
// it meets a rate limit it is shed rather than failed over onto the quota the main turn needs next.
import { ERROR_CODES } from "../../../shared/errorCodes.js";
import type { TrafficClass } from "../../../shared/types.js";
import { decideShed, type CodingAgentSettings } from "../../engine/agentPolicy.js";
import type { Verdict } from "../../engine/ports.js";
import type { FinalError } from "../context/outcome.js";
import type { TrafficInput } from "./trafficClass/rules.js";
import type { RequestFeature } from "./feature.js";

export interface TrafficClassDeps {
  settings: () => CodingAgentSettings;
  classify: (call: TrafficInput) => TrafficClass;
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

export function trafficClassesFeature(deps: TrafficClassDeps): RequestFeature {
  return {
    name: "traffic-classes",
    arrive(ctx) {
      const trafficClass = deps.classify({ format: ctx.format, path: ctx.path, headers: ctx.headers, body: ctx.body, clientKind: ctx.clientKind });
      ctx.trafficClass = trafficClass;
      const on = deps.settings().trafficClasses.enabled;
      ctx.holdsForRecovery = !(trafficClass === "background" && on);
      // A count never served the conversation; background work carries the session's id but not its turn.
      ctx.movesSession = trafficClass !== "count" && (trafficClass !== "background" || !on);
      return null;
    },
    afterAttempt(ctx, { result }) {
      if (result.kind !== "failure") return null;
      // R22.2: a keep-alive is not output; a shed after one ends the stream with an error event.
      const shed = ctx.client.outputStarted ? null : shedBackground(ctx.trafficClass, deps.settings(), result.verdict);
      return shed && { kind: "shed", error: shed };
    },
  };
}
