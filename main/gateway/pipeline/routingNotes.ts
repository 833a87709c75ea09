// What routing learns from each attempt: the quota meters and learned quotas hear its headers,
// and a combo's router its outcome and time to first byte (R11.1, R4.10, R18.3).
import type { AttemptContext, Clock } from "../../engine/ports.js";
import type { Target } from "../context/resolve.js";
import type { ComboRouter } from "./routing/comboRouter.js";
import type { LearnedQuotas } from "./routing/learnedQuota.js";
import type { QuotaObserver } from "../context/usage/quotaHeaders.js";
import type { AttemptOutcome } from "./attempt.js";
import { upstreamHeadersOf, type AttemptResult } from "./record.js";

export interface RoutingNotesDeps {
  clock: Clock;
  quotas?: QuotaObserver;
  routing?: { router: ComboRouter; quotas: LearnedQuotas };
}

export interface AttemptNote {
  /** The combo the attempt was a target of (null: none, or routing off). */
  combo: string | null;
  ctx: AttemptContext;
  target: Target;
  outcome: AttemptOutcome;
  result: AttemptResult;
  startedAt: number;
  sessionKey: string | null;
  /** R20.3: the request's traffic class; with the session key, who a window's rise is charged to (R21.6). */
  trafficClass?: string;
}

/** Learned quotas and the quota meters hear of every attempt, a combo's book of its own (R11.1, R4.10, R18.3). */
export function noteForRouting(deps: RoutingNotesDeps, note: AttemptNote): void {
  const { ctx, outcome, result } = note;
  const now = deps.clock.now();
  const headers = upstreamHeadersOf(outcome);
  if (headers) deps.quotas?.observe(ctx.connection.id, ctx.provider.id, headers, now, { session: note.sessionKey, trafficClass: note.trafficClass ?? "main" });
  if (!deps.routing) return;
  // R4.10: the sample is the time to the upstream's first byte, not the whole (streamed) answer.
  // R25.2: a prompt too long for the target's window says nothing of the target's health.
  const neutral = result.kind === "client_gone" || (result.kind === "failure" && result.verdict.reason === "context_overflow");
  const settled = neutral ? null : { ok: result.kind === "success", ttfbMs: (outcome.firstByteAt ?? now) - note.startedAt };
  if (note.combo) deps.routing.router.settled(note.combo, note.target, ctx.connection.id, settled, now, note.sessionKey);
  if (headers) deps.routing.quotas.learn(ctx.provider.id, ctx.connection.id, ctx.model, headers, now);
}
