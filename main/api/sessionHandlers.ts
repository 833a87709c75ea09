// Session pins and exclusive leases for the dashboard (R7, issue 9 item 8): read-only lists with
// an operator unpin and force-release. Lease rows name the connection, generation and key; the
// owner token exists nowhere and its hash is not shown either.
import type { SessionLeaseItem, SessionPinItem } from "../../shared/apiTypes.js";
import type { HandlersFor } from "./handlerTypes.js";
import type { LeaseBook } from "../engine/leases.js";
import type { SessionPins } from "../engine/sessionAffinity.js";
import type { Store } from "../store/index.js";

export interface SessionHandlerDeps {
  pins: SessionPins;
  leases: LeaseBook;
  store: Pick<Store, "connections" | "apiKeys">;
}

export function createSessionHandlers(deps: SessionHandlerDeps): HandlersFor<"listSessionPins" | "unpinSession" | "listSessionLeases" | "releaseSessionLease"> {
  const connectionName = (id: string) => deps.store.connections.get(id)?.name ?? null;
  return {
    listSessionPins: () => ({
      items: deps.pins.list().map((p): SessionPinItem => ({
        sessionKey: p.sessionKey,
        provider: p.provider,
        connectionId: p.connectionId,
        connectionName: connectionName(p.connectionId),
        expiresAt: p.expiresAt,
        lastUsedAt: p.lastUsedAt,
      })),
    }),
    unpinSession: ({ key }) => ({ ok: true, removed: deps.pins.unpin(key) }),
    listSessionLeases: () => {
      const keyNames = new Map(deps.store.apiKeys.list().map((k) => [k.id, k.name]));
      return {
        items: deps.leases.list().map((l): SessionLeaseItem => {
          const connection = deps.store.connections.get(l.connectionId);
          return {
            connectionId: l.connectionId,
            connectionName: connection?.name ?? null,
            provider: connection?.provider ?? null,
            generation: l.generation,
            keyName: keyNames.get(l.keyId) ?? null,
            acquiredAt: l.acquiredAt,
            expiresAt: l.expiresAt,
          };
        }),
      };
    },
    releaseSessionLease: ({ connectionId }) => ({ ok: true, released: deps.leases.revoke(connectionId) }),
  };
}
