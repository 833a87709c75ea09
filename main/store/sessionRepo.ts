// Session pins (R7.1, table session_account_affinity). Read once at start-up into the engine's
// in-memory book; the request path only writes through, with prepared statements.
import type Database from "better-sqlite3";
import type { SessionPin, SessionPinStore } from "../engine/sessionAffinity.js";

interface PinRow {
  session_key: string;
  provider: string;
  connection_id: string;
  expires_at: number;
  last_used_at: number;
}

export function createSessionPinRepo(db: Database.Database): SessionPinStore {
  const selectAll = db.prepare<[], PinRow>("SELECT session_key, provider, connection_id, expires_at, last_used_at FROM session_account_affinity");
  const upsert = db.prepare(
    `INSERT INTO session_account_affinity (session_key, provider, connection_id, expires_at, last_used_at)
     VALUES (@session_key, @provider, @connection_id, @expires_at, @last_used_at)
     ON CONFLICT (session_key) DO UPDATE SET provider = excluded.provider, connection_id = excluded.connection_id,
       expires_at = excluded.expires_at, last_used_at = excluded.last_used_at`,
  );
  const remove = db.prepare<[string]>("DELETE FROM session_account_affinity WHERE session_key = ?");
  const connectionExists = db.prepare<[string], { id: string }>("SELECT id FROM connections WHERE id = ?");

  return {
    loadAll: () =>
      selectAll.all().map((r) => ({
        sessionKey: r.session_key, provider: r.provider, connectionId: r.connection_id, expiresAt: r.expires_at, lastUsedAt: r.last_used_at,
      })),
    save(pin: SessionPin) {
      // A connection deleted while a request was in flight must not break the answer with a
      // foreign-key error; the pin is simply not kept.
      if (!connectionExists.get(pin.connectionId)) return;
      upsert.run({
        session_key: pin.sessionKey, provider: pin.provider, connection_id: pin.connectionId, expires_at: pin.expiresAt, last_used_at: pin.lastUsedAt,
      });
    },
    delete: (sessionKey) => void remove.run(sessionKey),
  };
}
