// Provider breaker snapshots (R2.5): one row per provider, restored at start-up.
// The engine derives the live state lazily from these instants.
import type Database from "better-sqlite3";
import type { BreakerSnapshot, BreakerStore } from "../engine/ports.js";

interface BreakerRow {
  provider: string;
  state: BreakerSnapshot["state"];
  failure_count: number;
  success_count: number;
  opened_at: number | null;
  open_until: number | null;
  open_cycles: number;
  cycles_by_kind: string;
  last_failure_at: number | null;
  last_failure_kind: string | null;
  probe_started_at: number | null;
  updated_at: number;
}

/**
 * A row as the state it holds: the table keeps one column per field of any state, the snapshot
 * only its own state's (ports.ts). A row that claims an opening without its instants (hand-edited)
 * is read as closed with its counts, which the engine then derives forward as usual.
 */
function toSnapshot(row: BreakerRow): BreakerSnapshot {
  const common = {
    provider: row.provider,
    failureCount: row.failure_count,
    successCount: row.success_count,
    openCycles: row.open_cycles,
    cyclesByKind: row.cycles_by_kind,
    lastFailureAt: row.last_failure_at,
    lastFailureKind: row.last_failure_kind,
    updatedAt: row.updated_at,
  };
  const opening = row.opened_at !== null && row.open_until !== null ? { openedAt: row.opened_at, openUntil: row.open_until } : null;
  switch (row.state) {
    case "OPEN":
      if (opening) return { ...common, state: "OPEN", ...opening, probeStartedAt: null };
      break;
    case "HALF_OPEN":
      if (opening) return { ...common, state: "HALF_OPEN", ...opening, probeStartedAt: row.probe_started_at };
      break;
    case "DEGRADED":
      return { ...common, state: "DEGRADED", openedAt: null, openUntil: null, probeStartedAt: null };
    case "CLOSED":
      break;
  }
  return { ...common, state: "CLOSED", openedAt: null, openUntil: null, probeStartedAt: null };
}

export function createBreakerRepo(db: Database.Database): BreakerStore {
  const selectAll = db.prepare<[], BreakerRow>("SELECT * FROM domain_circuit_breakers ORDER BY provider");
  const upsert = db.prepare(
    `INSERT INTO domain_circuit_breakers (provider, state, failure_count, success_count, opened_at, open_until,
       open_cycles, cycles_by_kind, last_failure_at, last_failure_kind, probe_started_at, updated_at)
     VALUES (@provider, @state, @failure_count, @success_count, @opened_at, @open_until,
       @open_cycles, @cycles_by_kind, @last_failure_at, @last_failure_kind, @probe_started_at, @updated_at)
     ON CONFLICT (provider) DO UPDATE SET state = excluded.state, failure_count = excluded.failure_count,
       success_count = excluded.success_count, opened_at = excluded.opened_at, open_until = excluded.open_until,
       open_cycles = excluded.open_cycles, cycles_by_kind = excluded.cycles_by_kind, last_failure_at = excluded.last_failure_at,
       last_failure_kind = excluded.last_failure_kind, probe_started_at = excluded.probe_started_at,
       updated_at = excluded.updated_at`,
  );
  const remove = db.prepare<[string]>("DELETE FROM domain_circuit_breakers WHERE provider = ?");

  return {
    loadAll: () => selectAll.all().map(toSnapshot),
    save(s) {
      upsert.run({
        provider: s.provider,
        state: s.state,
        failure_count: s.failureCount,
        success_count: s.successCount,
        opened_at: s.openedAt,
        open_until: s.openUntil,
        open_cycles: s.openCycles,
        cycles_by_kind: s.cyclesByKind ?? "",
        last_failure_at: s.lastFailureAt,
        last_failure_kind: s.lastFailureKind,
        probe_started_at: s.probeStartedAt,
        updated_at: s.updatedAt,
      });
    },
    delete(provider) {
      remove.run(provider);
    },
  };
}
