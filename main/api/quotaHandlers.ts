// GET /api/usage/quotas (R18.3): what the upstreams' rate-limit and subscription headers last said,
// each window with its length, who burned it (from the store) and its pace as of now (R21.6).
import { quotaPace } from "../../shared/quotaPace.js";
import type { Clock } from "../engine/ports.js";
import type { Store } from "../store/index.js";
import type { HandlersFor } from "./handlerTypes.js";

export function createQuotaHandlers(deps: { store: Pick<Store, "quotas">; clock?: Pick<Clock, "now"> }): HandlersFor<"listQuotas"> {
  return {
    listQuotas: () => {
      // The engine's clock: the test clock moves windows' resets and their readings alike.
      const now = deps.clock?.now() ?? Date.now();
      return {
        items: deps.store.quotas
          .list()
          .map((q) => ({ ...q, windowMs: q.windowMs ?? null, pace: quotaPace({ ...q, windowMs: q.windowMs ?? null }, now), sessions: q.sessions ?? [] })),
      };
    },
  };
}
