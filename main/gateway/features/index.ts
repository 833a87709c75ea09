// The request features in their one order (feature.ts documents the hooks). The order matters where
// hooks compose: a Responses turn rewrites the body before it is classed; the side effects of a
// failed attempt (egress siblings, tool limits) happen before a decision ends the walk; a login's
// account takes its connection's place before the key's connections, budgets and leases narrow the
// list, and quota cutoff orders what is left; a continuation's prefix is added before foreign
// reasoning is stripped from what is sent.
import type { Connection, RequestLogEntry } from "../../../shared/types.js";
import type { AnswerHooks, RequestContext } from "../context/requestContext.js";
import type { FinalError } from "../context/outcome.js";
import type { AttemptOutcome, RequestPlan, SelectionLog } from "../context/attempt.js";
import type { SendCall, UpstreamCall } from "../upstream/call.js";
import type { Target } from "../context/resolve.js";
import type { AfterAttempt, AttemptReport, AttemptTarget, BeforeSend, CandidateScope, OwnAnswer, RequestFeature } from "./feature.js";

export type { AfterAttempt, AttemptReport, AttemptTarget, BeforeSend, CandidateScope, OwnAnswer, RequestFeature } from "./feature.js";

/** The order features are listed in (features absent from a build are skipped). */
export const FEATURE_ORDER = [
  "responses-turns",
  "egress",
  "tool-limits",
  "traffic-classes",
  "client-logins",
  "context-fit",
  "lease-narrowing",
  "key-budgets",
  "lease-holders",
  "quota-cutoff",
  "warm-cache",
  "billing-boundary",
  "continuation",
  "provenance",
  "usage-wall",
] as const;

type Hook = keyof Omit<RequestFeature, "name">;

/** The hooks in the order a request meets them (feature.ts documents each; DESIGN.md lists them). */
export const HOOK_ORDER = [
  "arrive",
  "planned",
  "candidates",
  "beforeSend",
  "beforeAttempt",
  "send",
  "outcome",
  "afterAttempt",
  "answer",
  "frame",
  "finish",
] as const satisfies readonly Hook[];

/** The features of one gateway, each hook's callers listed once so a request walks only those. */
export class RequestFeatures {
  readonly all: readonly RequestFeature[];
  private readonly by: { [H in Hook]: RequestFeature[] };

  constructor(features: readonly RequestFeature[]) {
    const rank = (f: RequestFeature) => {
      const at = (FEATURE_ORDER as readonly string[]).indexOf(f.name);
      return at === -1 ? FEATURE_ORDER.length : at;
    };
    this.all = [...features].sort((a, b) => rank(a) - rank(b));
    const having = (hook: Hook) => this.all.filter((f) => f[hook] !== undefined);
    this.by = {
      arrive: having("arrive"),
      planned: having("planned"),
      candidates: having("candidates"),
      outcome: having("outcome"),
      beforeSend: having("beforeSend"),
      beforeAttempt: having("beforeAttempt"),
      send: having("send"),
      afterAttempt: having("afterAttempt"),
      answer: having("answer"),
      frame: having("frame"),
      finish: having("finish"),
    };
  }

  /** The first refusal of an arrival hook, or null when every feature let the request in. */
  arrive(ctx: RequestContext): FinalError | null {
    for (const f of this.by.arrive) {
      const refusal = f.arrive!(ctx);
      if (refusal) return refusal;
    }
    return null;
  }

  /** The first refusal of a `planned` hook, or null; every hook before it narrowed the plan. */
  planned(ctx: RequestContext, plan: RequestPlan, selection: SelectionLog): FinalError | null {
    for (const f of this.by.planned) {
      const refusal = f.planned!(ctx, plan, selection);
      if (refusal) return refusal;
    }
    return null;
  }

  /** One target's connections through every feature that filters or orders them, in the engine's order to start with. */
  candidates(ctx: RequestContext, target: Target, list: Connection[], scope: CandidateScope): Connection[] {
    for (const f of this.by.candidates) list = f.candidates!(ctx, target, list, scope);
    return list;
  }

  /** The first feature that answers an attempt's outcome itself, or null. */
  outcome(ctx: RequestContext, attempt: AttemptTarget, outcome: AttemptOutcome): OwnAnswer | null {
    for (const f of this.by.outcome) {
      const answer = f.outcome!(ctx, attempt, outcome);
      if (answer) return answer;
    }
    return null;
  }

  /** The first decision a feature makes before the attempt is sent, or null. */
  beforeSend(ctx: RequestContext, attempt: AttemptTarget, selection: SelectionLog): BeforeSend {
    for (const f of this.by.beforeSend) {
      const decision = f.beforeSend!(ctx, attempt, selection);
      if (decision) return decision;
    }
    return null;
  }

  beforeAttempt(ctx: RequestContext, attempt: AttemptTarget, body: Record<string, unknown>): Record<string, unknown> {
    for (const f of this.by.beforeAttempt) body = f.beforeAttempt!(ctx, attempt, body);
    return body;
  }

  /** The call through every feature that wraps it, the first listed outermost. */
  send(ctx: RequestContext, attempt: AttemptTarget, send: SendCall): Promise<UpstreamCall> {
    const wrappers = this.by.send;
    const through = (i: number): SendCall => (i === wrappers.length ? send : (extra) => wrappers[i].send!(ctx, attempt, (more) => through(i + 1)({ ...extra, ...more })));
    return wrappers.length === 0 ? send(undefined) : through(0)(undefined);
  }

  /** The first decision a feature makes after the attempt, or null. */
  afterAttempt(ctx: RequestContext, report: AttemptReport): AfterAttempt {
    for (const f of this.by.afterAttempt) {
      const decision = f.afterAttempt!(ctx, report);
      if (decision) return decision;
    }
    return null;
  }

  /** The writer's hooks for this request, or null when no feature listens to answers (no cost then). */
  answerHooks(ctx: RequestContext): AnswerHooks | null {
    const { answer, frame, finish } = this.by;
    if (answer.length === 0 && frame.length === 0 && finish.length === 0) return null;
    return {
      answer: (body) => {
        for (const f of answer) body = f.answer!(ctx, body);
        return body;
      },
      frame: (text, frames) => {
        for (const f of frame) f.frame!(ctx, text, frames);
      },
      finished: (row: RequestLogEntry) => {
        for (const f of finish) f.finish!(ctx, row);
      },
    };
  }
}
