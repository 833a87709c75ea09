import { describe, expect, it } from "vitest";
import {
  admitBreaker,
  clearDegraded,
  closedBreaker,
  openCyclesOf,
  openDurationMs,
  recordBreakerFailure,
  recordBreakerSuccess,
  refreshBreaker,
  releaseProbe,
  resolveBreakerProfile,
  staleAfterMs,
  type BreakerProfile,
} from "../../../main/engine/breaker.js";
import type { BreakerSnapshot } from "../../../main/engine/ports.js";
import { DEFAULT_RESILIENCE_SETTINGS } from "../../../shared/resilienceSettings.js";
import { T0 } from "./fixtures.js";

const oauth = resolveBreakerProfile(DEFAULT_RESILIENCE_SETTINGS.providerBreaker.oauth);
const apikey = resolveBreakerProfile(DEFAULT_RESILIENCE_SETTINGS.providerBreaker.apikey);
const local = resolveBreakerProfile(DEFAULT_RESILIENCE_SETTINGS.providerBreaker.local);

/** n counted failures, each from its own connection so the 5 s dedupe never merges them. */
function failures(s: BreakerSnapshot, profile: BreakerProfile, n: number, at: number, probe = false): BreakerSnapshot {
  let current = s;
  const recent = new Map<string, number>();
  for (let i = 0; i < n; i++) current = recordBreakerFailure(current, profile, at, { kind: "server_error", connectionId: `c${i}`, probe }, recent);
  return current;
}

function openBreaker(profile: BreakerProfile, at = T0): BreakerSnapshot {
  return failures(closedBreaker("p", at), profile, profile.failureThreshold, at);
}

describe("profiles (R2.2, D2)", () => {
  it("R2.2 default thresholds by category", () => {
    expect(oauth).toMatchObject({ degradationThreshold: 5, failureThreshold: 8, resetTimeoutMs: 60_000 });
    expect(apikey).toMatchObject({ degradationThreshold: 7, failureThreshold: 12, resetTimeoutMs: 30_000 });
    expect(local).toMatchObject({ failureThreshold: 2, resetTimeoutMs: 15_000 });
  });

  it.each([
    [2, null, 1],
    [8, null, 5],
    [12, null, 8],
    [10, null, 6],
    [1, null, 1],
    [8, 20, 7],
    [8, 0, 1],
  ])("D2 failureThreshold %d with degradationThreshold %s -> %d (derived clamp(ceil(0.6 f), 1, f-1))", (failureThreshold, degradationThreshold, expected) => {
    const p = resolveBreakerProfile({ degradationThreshold, failureThreshold, resetTimeoutMs: 1_000, escalateAfter: 3, maxBackoffMultiplier: 4 });
    expect(p.degradationThreshold).toBe(expected);
  });
});

describe("counting and hysteresis (D2)", () => {
  it("D2 7 failures -> DEGRADED, 1 success -> 6 still DEGRADED, 1 more -> CLOSED (5/8)", () => {
    let s = failures(closedBreaker("p", T0), oauth, 7, T0);
    expect(s).toMatchObject({ state: "DEGRADED", failureCount: 7 });
    s = recordBreakerSuccess(s, oauth, T0 + 1);
    expect(s).toMatchObject({ state: "DEGRADED", failureCount: 6 });
    s = recordBreakerSuccess(s, oauth, T0 + 2);
    expect(s).toMatchObject({ state: "CLOSED", failureCount: 5 });
  });

  it("D2 failureThreshold failures -> OPEN; a success never takes the count below 0", () => {
    expect(openBreaker(oauth)).toMatchObject({ state: "OPEN", openUntil: T0 + 60_000, openCycles: 1 });
    const s = recordBreakerSuccess(recordBreakerSuccess(closedBreaker("p", T0), oauth, T0), oauth, T0);
    expect(s.failureCount).toBe(0);
  });

  it("D2 failures of the same provider+connection within 5 000 ms count once", () => {
    const recent = new Map<string, number>();
    let s = closedBreaker("p", T0);
    for (const dt of [0, 1_000, 4_999]) s = recordBreakerFailure(s, oauth, T0 + dt, { kind: "server_error", connectionId: "c1", probe: false }, recent);
    expect(s.failureCount).toBe(1);
    s = recordBreakerFailure(s, oauth, T0 + 5_000, { kind: "server_error", connectionId: "c1", probe: false }, recent);
    expect(s.failureCount).toBe(2);
    s = recordBreakerFailure(s, oauth, T0 + 5_001, { kind: "server_error", connectionId: "c2", probe: false }, recent);
    expect(s.failureCount).toBe(3);
  });

  it("D2 failures recorded while OPEN are ignored and the deadline does not move", () => {
    const open = openBreaker(apikey);
    const later = failures(open, apikey, 5, T0 + 10_000);
    expect(later).toEqual(open);
  });
});

