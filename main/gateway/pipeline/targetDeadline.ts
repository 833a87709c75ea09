// A combo's `config.targetTimeoutMs` (API.md combos; issue 26 item 7): a per-target attempt
// deadline. An attempt on a target of the combo that has not begun answering the client within it
// is abandoned, and the combo moves on to its next target (the target's other connections are not
// tried in that pass). It bounds an attempt until its answer begins reaching the client: a JSON
// answer until its body has been read, a stream until its first content frame; what the client
// already receives is never cut by it (the attempt deadline, R13.6, and the stream watchdogs still
// apply). Failover treats it as an upstream timeout (the final answer, when every target ran out,
// is 504 upstream_timeout), but it is the combo's own impatience, not the provider's failure: the
// provider's breaker, the connection's cooldown and its lockouts do not count it (the gateway's own
// attempt deadline still does). The combo's router hears of it as a failed dispatch.
import type { AttemptEnded, Combo } from "../../../shared/types.js";
import { faultOf } from "../../engine/faults.js";
import type { Blocker } from "../../engine/comboWait.js";
import type { FailedAttempt } from "../context/outcome.js";
import type { AttemptContext, Clock, Verdict } from "../../engine/ports.js";
import type { Target } from "../context/resolve.js";
import type { ComboRouter } from "./routing/comboRouter.js";
import type { RequestRecord } from "../context/requestRecord.js";
import { Cancellation } from "../upstream/cancellation.js";

/** The client as a target deadline sees it: it may leave, and its answer may have begun. */
export interface AttemptClient {
  readonly departure: Cancellation;
  readonly outputStarted: boolean;
}

/** The attempt's cancellation: aborted when the client leaves, or when the target's deadline passes first. */
export class TargetDeadline extends Cancellation {
  /** Set when the deadline, not the client, stopped the attempt. */
  expired = false;
  private readonly timer: NodeJS.Timeout;
  private readonly offClient: () => void;

  constructor(
    private readonly client: AttemptClient,
    readonly ms: number,
  ) {
    super();
    this.offClient = client.departure.subscribe(() => this.abort());
    this.timer = setTimeout(() => this.fire(), ms);
    this.timer.unref();
  }

  /** The attempt is over: the timer and the client's listener go. */
  end(): void {
    clearTimeout(this.timer);
    this.offClient();
  }

  private fire(): void {
    if (this.client.outputStarted || this.client.departure.aborted) return;
    this.expired = true;
    this.abort();
  }
}

/** The deadline of the next attempt under `combo`, or null when its config sets none (0 or absent). */
export function targetDeadlineFor(combo: Combo | undefined, client: AttemptClient): TargetDeadline | null {
  const ms = combo?.config.targetTimeoutMs;
  return typeof ms === "number" && ms > 0 ? new TargetDeadline(client, ms) : null;
}

/** What the final answer says when every target ran out of its deadline: an upstream timeout. */
export function targetTimeoutVerdict(target: Target, ms: number): Verdict {
  return {
    reason: "timeout",
    scope: "request",
    status: 504,
    retryHintMs: null,
    breakerEligible: false,
    failover: true,
    terminal: null,
    cooldownMs: null,
    message: `${target.provider.id}/${target.model} did not begin to answer within the combo's config.targetTimeoutMs (${ms} ms)`,
  };
}

export interface AbandonDeps {
  clock: Clock;
  routing?: { router: ComboRouter };
}

/** The part of a request's run that an abandoned target changes. */
export interface AbandoningRun {
  client: { record: Pick<RequestRecord, "attempted"> };
  lastVerdict: Verdict | null;
  failures: Blocker[];
  failed: FailedAttempt[];
  /** Read by the pass over the targets: the rest of this target's connections are passed over. */
  abandonTarget?: boolean;
  session: { key: string | null } | null;
}

/** Records an attempt its target's deadline stopped (neutral for the engine: its slot frees the probe) and moves the pass to the next target. */
export function abandonTimedOutTarget(
  deps: AbandonDeps,
  run: AbandoningRun,
  attempt: { ctx: AttemptContext; target: Target; combo: string | null; startedAt: number; deadline: TargetDeadline; ended: AttemptEnded },
): void {
  const { ctx, target, combo, startedAt, deadline, ended } = attempt;
  const now = deps.clock.now();
  run.client.record.attempted({
    provider: ctx.provider.id,
    connectionId: ctx.connection.id,
    model: ctx.model,
    status: null,
    verdict: "target_timeout",
    latencyMs: now - startedAt,
    ended,
    fault: faultOf("target_timeout", ended, false),
  });
  run.lastVerdict = targetTimeoutVerdict(target, deadline.ms);
  // Like an upstream timeout: not a short transient wait (R11.4), not an auth or quota skip (R11.5).
  run.failures.push({ reason: "timeout", remainingMs: null, hintMs: null });
  run.failed.push({ verdict: run.lastVerdict, target: `${target.provider.id}/${target.model}`, upstreamShouldRetry: null });
  if (combo) deps.routing?.router.settled(combo, target, ctx.connection.id, { ok: false, ttfbMs: now - startedAt }, now, run.session?.key ?? null);
  run.abandonTarget = true;
}
