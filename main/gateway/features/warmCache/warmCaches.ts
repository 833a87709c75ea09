// R20.2: which connection holds each session's warm prompt cache, as the usage of the session's
// answers says (cache reads or writes), so a failover that moves the session elsewhere can be
// marked in the timeline with the prompt tokens it re-sent, and R20.4 can wait for the warm
// connection instead of moving. In memory, per instance, bounded; entries end with the cache.
import type { RequestLogEntry } from "../../../../shared/types.js";

/** Anthropic's default cache lifetime (5 minutes, refreshed on every read); OpenAI's and Gemini's implicit caches last about as long. */
export const WARM_CACHE_TTL_MS = 5 * 60_000;
/** Sessions remembered at once; the least recently answered go first. */
const MAX_SESSIONS = 10_000;

interface Warm {
  connectionId: string;
  until: number;
}

export class WarmCaches {
  private readonly bySession = new Map<string, Warm>();

  /** The connection holding `sessionKey`'s warm cache now, or null. */
  holder(sessionKey: string | null, now: number): string | null {
    if (sessionKey === null) return null;
    const warm = this.bySession.get(sessionKey);
    if (!warm) return null;
    if (warm.until > now) return warm.connectionId;
    this.bySession.delete(sessionKey);
    return null;
  }

  /** R25.5: the session's conversation was compacted: the old prefix's cache no longer holds it anywhere. */
  forget(sessionKey: string | null): void {
    if (sessionKey !== null) this.bySession.delete(sessionKey);
  }

  /** A request of the session was answered: the connection that read or wrote its cache holds it now. */
  answered(sessionKey: string | null, entry: Pick<RequestLogEntry, "status" | "connectionId" | "cacheReadTokens" | "cacheWriteTokens">, now: number): void {
    if (sessionKey === null || entry.status >= 400 || entry.connectionId === null) return;
    const cached = (entry.cacheReadTokens ?? 0) + (entry.cacheWriteTokens ?? 0) > 0;
    const held = this.bySession.get(sessionKey);
    if (!cached) {
      // Served elsewhere without a cache: the session left its warm connection.
      if (held && held.connectionId !== entry.connectionId) this.bySession.delete(sessionKey);
      return;
    }
    this.bySession.delete(sessionKey);
    this.bySession.set(sessionKey, { connectionId: entry.connectionId, until: now + WARM_CACHE_TTL_MS });
    if (this.bySession.size > MAX_SESSIONS) {
      const oldest = this.bySession.keys().next();
      if (!oldest.done) this.bySession.delete(oldest.value);
    }
  }
}
