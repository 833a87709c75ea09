// What a coding agent's request is owed beyond the usual failover (R20.3, R20.4):
// - Background work (titles, suggestions, memory extraction) that meets a rate limit is shed
//   rather than failed over: moving it to a sibling would spend the quota the main turn needs next.
// - At a short 429 on the connection holding the session's warm prompt cache, waiting (the stream's
//   keep-alives go on) is cheaper than re-sending the whole prefix to a cold connection, as long as
//   the wait stays within waitOrSwitch.maxWaitMs; the choice and why go into the timeline.
// Pure decisions (no I/O, no clock): the gateway's traffic-class and warm-cache features ask them.
import type { ResilienceSettings } from "../../shared/resilienceSettings.js";
import type { TrafficClass, WaitOrSwitchRecord } from "../../shared/types.js";
import type { Verdict } from "./ports.js";

export type CodingAgentSettings = Pick<ResilienceSettings, "reasoningProvenance" | "trafficClasses" | "waitOrSwitch">;

/** Verdicts of a short-lived limit: a 429 whose cure is time. */
const RATE_LIMITED: ReadonlySet<Verdict["reason"]> = new Set(["rate_limit", "concurrency_limited"]);

export function isRateLimited(verdict: Verdict): boolean {
  return RATE_LIMITED.has(verdict.reason);
}

/** R20.3: how long a shed background request is told to wait, or null when it goes on as any request. */
export function decideShed(trafficClass: TrafficClass, settings: CodingAgentSettings, verdict: Verdict): { retryAfterMs: number } | null {
  if (trafficClass !== "background" || !settings.trafficClasses.enabled || !isRateLimited(verdict)) return null;
  return { retryAfterMs: verdict.retryHintMs ?? 1_000 };
}

export interface WarmFailure {
  trafficClass: TrafficClass;
  verdict: Verdict;
  connectionId: string;
  /** The connection holding the session's warm cache (null: none known). */
  warmConnectionId: string | null;
  /** How long the connection stays excluded after the failure (0: free now; null: excluded with no end, e.g. terminal). */
  blockedMs: number | null;
  /** What this request already waited for its warm cache. */
  waitedMs: number;
}

export interface WaitDecision {
  record: WaitOrSwitchRecord;
  waitMs: number;
}

/** R20.4: whether to wait for the warm connection or move on; null when the failure is no such case (not warm, not a 429). */
export function decideWaitOrSwitch(settings: CodingAgentSettings, f: WarmFailure): WaitDecision | null {
  if (f.warmConnectionId !== f.connectionId || !isRateLimited(f.verdict)) return null;
  const hintMs = f.verdict.retryHintMs;
  const waitMs = Math.max(f.blockedMs ?? Infinity, hintMs ?? 0);
  const left = settings.waitOrSwitch.maxWaitMs - f.waitedMs;
  const choose = (choice: "wait" | "switch", reason: string): WaitDecision => ({
    record: { choice, reason, connectionId: f.connectionId, hintMs, waitedMs: choice === "wait" ? waitMs : 0, maxWaitMs: settings.waitOrSwitch.maxWaitMs },
    waitMs: choice === "wait" ? waitMs : 0,
  });
  if (!settings.waitOrSwitch.enabled) return choose("switch", "disabled");
  if (f.trafficClass === "background") return choose("switch", "background");
  if (waitMs > left) return choose("switch", f.blockedMs === null ? "no_end_known" : "longer_than_max_wait");
  return choose("wait", "within_max_wait");
}
