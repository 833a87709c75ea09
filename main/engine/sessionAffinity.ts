// Session affinity (R7.1, D7): a soft preference that keeps one client session on the connection
// that served it last, so a multi-turn agent keeps its per-account context. A pin is only a
// preference: selection ignores it when the connection is not eligible, and the next connection
// that serves the session takes the pin over. Pins live in memory for the request path and are
// written through to the store so that they survive a restart.
import type { Clock } from "./ports.js";

export interface SessionPin {
  /** The client's session key, or its SHA-256 when it was not a plain short token. */
  sessionKey: string;
  provider: string;
  connectionId: string;
  /**
   * The upstream model it was served with, so the session also keeps its combo target (R7.1). Kept
   * in memory only: a pin restored from the store knows its account, not its model.
   */
  model?: string;
  expiresAt: number;
  lastUsedAt: number;
}

export interface SessionPinStore {
  loadAll(): SessionPin[];
  save(pin: SessionPin): void;
  delete(sessionKey: string): void;
}

export function pinAlive(pin: SessionPin, now: number): boolean {
  return pin.expiresAt > now;
}

/** Hears a pin made, moved, extended or removed on this instance (R19.1: the group shares pins). */
export type PinListener = (sessionKey: string, pin: SessionPin | null) => void;

export class SessionPins {
  private readonly pins = new Map<string, SessionPin>();
  private listener: PinListener | null = null;

  constructor(
    private readonly store: SessionPinStore,
    private readonly clock: Clock,
    /** `sessionAffinityTtlMs`, read live: 0 switches affinity off without forgetting pins. */
    private readonly ttlMs: () => number,
  ) {
    for (const pin of store.loadAll()) this.pins.set(pin.sessionKey, pin);
  }

  /** The live pin of a session, or null (no pin, expired, or affinity switched off). */
  pinned(sessionKey: string): SessionPin | null {
    if (this.ttlMs() <= 0) return null;
    const pin = this.pins.get(sessionKey);
    if (!pin) return null;
    if (pinAlive(pin, this.clock.now())) return pin;
    this.forget(sessionKey);
    return null;
  }

  /** The session was served by this connection and model: pin it there (moving the pin) and extend it. */
  served(sessionKey: string, provider: string, connectionId: string, model?: string): void {
    const ttl = this.ttlMs();
    if (ttl <= 0) return;
    const now = this.clock.now();
    const pin: SessionPin = { sessionKey, provider, connectionId, model, expiresAt: now + ttl, lastUsedAt: now };
    this.pins.set(sessionKey, pin);
    this.store.save(pin);
    this.listener?.(sessionKey, pin);
  }

  /** R19.1: one listener of local changes; expiries are not told, every instance sees them on its own clock. */
  onLocalChange(listener: PinListener): void {
    this.listener = listener;
  }

  /** A pin another instance made or removed (null): kept like a local one, without telling the listener. */
  applyShared(sessionKey: string, pin: SessionPin | null): void {
    if (pin) {
      this.pins.set(sessionKey, pin);
      this.store.save(pin);
    } else if (this.pins.has(sessionKey)) {
      this.forget(sessionKey);
    }
  }

  /** Live pins, newest use first; expired ones are dropped on the way. */
  list(): SessionPin[] {
    const now = this.clock.now();
    const live: SessionPin[] = [];
    for (const pin of [...this.pins.values()]) {
      if (pinAlive(pin, now)) live.push(pin);
      else this.forget(pin.sessionKey);
    }
    return live.sort((a, b) => b.lastUsedAt - a.lastUsedAt);
  }

  unpin(sessionKey: string): boolean {
    if (!this.pins.has(sessionKey)) return false;
    this.forget(sessionKey);
    this.listener?.(sessionKey, null);
    return true;
  }

  private forget(sessionKey: string): void {
    this.pins.delete(sessionKey);
    this.store.delete(sessionKey);
  }
}
