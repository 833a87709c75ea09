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
      const wallTarget = new ClientBoundTarget(target.provider, connection, target.model, ctx.client);
      // R24.5: a login's account claims its reset with the login its request carries.
      const login = connection.accountOf === null ? null : (ctx.login?.secret ?? null);
      return callThroughUsageWall(deps, login === null ? wallTarget : { provider: target.provider, connection, signal: wallTarget.signal, login }, next);
    },
  };
}