describe("lazy recovery and probes (R2.4, D2)", () => {
  it("R2.4 any read after the reset timeout turns OPEN into HALF_OPEN; never OPEN past its deadline", () => {
    const open = openBreaker(oauth);
    expect(refreshBreaker(open, oauth, T0 + 59_999).state).toBe("OPEN");
    expect(refreshBreaker(open, oauth, T0 + 60_000).state).toBe("HALF_OPEN");
  });

  it("D2 HALF_OPEN admits exactly one probe; a concurrent second call is refused", () => {
    const half = refreshBreaker(openBreaker(oauth), oauth, T0 + 60_000);
    const first = admitBreaker(half, oauth, T0 + 60_000);
    expect(first.admission).toEqual({ allowed: true, probe: true });
    const second = admitBreaker(first.snapshot, oauth, T0 + 60_001);
    expect(second.admission).toEqual({ allowed: false, retryAfterMs: 59_999 });
  });

  it("R2.4 probe success -> CLOSED with counts cleared", () => {
    const probing = admitBreaker(openBreaker(oauth), oauth, T0 + 60_000).snapshot;
    expect(recordBreakerSuccess(probing, oauth, T0 + 61_000)).toMatchObject({ state: "CLOSED", failureCount: 0, openCycles: 0 });
  });

  it("D2 a probe unfinished within the reset timeout counts as failed (OPEN again)", () => {
    const probing = admitBreaker(openBreaker(oauth), oauth, T0 + 60_000).snapshot;
    const s = refreshBreaker(probing, oauth, T0 + 120_000);
    expect(s).toMatchObject({ state: "OPEN", lastFailureKind: "probe_timeout", openedAt: T0 + 120_000, openUntil: T0 + 180_000 });
    expect(openCyclesOf(s, "timeout")).toBe(1);
  });

  it("R2.4 timeouts, 5xx and transport errors each escalate on their own", () => {
    // local: reset 15 s, escalateAfter 3, ×4 → a kind's 4th open cycle lasts 30 s, its 5th 60 s.
    let s = openBreaker(local);
    const probeFails = (kind: string) => {
      const at = s.openUntil!;
      const probing = admitBreaker(s, local, at).snapshot;
      s = recordBreakerFailure(probing, local, at + 1, { kind, connectionId: null, probe: true }, new Map());
      return s.openUntil! - (at + 1);
    };
    expect([probeFails("server_error"), probeFails("server_error"), probeFails("server_error")]).toEqual([15_000, 15_000, 30_000]);
    expect(probeFails("timeout")).toBe(15_000);
    expect(probeFails("transport")).toBe(15_000);
    expect(probeFails("server_error")).toBe(60_000);
    expect(s.cyclesByKind).toBe("server_error=5;timeout=1;transport=1");
  });

  it("R2.4 a stale DEGRADED reads back as CLOSED only after the longest open duration of its last kind", () => {
    let s = closedBreaker("p", T0);
    for (let i = 0; i < 7; i++) s = recordBreakerFailure(s, apikey, T0 + i * 10_000, { kind: "timeout", connectionId: null, probe: false }, new Map());
    expect(s.state).toBe("DEGRADED");
    const last = s.lastFailureAt!;
    expect(staleAfterMs(apikey)).toBe(120_000);
    expect(refreshBreaker(s, apikey, last + 119_999).state).toBe("DEGRADED");
    expect(refreshBreaker(s, apikey, last + 120_000).state).toBe("CLOSED");
  });

  it("D2 a neutral end of the probe frees the slot for the next caller", () => {
    const probing = admitBreaker(openBreaker(oauth), oauth, T0 + 60_000).snapshot;
    const released = releaseProbe(probing, oauth, T0 + 60_500);
    expect(admitBreaker(released, oauth, T0 + 60_600).admission).toEqual({ allowed: true, probe: true });
  });

  it("D2 oauth open cycles: 60 s, 60 s, then x2 up to x8 (480 s)", () => {
    expect([1, 2, 3, 4, 5, 6, 9].map((c) => openDurationMs(oauth, c))).toEqual([60_000, 60_000, 120_000, 240_000, 480_000, 480_000, 480_000]);
  });

  it("D2 apikey open cycles: escalateAfter 3, x4 (30 s ... 120 s); local escalateAfter 3, x4", () => {
    expect([1, 2, 3, 4, 5, 6].map((c) => openDurationMs(apikey, c))).toEqual([30_000, 30_000, 30_000, 60_000, 120_000, 120_000]);
    expect([3, 4, 5, 6].map((c) => openDurationMs(local, c))).toEqual([15_000, 30_000, 60_000, 60_000]);
  });

  it("D2 repeated probe failures grow the open duration", () => {
    let s = openBreaker(oauth);
    const durations: number[] = [];
    for (let i = 0; i < 5; i++) {
      const admitted = admitBreaker(s, oauth, s.openUntil!);
      expect(admitted.admission).toEqual({ allowed: true, probe: true });
      s = recordBreakerFailure(admitted.snapshot, oauth, s.openUntil!, { kind: "server_error", connectionId: "c1", probe: true }, new Map());
      durations.push(s.openUntil! - s.openedAt!);
    }
    expect(durations).toEqual([60_000, 120_000, 240_000, 480_000, 480_000]);
  });

  it("D2 a late non-probe failure while HALF_OPEN does not reopen", () => {
    const probing = admitBreaker(openBreaker(oauth), oauth, T0 + 60_000).snapshot;
    const s = recordBreakerFailure(probing, oauth, T0 + 60_100, { kind: "server_error", connectionId: "old", probe: false }, new Map());
    expect(s.state).toBe("HALF_OPEN");
  });

  it("R2.4 a stale DEGRADED (no failure for reset x maxBackoffMultiplier) reads as CLOSED", () => {
    const degraded = failures(closedBreaker("p", T0), oauth, 6, T0);
    expect(refreshBreaker(degraded, oauth, T0 + 479_999).state).toBe("DEGRADED");
    expect(refreshBreaker(degraded, oauth, T0 + 480_000)).toMatchObject({ state: "CLOSED", failureCount: 0 });
  });

  it("R2.4 the next failure after a stale DEGRADED counts from a closed breaker", () => {
    const degraded = failures(closedBreaker("p", T0), apikey, 8, T0);
    const s = recordBreakerFailure(degraded, apikey, T0 + 200_000, { kind: "server_error", connectionId: "x", probe: false }, new Map());
    expect(s).toMatchObject({ state: "CLOSED", failureCount: 1 });
  });

  it("R2.4 a passing connection test clears DEGRADED", () => {
    const degraded = failures(closedBreaker("p", T0), oauth, 6, T0);
    expect(clearDegraded(degraded, oauth, T0 + 1)).toMatchObject({ state: "CLOSED", failureCount: 0 });
    const open = openBreaker(oauth);
    expect(clearDegraded(open, oauth, T0 + 1).state).toBe("OPEN");
  });
});
