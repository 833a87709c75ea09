// Context windows (R25.1, R25.2) as a feature. Before dispatch, a target whose known window is
// smaller than the prompt is skipped (`context_too_small`) while a target with a larger or unknown
// window remains after it; when none remains it is tried (the estimate is a hint). A context
// refusal teaches the target's window, leaves the target (its other connections serve the same
// model), and lets the walk go on to a larger window; the targets no larger than one that refused
// are skipped. When nothing is left, the request's last verdict is the refusal, which the client
// gets as its own vendor's context error (context/outcome.ts), so the agent compacts. A success
// proves its input fits, so a learned window never shrinks below it. A subscription is passed over
// for its window only where the billing boundary lets the request cross (R21.5, boundaryGuard).
import { windowFromRefusal } from "../../engine/contextWindows.js";
import type { Connection } from "../../../shared/types.js";
import { ContextVar, type RequestContext } from "../context/requestContext.js";
import type { Target } from "../context/resolve.js";
import type { BoundaryGuard } from "./billingBoundary.js";
import type { ModelWindows } from "./contextFit/windows.js";
import type { AttemptReport, CandidateScope, RequestFeature } from "./feature.js";

/** What refusals of this request taught: its size in tokens and the largest window that refused it. */
interface Refused {
  tokens: number;
  window: number;
}

const REFUSED = new ContextVar<Refused>("context-fit.refused");

/** Whether a target after `target` in the plan has a window larger than `window`, or an unknown one. */
function largerRemains(ctx: RequestContext, target: Target, window: number, windows: ModelWindows): boolean {
  const targets = ctx.plan.targets;
  for (let i = targets.indexOf(target) + 1; i > 0 && i < targets.length; i++) {
    const other = windows.windowOf(targets[i].provider, targets[i].model);
    if (other === null || other > window) return true;
  }
  return false;
}

/** Whether this target is to be passed over for its window. */
function tooSmall(ctx: RequestContext, target: Target, windows: ModelWindows): boolean {
  const window = windows.windowOf(target.provider, target.model);
  const refused = ctx.get(REFUSED);
  if (window === null) return false;
  // A window no larger than one that refused this request will refuse it too.
  if (refused && window <= refused.window) return true;
  // A body shorter in characters than the window fits it (a token is several characters): no estimate needed.
  if (!refused && ctx.bodyText !== undefined && ctx.bodyText.length <= window) return false;
  const tokens = Math.max(ctx.inputTokens(), refused?.tokens ?? 0);
  return tokens > window && largerRemains(ctx, target, window, windows);
}

/** A context refusal: learn the window, remember the request's size, name both for the client's error. */
function refused(ctx: RequestContext, { target, result }: AttemptReport, windows: ModelWindows): void {
  if (result.kind !== "failure") return;
  const verdict = result.verdict;
  const stated = verdict.context ?? { tokens: null, window: null };
  const tokens = stated.tokens ?? ctx.inputTokens();
  const learned = windows.learn(target.provider, target.model, windowFromRefusal(stated, tokens));
  const before = ctx.get(REFUSED);
  ctx.set(REFUSED, { tokens: Math.max(tokens, before?.tokens ?? 0), window: Math.max(learned, before?.window ?? 0) });
  verdict.context = { tokens, window: stated.window ?? learned };
}

export function contextFitFeature(windows: ModelWindows, boundary?: BoundaryGuard): RequestFeature {
  return {
    name: "context-fit",
    candidates(ctx: RequestContext, target: Target, list: Connection[], scope: CandidateScope): Connection[] {
      if (list.length === 0 || ctx.count || !tooSmall(ctx, target, windows)) return list;
      if (boundary && !boundary.mayPassOver(ctx, target, list)) return list;
      scope.log.exclusions.push({ target: scope.label, reason: "context_too_small", remainingMs: null, provider: target.provider.id });
      return [];
    },
    afterAttempt(ctx, report) {
      const { result, outcome } = report;
      if (result.kind === "failure" && result.verdict.reason === "context_overflow") {
        refused(ctx, report, windows);
        boundary?.refusedForContext(ctx, report.target, report.connection, result.verdict);
        return { kind: "leave_target" };
      }
      if (result.kind === "success" && !ctx.count && "usage" in outcome) {
        const input = outcome.usage.inputTokens;
        if (typeof input === "number" && input > 0) windows.served(report.target.provider, report.target.model, input);
      }
      return null;
    },
  };
}
