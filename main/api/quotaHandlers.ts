// GET /api/usage/quotas (R18.3): what the upstreams' rate-limit and subscription headers last said.
import type { Store } from "../store/index.js";
import type { HandlersFor } from "./handlerTypes.js";

export function createQuotaHandlers(deps: { store: Pick<Store, "quotas"> }): HandlersFor<"listQuotas"> {
  return {
    listQuotas: () => ({ items: deps.store.quotas.list() }),
  };
}
