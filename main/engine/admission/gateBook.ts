// Composite concurrency gates (R8.1, R8.3, D9) as pure bookkeeping: every request names the gate
// levels it needs (global → provider → connection → model, each a key with a cap) and takes all
// of them or none, so a timeout never leaves a partial hold. A request goes when every gate it
// needs has room; waiters are served first come, first served (background work after the others, R20.3) as permits free up (`grant()` runs
// on every release, before anyone new may enter). A waiter holds back only the gates it is stuck
// on, those without room: a full provider or connection gate does not stall the global gate for
// every other provider (issue 26 item 4). The gates nest (a connection's requests all need its
// provider's gate and the global one), so a waiter stuck on an upper gate keeps its turn there.
// A paused key (learned pacing, R9.4) admits nobody until its instant. No timers here: the caller
// wakes `grant()` up.
import type { Clock } from "../ports.js";

export interface GateLevel {
  key: string;
  /** Permits of this gate; Infinity counts in-flight requests without limiting them. */
  cap: number;
}

export interface GateTicket {
  levels: readonly GateLevel[];
  /** The limiter whose pause holds this request back (null = never paused). */
  pauseKey: string | null;
  /** Whose queue this waiter counts in (R9.3: one queue per provider+connection). */
  queueKey: string;
  /** R20.3: background work waits behind every other waiter. */
  background?: boolean;
}

/** A gate with an infinite cap only counts; it never makes anyone wait or queue behind another. */
function limits(level: GateLevel): boolean {
  return level.cap !== Infinity;
}

/** Hears a pause set or extended (its end) or lifted early (null) on this instance (R19.1). */
export type PauseListener = (key: string, until: number | null) => void;

export class GateBook {
  private listener: PauseListener | null = null;
  private readonly held = new Map<string, number>();
  private readonly waiters: GateTicket[] = [];
  private readonly queued = new Map<string, number>();
  private readonly waitingOn = new Map<string, number>();
  private readonly pausedUntil = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  /** Takes every permit at once when each of its gates has room and it is not paused; false = must wait. */
  tryEnter(ticket: GateTicket): boolean {
    if (!this.canGo(ticket)) return false;
    this.hold(ticket.levels);
    return true;
  }

  enqueue(ticket: GateTicket): void {
    // R20.3: a waiter of any other class goes ahead of the background work already waiting.
    const firstBackground = ticket.background ? -1 : this.waiters.findIndex((w) => w.background === true);
    if (firstBackground === -1) this.waiters.push(ticket);
    else this.waiters.splice(firstBackground, 0, ticket);
    this.queued.set(ticket.queueKey, (this.queued.get(ticket.queueKey) ?? 0) + 1);
    for (const level of ticket.levels) if (limits(level)) this.waitingOn.set(level.key, (this.waitingOn.get(level.key) ?? 0) + 1);
  }

  /** A waiter that gave up (timeout, client gone); false when it was not waiting any more. */
  drop(ticket: GateTicket): boolean {
    const index = this.waiters.indexOf(ticket);
    if (index < 0) return false;
    this.waiters.splice(index, 1);
    this.unqueue(ticket);
    return true;
  }

  release(levels: readonly GateLevel[]): void {
    for (const level of levels) {
      const n = (this.held.get(level.key) ?? 0) - 1;
      if (n > 0) this.held.set(level.key, n);
      else this.held.delete(level.key);
    }
  }

  /** The waiters that may go now, first come first served; they hold their permits on return. */
  grant(): GateTicket[] {
    const granted: GateTicket[] = [];
    for (const ticket of [...this.waiters]) {
      // Each grant takes its permits before the next waiter is looked at: an earlier waiter wins a freed permit.
      if (!this.canGo(ticket)) continue;
      this.waiters.splice(this.waiters.indexOf(ticket), 1);
      this.unqueue(ticket);
      this.hold(ticket.levels);
      granted.push(ticket);
    }
    return granted;
  }

  pause(key: string, until: number): void {
    if (this.applyPause(key, until)) this.listener?.(key, until);
  }

  /** Lifts a pause early (the operator cleared the connection's cooldown, or it served again). */
  resume(key: string): void {
    if (this.pausedUntil.delete(key)) this.listener?.(key, null);
  }

  /** R19.1: one listener of local pauses. */
  onLocalPause(listener: PauseListener): void {
    this.listener = listener;
  }

  /** A pause (the later end wins) or a lift (null), from here or from another instance; not told to the listener. */
  applyPause(key: string, until: number | null): boolean {
    if (until === null) return this.pausedUntil.delete(key);
    if (until <= (this.pausedUntil.get(key) ?? 0)) return false;
    this.pausedUntil.set(key, until);
    return true;
  }

  /** How long `key` stays paused (0 = not paused); an expired pause is forgotten on read. */
  pausedMs(key: string | null): number {
    if (key === null) return 0;
    const until = this.pausedUntil.get(key);
    if (until === undefined) return 0;
    const left = until - this.clock.now();
    if (left > 0) return left;
    this.pausedUntil.delete(key);
    return 0;
  }

  inFlight(key: string): number {
    return this.held.get(key) ?? 0;
  }

  queuedIn(queueKey: string): number {
    return this.queued.get(queueKey) ?? 0;
  }

  waitingOnGate(key: string): number {
    return this.waitingOn.get(key) ?? 0;
  }

  /** Every gate key and pause key with something to show (for health snapshots). */
  activeKeys(): Set<string> {
    return new Set([...this.held.keys(), ...this.queued.keys(), ...this.pausedUntil.keys()]);
  }

  private hasRoom(level: GateLevel): boolean {
    return (this.held.get(level.key) ?? 0) < level.cap;
  }

  private canGo(ticket: GateTicket): boolean {
    if (this.pausedMs(ticket.pauseKey) > 0) return false;
    for (const level of ticket.levels) if (limits(level) && !this.hasRoom(level)) return false;
    return true;
  }

  private hold(levels: readonly GateLevel[]): void {
    for (const level of levels) this.held.set(level.key, (this.held.get(level.key) ?? 0) + 1);
  }

  private unqueue(ticket: GateTicket): void {
    const n = (this.queued.get(ticket.queueKey) ?? 1) - 1;
    if (n > 0) this.queued.set(ticket.queueKey, n);
    else this.queued.delete(ticket.queueKey);
    for (const level of ticket.levels) {
      if (!limits(level)) continue;
      const w = (this.waitingOn.get(level.key) ?? 1) - 1;
      if (w > 0) this.waitingOn.set(level.key, w);
      else this.waitingOn.delete(level.key);
    }
  }
}
