// An attempt's connection as admission (R8, R9) and the usage wall (R12.6) see it: what it asks a
// gate for, and whose signal ends its wait. The admission stages are the pipeline's; a feature
// that waits on the same connection (the usage wall) makes one too.
import type { Connection, Provider, TrafficClass } from "../../../shared/types.js";

export interface AdmissionRequest {
  provider: Provider;
  connection: Connection;
  model: string;
  /** The client went away while waiting: give up the wait (read only by a request that waits). */
  readonly signal: AbortSignal;
  /** R8.2: dispatched by a quota-share combo (the gate fails open). */
  quotaShare?: boolean;
  /** Admitted by the engine as its provider's HALF_OPEN probe (R19.2: one in the whole group). */
  probe?: boolean;
  /** R20.3: background work waits behind the others and leaves them the connection's headroom. */
  trafficClass?: TrafficClass;
}

/**
 * An attempt's connection as admission and the usage wall see it; its signal is the client's,
 * made only when a stage that waits reads it. A class rather than an object literal with a getter:
 * V8 gives every such literal a hidden class of its own in the old generation, and those keep the
 * request's young objects alive through every scavenge until the next full collection (issue 12).
 */
export class ClientBoundTarget implements AdmissionRequest {
  constructor(
    readonly provider: Provider,
    readonly connection: Connection,
    readonly model: string,
    private readonly client: { readonly signal: AbortSignal },
    readonly quotaShare = false,
    readonly probe = false,
    readonly trafficClass: TrafficClass = "main",
  ) {}

  get signal(): AbortSignal {
    return this.client.signal;
  }
}
