import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { admitBreaker, closedBreaker, recordBreakerFailure, recordBreakerSuccess, refreshBreaker, releaseProbe, resolveBreakerProfile } from "../../../main/engine/breaker.js";
import type { BreakerSnapshot } from "../../../main/engine/ports.js";
import { T0 } from "./fixtures.js";

type Op =
  | { kind: "admit" }
  | { kind: "failure"; connection: number; fromProbe: boolean }
  | { kind: "success"; fromProbe: boolean }
  | { kind: "neutral" }
  | { kind: "read" }
  | { kind: "advance"; ms: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.constant<Op>({ kind: "admit" }),
  fc.record({ kind: fc.constant("failure" as const), connection: fc.integer({ min: 0, max: 3 }), fromProbe: fc.boolean() }),
  fc.record({ kind: fc.constant("success" as const), fromProbe: fc.boolean() }),
  fc.constant<Op>({ kind: "neutral" }),
  fc.constant<Op>({ kind: "read" }),
  fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 200_000 }) }),
);

const profileArb = fc.record({
  degradationThreshold: fc.option(fc.integer({ min: 1, max: 10 }), { nil: null }),
  failureThreshold: fc.integer({ min: 1, max: 12 }),
  resetTimeoutMs: fc.integer({ min: 1_000, max: 60_000 }),
  escalateAfter: fc.integer({ min: 0, max: 4 }),
  maxBackoffMultiplier: fc.integer({ min: 1, max: 8 }),
});

describe("breaker properties over random event sequences (D2, R2.4)", () => {
  it("D2/R2.4 never two concurrent probes, never OPEN past its deadline, counts never negative", () => {
    fc.assert(
      fc.property(profileArb, fc.array(op, { maxLength: 120 }), (settings, ops) => {
        const profile = resolveBreakerProfile(settings);
        let now = T0;
        let s: BreakerSnapshot = closedBreaker("p", now);
        const recent = new Map<string, number>();
        // The test's own view of the probe it was handed: when, and whether it is still running.
        let probeSince: number | null = null;
        const probeRunning = () => probeSince !== null && now < probeSince + profile.resetTimeoutMs;
        for (const o of ops) {
          switch (o.kind) {
            case "advance":
              now += o.ms;
              continue;
            case "read":
              s = refreshBreaker(s, profile, now);
              break;
            case "admit": {
              const r = admitBreaker(s, profile, now);
              if (r.admission.allowed && r.admission.probe) {
                expect(probeRunning()).toBe(false);
                probeSince = now;
              }
              if (!r.admission.allowed) expect(r.admission.retryAfterMs).toBeGreaterThan(0);
              s = r.snapshot;
              break;
            }
            case "failure": {
              const probe = o.fromProbe && probeRunning();
              s = recordBreakerFailure(s, profile, now, { kind: "server_error", connectionId: `c${o.connection}`, probe }, recent);
              if (probe) probeSince = null;
              break;
            }
            case "success":
              s = recordBreakerSuccess(s, profile, now);
              if (o.fromProbe && probeRunning()) probeSince = null;
              break;
            case "neutral":
              if (probeRunning()) {
                s = releaseProbe(s, profile, now);
                probeSince = null;
              } else {
                s = refreshBreaker(s, profile, now);
              }
              break;
          }
          // Every operation reads through the lazy refresh, so what it returns is what readers see at `now`.
          if (s.state !== "HALF_OPEN") probeSince = null;
          if (s.state === "OPEN") expect(s.openUntil).toBeGreaterThan(now);
          expect(s.failureCount).toBeGreaterThanOrEqual(0);
          expect(s.successCount).toBeGreaterThanOrEqual(0);
          expect(s.openCycles).toBeGreaterThanOrEqual(0);
          if (s.state === "CLOSED" || s.state === "DEGRADED") expect(s.openUntil).toBeNull();
          if (s.probeStartedAt !== null) expect(s.state).toBe("HALF_OPEN");
        }
      }),
      { numRuns: 400 },
    );
  });
});
