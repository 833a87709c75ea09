// One request's timeline and the connect page's "last request seen from each client" (issue 14).
import type { ClientActivity } from "../../shared/apiTypes.js";
import { notFound } from "./errors.js";
import { type DepsWith, type HandlersFor } from "./handlerTypes.js";

export function createLogHandlers(deps: DepsWith<"logs">): HandlersFor<"getLog" | "listClientActivity"> {
  const { store } = deps;
  return {
    getLog({ id }) {
      const entry = store.logs.get(id);
      if (!entry) throw notFound("request", id);
      return entry;
    },

    listClientActivity() {
      const items: ClientActivity[] = store.logs
        .latestPerClient()
        .filter((e) => e.clientKind !== undefined)
        .map((e) => ({ kind: e.clientKind!, lastSeenAt: e.time, requestId: e.id, model: e.model, status: e.status, clientFormat: e.clientFormat }))
        .sort((a, b) => b.lastSeenAt - a.lastSeenAt);
      return { items };
    },
  };
}
