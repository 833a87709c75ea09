// Egress-bucketed rate limits (R12.5) as a feature: a 429 on a connection that leaves from a shared
// IP cools that IP's siblings too, right after the failing connection's own cooldown was set.
import type { EgressLock } from "./egress/siblingLock.js";
import type { RequestFeature } from "./feature.js";

export function egressFeature(lock: EgressLock): RequestFeature {
  return {
    name: "egress",
    afterAttempt(_ctx, { target, connection, result, probe }) {
      if (result.kind === "failure") lock({ provider: target.provider, connection, model: target.model, probe }, result.verdict);
      return null;
    },
  };
}
