// In-memory versions of the pin and lease stores, for tests of the pure session logic.
import type { Lease, LeaseEnd, LeaseStore } from "../../../main/engine/leases.js";
import type { SessionPin, SessionPinStore } from "../../../main/engine/sessionAffinity.js";

export class MemoryPinStore implements SessionPinStore {
  readonly rows = new Map<string, SessionPin>();
  writes = 0;
  loadAll = () => [...this.rows.values()];
  save(pin: SessionPin) {
    this.writes += 1;
    this.rows.set(pin.sessionKey, pin);
  }
  delete(key: string) {
    this.rows.delete(key);
  }
}

export class MemoryLeaseStore implements LeaseStore {
  readonly rows = new Map<string, Lease & { state: "ACTIVE" | LeaseEnd }>();
  loadActive = () => [...this.rows.values()].filter((r) => r.state === "ACTIVE").map(({ state: _s, ...l }) => l);
  maxGeneration = () => Math.max(0, ...[...this.rows.values()].map((r) => r.generation));
  save(lease: Lease) {
    this.rows.set(lease.ownerHash, { ...lease, state: "ACTIVE" });
  }
  end(ownerHash: string, state: LeaseEnd) {
    const row = this.rows.get(ownerHash);
    if (row?.state === "ACTIVE") row.state = state;
  }
}
