// Session pins and exclusive leases as seen by one request's selection (R7.1, R7.2, R11.2):
// connections leased by another owner are never candidates, a leased request may use only its
// leased connection, and the session's pinned target and connection go first when they are
// eligible. The pin follows whichever connection answers, so an ineligible pin is replaced.
import { ERROR_CODES } from "../../../shared/errorCodes.js";
import type { Connection } from "../../../shared/types.js";
import type { Clock } from "../../engine/ports.js";
import type { LeaseBook } from "../../engine/leases.js";
import type { SessionPin, SessionPins } from "../../engine/sessionAffinity.js";
import { RETRY_SOON_MS, type FinalError } from "./outcome.js";

/** R7.2: Retry-After of a lease refusal stays within 1–120 s. */
export const LEASE_RETRY_AFTER_BOUNDS_MS = { min: 1_000, max: 120_000 } as const;

export function boundedLeaseRetryMs(ms: number | null): number {
  const { min, max } = LEASE_RETRY_AFTER_BOUNDS_MS;
  return Math.min(max, Math.max(min, ms ?? max));
}

export interface RequestSession {
  /** The client's session key (D7 sources), or null when the request names no session. */
  readonly key: string | null;
  /** The session's live pin: the plan puts its target first (R7.1). */
  pin(): SessionPin | null;
  /** The connection this session is pinned to, tried first when it is eligible (R7.1). */
  pinnedConnectionId(): string | null;
  /** May this eligible connection take the request, or does another owner's lease hold it (R7.2)? */
  isFree(connection: Connection): boolean;
  /**
   * R7.2 after a wait (R20.4): a fenced request still holds its lease on this connection, an unfenced
   * one finds it held by no other owner; the fence at the edge is minutes old by then.
   */
  mayStillUse(connection: Connection): boolean;
  /** The request was answered by this connection with this upstream model. */
  served(providerId: string, connectionId: string, model: string): void;
  /** R7.2: eligible candidates existed but all were leased by others → the 429 to answer with. */
  capacityRefusal(): FinalError | null;
}

export interface SessionRoutingDeps {
  pins: SessionPins;
  leases: LeaseBook;
  clock: Clock;
}

export interface RequestSessionInput {
  sessionKey: string | null;
  /** The SHA-256 of the lease owner of a fenced request (its own lease is not "another owner's"). */
  leaseOwnerHash: string | null;
}

export function createRequestSession(deps: SessionRoutingDeps, input: RequestSessionInput): RequestSession {
  let offered = 0;
  let earliestForeignExpiry: number | null = null;

  function free(connection: Connection): boolean {
    const holder = deps.leases.holderOf(connection.id);
    if (!holder || holder.ownerHash === input.leaseOwnerHash) return true;
    earliestForeignExpiry = Math.min(earliestForeignExpiry ?? holder.expiresAt, holder.expiresAt);
    return false;
  }

  return {
    key: input.sessionKey,
    pin() {
      return input.sessionKey ? deps.pins.pinned(input.sessionKey) : null;
    },
    pinnedConnectionId() {
      return input.sessionKey ? (deps.pins.pinned(input.sessionKey)?.connectionId ?? null) : null;
    },
    isFree(connection) {
      if (!free(connection)) return false;
      offered++;
      return true;
    },
    mayStillUse(connection) {
      const holder = deps.leases.holderOf(connection.id);
      return input.leaseOwnerHash === null ? !holder : holder?.ownerHash === input.leaseOwnerHash;
    },
    served(providerId, connectionId, model) {
      if (input.sessionKey) deps.pins.served(input.sessionKey, providerId, connectionId, model);
    },
    capacityRefusal() {
      if (offered > 0 || earliestForeignExpiry === null) return null;
      return {
        status: ERROR_CODES.LEASE_CAPACITY_UNAVAILABLE.status,
        code: "LEASE_CAPACITY_UNAVAILABLE",
        message: "Every eligible connection is held by another session's exclusive lease",
        // R25.6: a lease may be released any moment: the client is told to look again within a minute.
        retryAfterMs: Math.min(RETRY_SOON_MS, boundedLeaseRetryMs(earliestForeignExpiry - deps.clock.now())),
        noRetry: false,
        extra: { state: "WAITING_FOR_CAPACITY", reason: "NO_FREE_ELIGIBLE_CONNECTION" },
      };
    },
  };
}
