// R21.5: the billing boundary, decided purely. A request whose subscription account was tried or
// skipped for a used-up window is about to go to a metered account: by its traffic class's choice
// it crosses (fails over, marked and notified), waits for the window's reset when that is near
// enough, or stays (429 window_exhausted until the reset).
import type { BillingBoundaryChoice } from "../../shared/resilienceSettings.js";

/** A subscription account passed over for its window: which one, and when the window resets (engine clock, ms). */
export interface PassedWindow {
  connectionId: string;
  resetAt: number | null;
  /** The window's name ("5h", "7d"…), when the failure named it. */
  window?: string;
}

export type BoundaryDecision =
  /** Go on to the metered account; the row and the timeline name both. */
  | { kind: "cross"; from: string }
  /** Wait this long (the window resets within the wait-or-switch budget), then walk the targets again. */
  | { kind: "wait"; waitMs: number; from: string }
  /** Answer 429 window_exhausted; `retryAfterMs` until the earliest reset (null when none was stated). */
  | { kind: "stay"; retryAfterMs: number | null; from: string };

export interface BoundaryInput {
  choice: BillingBoundaryChoice;
  passed: readonly PassedWindow[];
  now: number;
  /** waitOrSwitch.maxWaitMs: the longest wait a request holds for a reset. */
  maxWaitMs: number;
  /** This request already waited once for a reset: it does not wait again. */
  waitedBefore: boolean;
}

/** null when no subscription window was passed over: the next account is no crossing. */
export function decideBoundary(input: BoundaryInput): BoundaryDecision | null {
  if (input.passed.length === 0) return null;
  const from = input.passed[0].connectionId;
  if (input.choice === "cross") return { kind: "cross", from };
  const resets = input.passed.map((p) => p.resetAt).filter((t): t is number => t !== null);
  // The earliest reset frees a subscription account first.
  const retryAfterMs = resets.length === 0 ? null : Math.max(0, Math.min(...resets) - input.now);
  if (input.choice === "wait" && !input.waitedBefore && retryAfterMs !== null && retryAfterMs <= input.maxWaitMs) return { kind: "wait", waitMs: retryAfterMs, from };
  return { kind: "stay", retryAfterMs, from };
}
