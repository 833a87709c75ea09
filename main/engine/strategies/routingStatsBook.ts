// The in-memory record behind RoutingStats, one book per combo: what was dispatched to which target,
// what is in flight, when each last succeeded or failed, and the R4.10 sample windows per target,
// per connection and per connection+model (the last two rank a target's connections, R4.10). Nothing is persisted — a restart starts every count at zero, which the
// strategies tolerate (they fall back to combo order). The view hands out the live maps, so
// building it costs nothing per request and never touches SQLite.
import { SAMPLE_WINDOW_SIZE } from "./rank.js";
import type { CandidateStats, ConnectionWindows, LatencySample, RequestFacts, RoutingStats } from "./types.js";

export interface AttemptOutcome {
  ok: boolean;
  /** Time to first byte, or to the failure when no byte came. */
  ttfbMs: number;
}

interface MutableCandidateStats extends CandidateStats {
  samples: LatencySample[];
}

function pushSample(window: LatencySample[], sample: LatencySample): void {
  window.push(sample);
  // One in, one out once full: shift() drops it without the array splice() returns.
  while (window.length > SAMPLE_WINDOW_SIZE) window.shift();
}

export class RoutingStatsBook implements ConnectionWindows {
  private readonly candidates = new Map<string, MutableCandidateStats>();
  private readonly connections = new Map<string, LatencySample[]>();
  /** connection id → model → window: nested, so a duel's look-up builds no key. */
  private readonly connectionModels = new Map<string, Map<string, LatencySample[]>>();

  private entry(key: string): MutableCandidateStats {
    let e = this.candidates.get(key);
    if (!e) {
      e = { requests: 0, lastSuccessAt: null, lastFailureAt: null, inFlight: 0, samples: [] };
      this.candidates.set(key, e);
    }
    return e;
  }

  /** An attempt left for this target: counts a request and one more in flight. */
  dispatched(key: string): void {
    const e = this.entry(key);
    e.requests++;
    e.inFlight++;
  }

  /**
   * The attempt ended. `outcome` null (client gone, local refusal) only releases the in-flight slot:
   * such an ending says nothing about the upstream's health or speed.
   */
  settled(key: string, connectionId: string | null, outcome: AttemptOutcome | null, now: number, model: string | null = null): void {
    const e = this.entry(key);
    e.inFlight = Math.max(0, e.inFlight - 1);
    if (!outcome) return;
    if (outcome.ok) e.lastSuccessAt = now;
    else e.lastFailureAt = now;
    const sample = { at: now, ttfbMs: outcome.ttfbMs, ok: outcome.ok };
    pushSample(e.samples, sample);
    if (connectionId === null) return;
    let window = this.connections.get(connectionId);
    if (!window) this.connections.set(connectionId, (window = []));
    pushSample(window, sample);
    if (model === null) return;
    let byModel = this.connectionModels.get(connectionId);
    if (!byModel) this.connectionModels.set(connectionId, (byModel = new Map()));
    let modelWindow = byModel.get(model);
    if (!modelWindow) byModel.set(model, (modelWindow = []));
    pushSample(modelWindow, sample);
  }

  connectionWindow(connectionId: string, model: string | null): readonly LatencySample[] | undefined {
    return model === null ? this.connections.get(connectionId) : this.connectionModels.get(connectionId)?.get(model);
  }

  view(request: RequestFacts, p2cLatencyWeight: number): RoutingStats {
    return { candidates: this.candidates, connections: this.connections, request, p2cLatencyWeight };
  }
}
