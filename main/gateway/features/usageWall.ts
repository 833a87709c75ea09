// The Claude usage wall (R12.6) as a feature: the call of a connection that opted in goes through
// the session-limit reset and the slow lane; whatever the wall does not absorb is the call's answer.
import { ClientBoundTarget } from "../context/admissionRequest.js";
import { callThroughUsageWall, type UsageWallDeps } from "./usageWall/lane.js";
import type { RequestFeature } from "./feature.js";

export function usageWallFeature(deps: UsageWallDeps): RequestFeature {
  return {
    name: "usage-wall",
    send(ctx, { target, connection }, next) {
      // The wall's waits need the client's signal; the call itself is stopped by its own cancellation.
      return callThroughUsageWall(deps, new ClientBoundTarget(target.provider, connection, target.model, ctx.client), next);
    },
  };
}
