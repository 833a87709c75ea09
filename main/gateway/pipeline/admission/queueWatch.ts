// What the health report and the events stream show of admission (R9, issue 10 item 6): per
// connection the requests in flight, the requests queued and the instant a pause ends, and for
// each configured provider gate and the global gate (R8.1) its requests in flight and waiting.
// Change notices are coalesced so a busy gateway sends at most a few queue events per second.
import type { QueueRow } from "../../../../shared/apiTypes.js";
import type { GateBook } from "../../../engine/admission/gateBook.js";
import type { AdmissionLimits } from "../../../engine/admission/limits.js";
import type { Clock } from "../../../engine/ports.js";
import type { SharedLimits } from "./sharedLimits.js";

export type { QueueRow };

const NOTIFY_EVERY_MS = 250;

/** R8.1: the gate keys above a connection's, as admission holds them in its GateBook. */
export const GLOBAL_GATE_KEY = "g\u0000";
export const providerGateKey = (id: string): string => `v\u0000${id}`;

interface Known {
  provider: string;
  limits: AdmissionLimits;
  pauseKeys: Set<string>;
}

/** A provider or the global gate, as its last request configured it. */
interface KnownGate {
  scope: "global" | "provider";
  provider: string | null;
  cap: number;
}

const SCOPE_ORDER: Record<QueueRow["scope"], number> = { global: 0, provider: 1, connection: 2 };

/** Global gate first, then by provider: its gate, then its connections by id. */
function rowOrder(a: QueueRow, b: QueueRow): number {
  if ((a.scope === "global") !== (b.scope === "global")) return a.scope === "global" ? -1 : 1;
  if (a.provider !== b.provider) return (a.provider ?? "").localeCompare(b.provider ?? "");
  if (a.scope !== b.scope) return SCOPE_ORDER[a.scope] - SCOPE_ORDER[b.scope];
  return (a.connectionId ?? "").localeCompare(b.connectionId ?? "");
}

export class QueueWatch {
  private readonly known = new Map<string, Known>();
  private readonly gates = new Map<string, KnownGate>();
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

  /**
   * R8.1: the provider and global gates a request met; a gate whose cap was removed leaves the
   * report. Without any gate configured this costs two comparisons.
   */
  knowGates(provider: string, globalCap: number | null, providerCap: number | null): void {
    if (globalCap === null && providerCap === null && this.gates.size === 0) return;
    if (globalCap !== null) this.gates.set(GLOBAL_GATE_KEY, { scope: "global", provider: null, cap: globalCap });
    else this.gates.delete(GLOBAL_GATE_KEY);
    if (providerCap !== null) this.gates.set(providerGateKey(provider), { scope: "provider", provider, cap: providerCap });
    else if (this.gates.size > 0) this.gates.delete(providerGateKey(provider));
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
        scope: "connection",
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
    // A deleted provider's connections leave the report (forget), and its gate with them.
    const providers = new Set(rows.map((r) => r.provider));
    for (const [key, gate] of this.gates) {
      if (gate.provider !== null && !providers.has(gate.provider)) continue;
      rows.push({
        scope: gate.scope,
        provider: gate.provider,
        connectionId: null,
        inFlight: this.book.inFlight(key),
        queued: this.book.waitingOnGate(key),
        pausedUntil: null,
        pausedMs: 0,
        maxConcurrent: gate.cap,
        maxQueueDepth: 0,
        protected: false,
        shared: false,
      });
    }
    return rows.sort(rowOrder);
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
