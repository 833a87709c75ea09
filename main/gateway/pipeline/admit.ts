// Stage "admit": after a connection is selected and before its attempt is sent: the concurrency
// gates (R8) and the request queues (R9), built in gateway/admission. It may wait, it may refuse
// with a typed error, and what it acquired is released exactly once, whatever the attempt did.
// `createAdmission()` admits at once (no limits), for pipelines built without admission control.
import type { Provider } from "../../../shared/types.js";
import type { BreakerSnapshot, Verdict } from "../../engine/ports.js";
import type { Exclusion, FinalError } from "../context/outcome.js";
import type { SharedState } from "../../engine/sharedState.js";
import type { ExecutionDeadline } from "../upstream/call.js";

import { ClientBoundTarget, type AdmissionRequest } from "../context/admissionRequest.js";
export { ClientBoundTarget, type AdmissionRequest };

/** What the attempt learned, handed back on release: upstream headers and verdict pace the limiter (R9.4). */
export interface AttemptObservation {
  headers: Record<string, string | string[] | undefined> | null;
  verdict: Verdict | null;
}

export type Admission =
  | {
      admitted: true;
      release: (observed?: AttemptObservation) => void;
      /**
       * The job expiration (R9.1): the attempt's upstream call enforces the deadline together with
       * its own and marks it `expired` when it was this one that stopped it; the attempt then ends
       * with `error`.
       */
      execution?: ExecutionDeadline & { readonly error: FinalError };
    }
  /** The request ends with this error in the client's format (e.g. a queue that is full). */
  | { admitted: false; refusal: FinalError };

/**
 * The target is passed over as selection passes over an open breaker: the exclusion is logged and
 * the request goes on to the next target (R19.2: the group's probe is another instance's).
 */
export interface PassedOver {
  admitted: "passed_over";
  skip: Exclusion;
}

export interface AdmissionStage {
  /** An admission decided at once comes back as it is; one that waits, as a promise. */
  admit(request: AdmissionRequest): Admission | Promise<Admission>;
}

/** What the pipeline asks: admission control, and in a group the HALF_OPEN probe's claim. */
export interface GatewayAdmission {
  admit(request: AdmissionRequest): Admission | PassedOver | Promise<Admission | PassedOver>;
}

/** Wraps a release so that calling it twice (a retry path, a finally) frees the slot only once. */
export function releaseOnce<A extends unknown[]>(release: (...args: A) => void): (...args: A) => void {
  let released = false;
  return (...args) => {
    if (released) return;
    released = true;
    release(...args);
  };
}

export function createAdmission(): AdmissionStage {
  return {
    admit() {
      return { admitted: true, release: releaseOnce(() => undefined) };
    },
  };
}

export interface GroupProbeDeps {
  shared: Pick<SharedState, "claim" | "release" | "instanceId">;
  engine: { breakerSnapshot(provider: Provider): BreakerSnapshot };
  /** The probe's own deadline (the breaker profile's reset timeout): the claim lapses with it. */
  probeTtlMs(provider: Provider): number;
}

/**
 * R19.2: a HALF_OPEN breaker lets one probe through in the whole group. The engine admitted this
 * request as its instance's probe; one claim in Redis (per probe, never per request) decides whether
 * it is the group's. Taken elsewhere: the target is passed over as circuit_open, as an open breaker
 * is at selection (the caller frees the local probe); Redis unreachable: decided locally (R19.3).
 */
export function withGroupProbe(stage: AdmissionStage, deps: GroupProbeDeps): GatewayAdmission {
  async function admitProbe(request: AdmissionRequest): Promise<Admission | PassedOver> {
    const breaker = deps.engine.breakerSnapshot(request.provider);
    if (breaker.state !== "HALF_OPEN") return stage.admit(request);
    const ttlMs = deps.probeTtlMs(request.provider);
    const key = `probe:${request.provider.id}:${breaker.openedAt}`;
    const claim = await deps.shared.claim("breaker", key, deps.shared.instanceId, ttlMs);
    if (claim !== "taken") {
      const admission = await stage.admit(request);
      // Refused by a local gate, the probe is not sent: another instance may send it.
      if (!admission.admitted && claim === "held") void deps.shared.release("breaker", key, deps.shared.instanceId);
      return admission;
    }
    return { admitted: "passed_over", skip: { target: `${request.provider.id}/${request.model}`, reason: "circuit_open", remainingMs: ttlMs, provider: request.provider.id } };
  }
  return { admit: (request) => (request.probe ? admitProbe(request) : stage.admit(request)) };
}
