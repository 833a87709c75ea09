// A request feature (R22, DESIGN.md "One request, end to end"): one file under features/, declaring
// the hooks it uses. The pipeline calls them in one documented order, for every route:
//   arrive(ctx)                       the request arrived (session, class, a Responses turn…); may refuse it
//   planned(ctx, plan, selection)     its targets are known (a learned tool limit narrows them; a name only a
//                                     login provider takes needs a login)
//   candidates(ctx, target, list, scope) the connections one target may try, in the engine's order: filter
//                                     and order them, choose their credential (client logins, lease narrowing,
//                                     connection budgets, quota cutoff)
//   beforeSend(ctx, attempt, selection) an attempt is about to go to this connection: stop the request, or
//                                     wait and walk the targets again (R21.5: the billing boundary)
//   beforeAttempt(ctx, attempt, body) the body one connection is sent (provenance strip, a continuation's prefix)
//   send(ctx, attempt, next)          the upstream call, wrapped (the usage wall's lane)
//   outcome(ctx, attempt, outcome)    what came back, before it is classified: a feature that owns it answers the
//                                     request itself, nothing is recorded and nothing cools (a refused login)
//   afterAttempt(ctx, report)         an attempt was recorded: shed the request, retry the same connection
//                                     after a wait, resume a broken stream elsewhere, leave the target, or nothing
//   answer(ctx, body) → body          the JSON answer before it is written (a compaction reshapes it)
//   frame(ctx, text, frames)          every text the client receives (a JSON answer, stream frames with their data)
//   finish(ctx, row)                  the request's log row was written
// Features run in the order of features/index.ts; the first afterAttempt decision wins.
import type { Connection, RequestLogEntry } from "../../../shared/types.js";
import type { RequestContext } from "../context/requestContext.js";
import type { FinalError } from "../context/outcome.js";
import type { AttemptOutcome, AttemptResult, RequestPlan, SelectionLog } from "../context/attempt.js";
import type { OutFrame } from "../formats/types.js";
import type { Target } from "../context/resolve.js";
import type { SendCall, UpstreamCall } from "../upstream/call.js";
import type { CandidateScope } from "../context/candidates.js";
export type { CandidateScope } from "../context/candidates.js";

/** One attempt: the target and the connection it is sent to. */
export interface AttemptTarget {
  target: Target;
  connection: Connection;
  /** Admitted as its provider's HALF_OPEN probe. */
  probe: boolean;
}

/** A recorded attempt: what came back and what the classifier made of it. */
export interface AttemptReport extends AttemptTarget {
  outcome: AttemptOutcome;
  result: AttemptResult;
}

/** What a feature decides after an attempt; null leaves the request to the usual failover. */
export type AfterAttempt =
  /** The request ends now with this error (R20.3: background work met a rate limit). */
  | { kind: "shed"; error: FinalError }
  /** Wait, then try the same connection again, re-checked (R20.4: the session's warm cache). */
  | { kind: "retry_same"; waitMs: number }
  /** The stream broke after output: the next candidate is asked for the rest (R13.3). */
  | { kind: "resume" }
  /** The target's other connections would fail the same way: go on with the next target (R25.2: its window is too small). */
  | { kind: "leave_target" }
  | null;

/** What a feature decides before an attempt is sent; null lets it go. */
export type BeforeSend =
  /** The request ends now with this error (R21.5: the billing boundary says stay). */
  | { kind: "stop"; error: FinalError }
  /** Wait, then walk the targets again from the first (R21.5: a window resets soon). */
  | { kind: "walk_again"; waitMs: number }
  | null;

/** A feature's own answer to an attempt's outcome (R21.1: the vendor refused the client's own login). */
export interface OwnAnswer {
  error: FinalError;
  /** The request log's verdict for the attempt. */
  verdict: string;
  /** The upstream's own error JSON, passed to the client when its format is the client's. */
  upstreamBody?: string;
}

export interface RequestFeature {
  readonly name: string;
  beforeSend?(ctx: RequestContext, attempt: AttemptTarget, selection: SelectionLog): BeforeSend;
  arrive?(ctx: RequestContext): FinalError | null;
  /** May narrow the plan's targets, or refuse the request (a name only a login makes servable, R24.2). */
  planned?(ctx: RequestContext, plan: RequestPlan, selection: SelectionLog): FinalError | null | void;
  candidates?(ctx: RequestContext, target: Target, list: Connection[], scope: CandidateScope): Connection[];
  outcome?(ctx: RequestContext, attempt: AttemptTarget, outcome: AttemptOutcome): OwnAnswer | null;
  beforeAttempt?(ctx: RequestContext, attempt: AttemptTarget, body: Record<string, unknown>): Record<string, unknown>;
  send?(ctx: RequestContext, attempt: AttemptTarget, next: SendCall): Promise<UpstreamCall>;
  afterAttempt?(ctx: RequestContext, report: AttemptReport): AfterAttempt;
  answer?(ctx: RequestContext, body: unknown): unknown;
  frame?(ctx: RequestContext, text: string, frames: readonly OutFrame[]): void;
  finish?(ctx: RequestContext, row: RequestLogEntry): void;
}
