// Quotas (R18.3) put together: the observer the pipeline reports each attempt's response headers
// to (parsed by the gateway's header families, kept by the store's quota repo) and the deletion of a
// connection's windows when it goes; GET /api/usage/quotas is api/quotaHandlers.ts.
import type { RemainingQuota } from "../engine/quotaCutoff.js";
import { hasQuotaHeaders, readQuotaHeaders, type QuotaObserver } from "../gateway/context/usage/quotaHeaders.js";
import type { Store } from "../store/index.js";
import type { EventBus } from "./eventBus.js";

type QuotaStore = Pick<Store, "quotas">;

/**
 * Most answers carry no quota header: those cost one scan of the header names and nothing else.
 * `remaining` (quotaPreflightCutoff) learns the same readings the store keeps.
 */
export function createQuotaObserver(store: QuotaStore, bus: Pick<EventBus, "subscribe">, remaining?: Pick<RemainingQuota, "learn" | "forget">): QuotaObserver {
  bus.subscribe((e) => {
    if (e.type !== "config" || e.entity !== "connection" || e.action !== "deleted") return;
    store.quotas.deleteConnection(e.id);
    remaining?.forget(e.id);
  });
  return {
    observe(connectionId, provider, headers, now) {
      if (!hasQuotaHeaders(headers)) return;
      const readings = readQuotaHeaders(headers, now);
      if (readings.length === 0) return;
      store.quotas.record(connectionId, provider, readings, now);
      remaining?.learn(connectionId, readings, now);
    },
  };
}
