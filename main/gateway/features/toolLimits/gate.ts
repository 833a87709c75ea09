// The request side of dynamic tool-limit detection (R11.7): count the tools a request carries,
// teach the engine's ToolLimits from a `tool_limit` refusal, and keep later requests above a
// learned limit off that provider and model (an exclusion, not an attempt).
import type { WireFormat } from "../../../../shared/types.js";
import type { Verdict } from "../../../engine/ports.js";
import { clientHalf } from "../../formats/index.js";
import { limitFromRefusal, type ToolLimits } from "../../../engine/toolLimits.js";
import type { Target } from "../../context/resolve.js";
import type { RequestPlan, SelectionLog } from "../../context/attempt.js";

interface GateRun {
  request: { format: WireFormat; body: Record<string, unknown> };
  plan: RequestPlan;
  selection: SelectionLog;
}

/**
 * Drops the targets whose learned limit this request exceeds, as exclusions. When that would
 * leave nothing, the plan stays whole: the upstream's own refusal says more than "no target".
 */
export function skipTargetsOverToolLimit(run: GateRun, limits: ToolLimits | undefined): void {
  const count = clientHalf(run.request.format).toolCount(run.request.body);
  if (!limits || count === 0) return;
  const within = run.plan.targets.filter((t) => limits.allows(t.provider.id, t.model, count));
  if (within.length === run.plan.targets.length || within.length === 0) return;
  for (const t of run.plan.targets) {
    if (!within.includes(t)) run.selection.exclusions.push({ target: `${t.provider.id}/${t.model}`, reason: "tool_limit", remainingMs: null, provider: t.provider.id });
  }
  run.plan.targets = within;
}

/** After a failed attempt: a too-many-tools refusal teaches the target's limit. */
export function learnToolLimit(limits: ToolLimits | undefined, target: Target, run: Pick<GateRun, "request">, verdict: Verdict): void {
  if (!limits || verdict.reason !== "tool_limit") return;
  const sent = clientHalf(run.request.format).toolCount(run.request.body);
  if (sent > 0) limits.learn(target.provider.id, target.model, limitFromRefusal(sent, verdict.statedToolLimit ?? null));
}
