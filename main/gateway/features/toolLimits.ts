// Dynamic tool limits (R11.7) as a feature: once the targets are planned, those whose learned limit
// this request exceeds are excluded; a too-many-tools refusal teaches the target's limit.
import type { ToolLimits } from "../../engine/toolLimits.js";
import { learnToolLimit, skipTargetsOverToolLimit } from "./toolLimits/gate.js";
import type { RequestFeature } from "./feature.js";

export function toolLimitsFeature(limits: ToolLimits): RequestFeature {
  return {
    name: "tool-limits",
    planned(ctx, plan, selection) {
      skipTargetsOverToolLimit({ request: { format: ctx.format, body: ctx.body }, plan, selection }, limits);
    },
    afterAttempt(ctx, { target, result }) {
      if (result.kind === "failure") learnToolLimit(limits, target, { request: { format: ctx.format, body: ctx.body } }, result.verdict);
      return null;
    },
  };
}
