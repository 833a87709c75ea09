// Exclusive leases (R7.2, table session_leases). Only the SHA-256 of an owner token is stored.
// Active leases are loaded once at start-up into the engine's LeaseBook; changes write through.
import type Database from "better-sqlite3";
import type { Lease, LeaseStore } from "../engine/leases.js";

interface LeaseRow {
  owner_hash: string;
  key_id: string;
  connection_id: string;
  generation: number;
  acquired_at: number;
  expires_at: number;
}

export function createLeaseRepo(db: Database.Database): LeaseStore {
  const selectActive = db.prepare<[], LeaseRow>("SELECT owner_hash, key_id, connection_id, generation, acquired_at, expires_at FROM session_leases WHERE state = 'ACTIVE'");
  const maxGeneration = db.prepare<[], { g: number | null }>("SELECT MAX(generation) AS g FROM session_leases");
  const upsert = db.prepare(
    `INSERT INTO session_leases (owner_hash, key_id, connection_id, generation, state, acquired_at, expires_at, ended_at)
     VALUES (@owner_hash, @key_id, @connection_id, @generation, 'ACTIVE', @acquired_at, @expires_at, NULL)
     ON CONFLICT (owner_hash) DO UPDATE SET key_id = excluded.key_id, connection_id = excluded.connection_id,
       generation = excluded.generation, state = 'ACTIVE', acquired_at = excluded.acquired_at,
       expires_at = excluded.expires_at, ended_at = NULL`,
  );
  const end = db.prepare<[string, number, string]>("UPDATE session_leases SET state = ?, ended_at = ? WHERE owner_hash = ? AND state = 'ACTIVE'");

  return {
    loadActive: () =>
      selectActive.all().map((r): Lease => ({
        ownerHash: r.owner_hash,
        keyId: r.key_id,
        connectionId: r.connection_id,
        generation: r.generation,
        acquiredAt: r.acquired_at,
        expiresAt: r.expires_at,
      })),
    maxGeneration: () => maxGeneration.get()?.g ?? 0,
    save(lease) {
      upsert.run({
        owner_hash: lease.ownerHash,
        key_id: lease.keyId,
        connection_id: lease.connectionId,
        generation: lease.generation,
        acquired_at: lease.acquiredAt,
        expires_at: lease.expiresAt,
      });
    },
    end: (ownerHash, state, at) => void end.run(state, at, ownerHash),
  };
}
