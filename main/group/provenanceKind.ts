// R22.3 (R19.1): the reasoning-provenance book across the instances of a team gateway. An artifact
// issued through one instance may come back through any other (the load balancer picks), so each
// instance hands what its book remembers to the group and keeps what the group remembers in its
// book: lookups stay in memory, as every shared kind's. The field is the book's mark (a digest,
// never the artifact) and the issuer is named group-stably, `<provider>/<connection name>`, since
// another instance's connection ids may differ.
import type { Clock } from "../engine/ports.js";
import type { ConnectionKeys } from "./sessionKinds.js";
import type { SharedState } from "../engine/sharedState.js";

// The group's copy lasts a day (past any prompt cache); each instance keeps what it served or heard for longer in its own store.
const SHARED_PROVENANCE_MS = 24 * 3_600_000;

interface SharedIssuer {
  connection: string;
}

/** Shares `book` with the group (lww: an artifact has one issuer; the latest word on it stands). */
/** One booked artifact: its digest, the connection that issued it, when. */
interface ProvenanceEntry {
  mark: string;
  connectionId: string;
  at: number;
}

/** The provenance book as the group sees it (the gateway's ReasoningProvenance): its local entries out, the group's in. */
export interface SharedProvenanceBook {
  onLocalChange(listener: (entry: ProvenanceEntry) => void): () => void;
  applyShared(entry: ProvenanceEntry): void;
}

export function shareProvenance(shared: SharedState, book: SharedProvenanceBook, keys: ConnectionKeys, clock: Clock): void {
  book.onLocalChange(({ mark, connectionId, at }: ProvenanceEntry) => {
    const connection = keys.keyOf(connectionId);
    if (connection) shared.write<SharedIssuer>("provenance", mark, { value: { connection }, at, until: at + SHARED_PROVENANCE_MS }, "lww");
  });
  shared.subscribe<SharedIssuer>("provenance", (mark, { value, at, until }, fromSelf) => {
    // Its own entries are in the book already; one past its day is left for the prune.
    if (fromSelf || value === null || (until !== null && until <= clock.now())) return;
    // An issuer this instance has no connection for: the artifact is foreign to every one here anyway.
    const connectionId = keys.idOf(value.connection);
    if (connectionId) book.applyShared({ mark, connectionId, at });
  });
}
