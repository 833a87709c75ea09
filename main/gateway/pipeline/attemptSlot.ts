// One attempt slot (DESIGN.md "One attempt slot"): what an attempt holds while it runs, its
// provider's HALF_OPEN probe (when selection admitted it as the probe) and its admission permits
// (R8, R9), acquired here and released here, once, whichever way the attempt ends: recorded,
// refused, expired, thrown, or never sent. Nothing else releases them by hand.
import type { AttemptContext } from "../../engine/ports.js";
import type { Admission, AttemptObservation, GatewayAdmission, PassedOver } from "./admit.js";
import { ClientBoundTarget } from "./admit.js";
import type { ClientResponse } from "../context/clientResponse.js";
import type { TrafficClass } from "../../../shared/types.js";

export interface SlotEngine {
  /** Frees the HALF_OPEN probe for a real attempt (a no-op for any other attempt). */
  recordNeutral(ctx: AttemptContext): void;
}

/** An admitted attempt's hold; `release` is idempotent, the slot's owner calls it in a finally. */
export class AttemptSlot {
  private released = false;
  private recorded = false;
  private observation: AttemptObservation | undefined = undefined;

  constructor(
    private readonly engine: SlotEngine,
    readonly attempt: AttemptContext,
    readonly admission: Extract<Admission, { admitted: true }>,
  ) {}

  /** What the attempt learned (headers, verdict), handed to admission on release (R9.4). */
  observed(observed: AttemptObservation): void {
    this.observation = observed;
  }

  /** The engine recorded the attempt (success or failure): the probe, if it was one, is spent. */
  engineRecorded(observed: AttemptObservation): void {
    this.recorded = true;
    this.observation = observed;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    if (!this.recorded) this.engine.recordNeutral(this.attempt);
    this.admission.release(this.observation);
  }
}

/** What acquiring a slot came to: the slot, or why there is none (the probe is freed already). */
export type SlotOutcome = { slot: AttemptSlot } | { refused: Extract<Admission, { admitted: false }> } | { passedOver: PassedOver };

export interface SlotRequest {
  attempt: AttemptContext;
  client: ClientResponse;
  quotaShare: boolean;
  trafficClass: TrafficClass;
}

/**
 * Admits the attempt (it may wait in a queue); without a slot, the probe is freed before this
 * returns. An admission decided at once comes back as it is, with no promise (the usual case).
 */
export function acquireSlot(engine: SlotEngine, admission: GatewayAdmission, request: SlotRequest): SlotOutcome | Promise<SlotOutcome> {
  const { attempt } = request;
  let pending: Admission | PassedOver | Promise<Admission | PassedOver>;
  try {
    pending = admission.admit(new ClientBoundTarget(attempt.provider, attempt.connection, attempt.model, request.client, request.quotaShare, attempt.probe, request.trafficClass));
  } catch (err) {
    // A stage that broke inside Switchyard must not hold the HALF_OPEN probe slot.
    engine.recordNeutral(attempt);
    throw err;
  }
  if (!(pending instanceof Promise)) return slotOf(engine, attempt, pending);
  return pending.then(
    (decided) => slotOf(engine, attempt, decided),
    (err: unknown) => {
      engine.recordNeutral(attempt);
      throw err;
    },
  );
}

function slotOf(engine: SlotEngine, attempt: AttemptContext, decided: Admission | PassedOver): SlotOutcome {
  if (decided.admitted === true) return { slot: new AttemptSlot(engine, attempt, decided) };
  engine.recordNeutral(attempt);
  return decided.admitted === "passed_over" ? { passedOver: decided } : { refused: decided };
}
