// Session pins (R7.1, table session_account_affinity). Read once at start-up into the engine's
// in-memory book. A session's first pin is written through at once: an answered request's pin
// survives a crash. Every later change is written behind, the latest per session in one
// transaction a moment later, and on close: most served requests only extend a pin (a session
// stays on its target and connection, R7.1); one SQLite commit for each was the largest cost of
// session affinity (issue 12). A crash loses at most that moment of changes, and the pin it leaves
// names a connection that served the session, which selection skips if it is no longer eligible
// (a pin is a preference, never a constraint).
import type Database from "better-sqlite3";
import type { SessionPin, SessionPinStore } from "../engine/sessionAffinity.js";

interface PinRow {
  session_key: string;
  provider: string;
  connection_id: string;
  expires_at: number;
  last_used_at: number;
}

/** A pin's later changes are written this long after the request at most (what a crash can lose). */
const PIN_FLUSH_DELAY_MS = 1_000;

export interface BufferedSessionPinStore extends SessionPinStore {
  /** Writes the pins waiting to be written. */
  flush(): void;
}

export function createSessionPinRepo(db: Database.Database, onError: (err: Error) => void = () => {}): BufferedSessionPinStore {
  const selectAll = db.prepare<[], PinRow>("SELECT session_key, provider, connection_id, expires_at, last_used_at FROM session_account_affinity");
  const upsert = db.prepare(
    `INSERT INTO session_account_affinity (session_key, provider, connection_id, expires_at, last_used_at)
     VALUES (@session_key, @provider, @connection_id, @expires_at, @last_used_at)
     ON CONFLICT (session_key) DO UPDATE SET provider = excluded.provider, connection_id = excluded.connection_id,
       expires_at = excluded.expires_at, last_used_at = excluded.last_used_at`,
  );
  const remove = db.prepare<[string]>("DELETE FROM session_account_affinity WHERE session_key = ?");
  const connectionExists = db.prepare<[string], { id: string }>("SELECT id FROM connections WHERE id = ?");

  const pending = new Map<string, SessionPin>();
  /** The connection each stored pin names: a session without one gets its first pin written at once. */
  const stored = new Map<string, string>();
  let timer: NodeJS.Timeout | null = null;
  const writeOne = (pin: SessionPin): void => {
    // A connection deleted since the request was served must not fail the write with a
    // foreign-key error; the pin is simply not kept.
    if (!connectionExists.get(pin.connectionId)) return;
    upsert.run({
      session_key: pin.sessionKey,
      provider: pin.provider,
      connection_id: pin.connectionId,
      expires_at: pin.expiresAt,
      last_used_at: pin.lastUsedAt,
    });
    stored.set(pin.sessionKey, pin.connectionId);
  };
  const writePending = db.transaction((pins: SessionPin[]) => {
    for (const pin of pins) writeOne(pin);
  });
  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (!pending.size || !db.open) return;
    const pins = [...pending.values()];
    pending.clear();
    writePending.immediate(pins);
  };
  const flushInBackground = (): void => {
    try {
      flush();
    } catch (err) {
      onError(err instanceof Error ? err : new Error(String(err)));
    }
  };

  return {
    loadAll: () => {
      flush();
      stored.clear();
      return selectAll.all().map((r) => {
        stored.set(r.session_key, r.connection_id);
        return { sessionKey: r.session_key, provider: r.provider, connectionId: r.connection_id, expiresAt: r.expires_at, lastUsedAt: r.last_used_at };
      });
    },
    save(pin: SessionPin) {
      if (!stored.has(pin.sessionKey)) {
        pending.delete(pin.sessionKey);
        return writeOne(pin);
      }
      pending.set(pin.sessionKey, pin);
      if (timer) return;
      timer = setTimeout(flushInBackground, PIN_FLUSH_DELAY_MS);
      // A pending pin write must never keep a finished process alive.
      timer.unref();
    },
    delete(sessionKey) {
      pending.delete(sessionKey);
      stored.delete(sessionKey);
      remove.run(sessionKey);
    },
    flush,
  };
}
