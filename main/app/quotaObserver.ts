// Quotas (R18.3) put together: the observer the pipeline reports each attempt's response headers
// to (parsed by the gateway's header families, kept by the store's quota repo) and the deletion of a
// connection's windows when it goes; GET /api/usage/quotas is api/quotaHandlers.ts.
// R21.6: each response's rise in a window is charged to its session and traffic class (the repo's
// burn). R21.7: a window reaching 80, 95 or 100 % in its period is told once, as the event
// `quota.threshold` (to /api/events and the desktop tray) and a log line (headless). The billing
// boundary logs its own crossings (gateway/features/billingBoundary.ts).
import type { RemainingQuota } from "../engine/quotaCutoff.js";
import { hasQuotaHeaders, readQuotaHeaders, type QuotaObserver } from "../gateway/context/usage/quotaHeaders.js";
import type { Store } from "../store/index.js";
import type { EventBus } from "./eventBus.js";

type QuotaStore = Pick<Store, "quotas">;

/** What the observer logs with: pino's shape (an object of fields, then the message). */
export interface QuotaLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

/**
 * Most answers carry no quota header: those cost one scan of the header names and nothing else.
 * `remaining` (quotaPreflightCutoff) learns the same readings the store keeps.
 */
export function createQuotaObserver(
  store: QuotaStore,
  bus: Pick<EventBus, "subscribe" | "emit">,
  remaining?: Pick<RemainingQuota, "learn" | "forget">,
  logger?: QuotaLogger,
): QuotaObserver {
  bus.subscribe((e) => {
    if (e.type !== "config" || e.entity !== "connection" || e.action !== "deleted") return;
    store.quotas.deleteConnection(e.id);
    remaining?.forget(e.id);
  });
  return {
    observe(connectionId, provider, headers, now, who) {
      if (!hasQuotaHeaders(headers)) return;
      const readings = readQuotaHeaders(headers, now);
      if (readings.length === 0) return;
      const crossings = store.quotas.record(connectionId, provider, readings, now, who ?? null);
      remaining?.learn(connectionId, readings, now);
      for (const c of crossings) {
        // Ids and window names only: nothing of the request, never a credential.
        logger?.warn({ connectionId, provider, window: c.window, percent: c.percent }, `quota: connection ${connectionId} has used ${c.percent} % of its ${c.window} window`);
        bus.emit({ type: "quota.threshold", connectionId, window: c.window, percent: c.percent, at: now });
      }
    },
  };
}
