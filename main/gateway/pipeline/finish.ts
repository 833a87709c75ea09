// Stage "next target or finish": after an attempt, answer the client or go on; when no attempt
// answered, the terminal verdict (R11.5) from the last failure or from what selection skipped.
import { ERROR_CODES, type ErrorCode } from "../../../shared/errorCodes.js";
import type { Clock, Verdict } from "../../engine/ports.js";
import { errorFromExclusions, errorFromFailures, errorFromVerdict, passesSoon, type FailedAttempt, type FinalError } from "../context/outcome.js";
import type { ConnectionsPort } from "../context/ports.js";
import type { ClientResponse } from "../context/clientResponse.js";
import type { AttemptOutcome } from "./attempt.js";
import { upstreamShouldRetry, type AttemptResult } from "./record.js";
import type { SelectionLog } from "./select.js";
import type { RecoveryPolicy } from "../context/attempt.js";

export type Step = "answered" | "next";

export type { RecoveryPolicy } from "../context/attempt.js";

/** Answers the client when this attempt decides the request; "next" lets the loop go on. */
export function settleAttempt(client: ClientResponse, outcome: AttemptOutcome, result: AttemptResult, policy: RecoveryPolicy): Step {
  if (result.kind === "client_gone") {
    client.clientClosed();
    return "answered";
  }
  if (result.kind === "success") {
    const usage = "usage" in outcome ? outcome.usage : null;
    if (outcome.kind === "json") client.sendJson(outcome.body, usage);
    else client.endStream(usage);
    return "answered";
  }
  const { verdict } = result;
  switch (outcome.kind) {
    case "failed_after_output": {
      const code: ErrorCode = outcome.code === "stream_transport_error" || outcome.code === "stream_error_event" ? "upstream_stream_error" : outcome.code;
      // R21.4: the detail of a used-up window is the upstream's error body; the client reads what happened.
      const why = outcome.code === "window_exhausted" ? `the account's usage window ran out (${verdict.message})` : outcome.detail;
      client.failAfterOutput(code, `Upstream stream failed after output began: ${why}`, outcome.usage, windowWait(verdict, code));
      return "answered";
    }
    case "failed_before_output": {
      const eofSpent = outcome.code === "STREAM_EARLY_EOF" && policy.earlyEofRetries.spent++ >= 1;
      // R25.4: an error event is judged as its class: one that must not fail over (a bad request) answers now.
      const stays = outcome.code === "stream_error_event" && !verdict.failover;
      if (policy.recoveryEnabled && !eofSpent && !stays) return "next";
      client.fail(errorFromVerdict(verdict, null));
      return "answered";
    }
    case "upstream_error":
      if (verdict.failover) return "next";
      passUpstreamError(client, verdict, outcome);
      return "answered";
    default:
      return "next";
  }
}

/** R24.4: a window that ran out mid-stream names its reset in the error event, as its 429 would. */
function windowWait(verdict: Verdict, code: ErrorCode): FinalError | null {
  if (!verdict.window) return null;
  // The rest the engine gave the account ends at the window's reset (R21.4).
  return { status: 429, code, message: verdict.message, retryAfterMs: verdict.cooldownMs, noRetry: false, window: { name: verdict.window.name } };
}

/** A verdict that must not fail over (bad request, context overflow): the client sees it now. */
function passUpstreamError(client: ClientResponse, verdict: Verdict, outcome: Extract<AttemptOutcome, { kind: "upstream_error" }>): void {
  const final = errorFromVerdict(verdict, null);
  if (outcome.upstreamFormat === client.format && outcome.bodyText.trim().startsWith("{")) {
    client.passUpstreamError(final, outcome.bodyText, verdict.reason, upstreamShouldRetry(outcome, client.format));
    return;
  }
  client.fail(final);
}

export interface UnansweredDeps {
  connections: ConnectionsPort;
  clock: Clock;
}

/** Earliest instant (ms from now) at which a connection of the tried providers leaves its cooldown. */
export function earliestRecoveryMs(deps: UnansweredDeps, providers: Set<string>): number | null {
  const now = deps.clock.now();
  let best: number | null = null;
  for (const id of providers) {
    for (const c of deps.connections.listByProvider(id)) {
      if (c.rateLimitedUntil && c.rateLimitedUntil > now) best = best === null ? c.rateLimitedUntil - now : Math.min(best, c.rateLimitedUntil - now);
    }
  }
  return best;
}

/** What a request that no attempt answered has seen on its last pass over the targets. */
export interface Unanswered {
  lastVerdict: Verdict | null;
  /** Each failed attempt of the pass, in order (R25.6). */
  failed: readonly FailedAttempt[];
  selection: SelectionLog;
}

/**
 * No attempt answered: when attempts failed, R25.6's precedence over them decides (the last 429,
 * else 401/403, else 404, else the server-side failure naming how many targets were tried); with no
 * attempt, what selection excluded (R11.5: a combo skipped only on auth, quota or not-found is
 * ALL_TARGETS_SKIPPED).
 */
export function terminalError(deps: UnansweredDeps, unanswered: Unanswered, targetCount: number, isCombo: boolean): FinalError {
  const { lastVerdict, failed, selection } = unanswered;
  const earliest = () => earliestRecoveryMs(deps, selection.triedProviders);
  const fromFailures = failed.length > 0 ? errorFromFailures(failed, earliest()) : null;
  if (fromFailures) return fromFailures;
  if (lastVerdict) return errorFromVerdict(lastVerdict, earliest());
  return errorFromExclusions(selection.exclusions, targetCount, isCombo, selection.connectionCounts);
}

/** R18.4: a key over its budget is refused until its period ends, before anything goes upstream. */
export function keyBudgetExceeded(retryAfterMs: number): FinalError {
  return {
    status: ERROR_CODES.budget_exceeded.status,
    code: "budget_exceeded",
    retryAfterMs,
    // R25.6: a budget resets at its period's end, not soon.
    noRetry: !passesSoon(retryAfterMs),
    message: "This API key has used its budget for the period; it resets at the period's end",
  };
}
