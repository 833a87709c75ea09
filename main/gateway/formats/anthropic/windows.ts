// R21.4, R4.3: what Anthropic's rate-limit headers say for routing.
// - Unified (subscription) windows: `anthropic-ratelimit-unified-status: rejected` (the claimed
//   window's, named by `-representative-claim`), or a window's own `-unified-<w>-status: rejected` /
//   `-<w>-utilization` ≥ 1 (w = 5h, 7d, 7d_opus, 7d_sonnet; a suffixed one is the model family's own).
// - Count windows' resets (`anthropic-ratelimit-<w>-reset`, not unified): the wait a burst limit asks
//   for. The unified resets say when a window starts over, which is its own verdict, not a hint.
// quota.ts reads the same families for display.
import { longestReset, parseResetAt, type Headers, type RetryHint } from "../../../engine/retryHints.js";
import { WINDOW_NAME, windowLengthMs, type ExhaustedWindow, type WindowSignals } from "../../../engine/subscriptionWindows.js";
import { finiteNumber, lowerCaseEntries } from "../headerEntries.js";

/** `representative-claim` values, as the window names the per-window headers use. */
export const CLAIM_WINDOWS: Readonly<Record<string, string>> = {
  five_hour: "5h",
  seven_day: "7d",
  seven_day_opus: "7d_opus",
  seven_day_sonnet: "7d_sonnet",
};

const PREFIX = "anthropic-ratelimit-";
const UNIFIED = "anthropic-ratelimit-unified-";
const UNIFIED_FIELD = /^(.+)-(utilization|reset|status)$/;

interface UnifiedWindowState {
  status: string | null;
  utilization: number | null;
  resetAt: number | null;
}

export function unifiedSignals(headers: Headers): WindowSignals {
  const windows = new Map<string, UnifiedWindowState>();
  const overall: { status: string | null; resetAt: number | null; claim: string | null } = { status: null, resetAt: null, claim: null };
  const entries = lowerCaseEntries(headers, UNIFIED);
  for (const [rest, value] of entries) {
    if (rest === "status") overall.status = value.toLowerCase();
    else if (rest === "reset") overall.resetAt = parseResetAt(value);
    else if (rest === "representative-claim") overall.claim = CLAIM_WINDOWS[value] ?? value;
    else {
      const m = UNIFIED_FIELD.exec(rest);
      if (!m || !WINDOW_NAME.test(m[1])) continue;
      let w = windows.get(m[1]);
      if (!w) windows.set(m[1], (w = { status: null, utilization: null, resetAt: null }));
      if (m[2] === "status") w.status = value.toLowerCase();
      else if (m[2] === "reset") w.resetAt = parseResetAt(value);
      else w.utilization = finiteNumber(value);
    }
  }
  const exhausted: ExhaustedWindow[] = [];
  const add = (name: string, resetAt: number | null) => {
    if (exhausted.some((e) => e.name === name)) return;
    const family = WINDOW_NAME.exec(name)?.[3];
    exhausted.push({ name, resetAt, windowMs: windowLengthMs(name), modelScoped: family !== undefined });
  };
  for (const [name, w] of windows) if (w.status === "rejected" || (w.utilization !== null && w.utilization >= 1)) add(name, w.resetAt);
  if (overall.status === "rejected") {
    const claimed = overall.claim ?? (exhausted.length > 0 ? null : "unified");
    if (claimed !== null) add(claimed, overall.resetAt ?? windows.get(claimed)?.resetAt ?? null);
  }
  return { windowHeaders: entries.length > 0, exhausted };
}

/** The longest count-window reset Anthropic states: when every used-up count window has started over. */
export function anthropicRetryHint(headers: Headers, now: number): RetryHint | null {
  const ms = longestReset(headers, (n) => n.startsWith(PREFIX) && n.endsWith("-reset") && !n.startsWith(UNIFIED), now);
  return ms === null ? null : { ms, source: "anthropic-ratelimit-reset" };
}
