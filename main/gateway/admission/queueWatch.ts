// What the health report and the events stream show of admission (R9, issue 10 item 6): per
// connection the requests in flight, the requests queued and the instant a pause ends. Change
// notices are coalesced so a busy gateway sends at most a few queue events per second.
import type { QueueRow } from "../../../shared/apiTypes.js";
import type { GateBook } from "../../engine/admission/gateBook.js";
import type { AdmissionLimits } from "../../engine/admission/limits.js";
import type { Clock } from "../../engine/ports.js";
import type { SharedLimits } from "./sharedLimits.js";

export type { QueueRow };

const NOTIFY_EVERY_MS = 250;

interface Known {
  provider: string;
  limits: AdmissionLimits;
  pauseKeys: Set<string>;
}

export class QueueWatch {
  private readonly known = new Map<string, Known>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly book: GateBook,
    private readonly clock: Clock,
    private readonly onChange: ((rows: QueueRow[]) => void) | undefined,
    private readonly shared: () => SharedLimits | null,
  ) {}

  know(provider: string, connectionId: string, limits: AdmissionLimits, pauseKey: string | null): void {
    let entry = this.known.get(connectionId);
    if (!entry) {
      entry = { provider, limits, pauseKeys: new Set() };
      this.known.set(connectionId, entry);
    }
    entry.limits = limits;
    if (pauseKey !== null) entry.pauseKeys.add(pauseKey);
  }

  /** A deleted connection leaves the health report and the events stream. */
  forget(connectionId: string): void {
    if (this.known.delete(connectionId)) this.changed();
  }

  pauseKeysOf(connectionId: string): ReadonlySet<string> {
    return this.known.get(connectionId)?.pauseKeys ?? new Set();
  }

  changed(): void {
    if (!this.onChange || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.onChange?.(this.rows());
    }, NOTIFY_EVERY_MS);
    this.timer.unref();
  }

  rows(): QueueRow[] {
    const now = this.clock.now();
    const rows: QueueRow[] = [];
    for (const [connectionId, entry] of this.known) {
      const key = `c\u0000${connectionId}`;
      let pausedMs = 0;
      for (const pauseKey of entry.pauseKeys) pausedMs = Math.max(pausedMs, this.book.pausedMs(pauseKey));
      rows.push({
        provider: entry.provider,
        connectionId,
        inFlight: this.book.inFlight(key),
        queued: this.book.queuedIn(key) + (this.shared()?.queued(connectionId) ?? 0),
        pausedUntil: pausedMs > 0 ? now + pausedMs : null,
        pausedMs,
        maxConcurrent: entry.limits.connectionCap,
        maxQueueDepth: entry.limits.maxQueueDepth,
        protected: entry.limits.protected,
        shared: entry.limits.connectionCap !== null && this.shared()?.available() === true,
      });
    }
    return rows.sort((a, b) => (a.provider === b.provider ? a.connectionId.localeCompare(b.connectionId) : a.provider.localeCompare(b.provider)));
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
