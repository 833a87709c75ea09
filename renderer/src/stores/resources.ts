// The backend reads the pages show, each with the events that make it stale (R15.2: pushed
// changes, never polling). Each read is typed by its contract method (shared/contract.ts).
import type { SwitchyardEvent } from "../../../shared/types.js";
import { call } from "../transport.js";
import { createLiveResource } from "./liveResource.js";

const isCooldownEvent = (e: SwitchyardEvent) => e.type.startsWith("cooldown.") || e.type.startsWith("lockout.");
const isConfig = (e: SwitchyardEvent, entity?: string) => e.type === "config" && (entity === undefined || e.entity === entity);

export const cooldowns = createLiveResource(
  async () => (await call("listCooldowns")).items,
  // A `budget` event at 100 % puts a connection on the list (R18.4).
  (e) => isCooldownEvent(e) || e.type === "breaker" || e.type === "budget" || isConfig(e, "connection") || isConfig(e, "provider"),
);

export const modelCooldowns = createLiveResource(
  async () => (await call("listModelCooldowns")).items,
  (e) => e.type.startsWith("lockout.") || e.type === "breaker" || isConfig(e, "connection") || isConfig(e, "provider"),
);

export const resilienceSettings = createLiveResource(
  () => call("getResilience"),
  (e) => e.type === "settings" && e.scope === "resilience",
);

export const resilienceSources = createLiveResource(
  () => call("getResilienceSources"),
  (e) => e.type === "settings" && e.scope === "resilience",
);

export const appSettings = createLiveResource(
  () => call("getSettings"),
  (e) => e.type === "settings" && e.scope === "settings",
);

export const combos = createLiveResource(
  () => call("listCombos"),
  (e) => isConfig(e, "combo"),
);

/** Each request may move a key's last use and its budget's use (R18.4): reloads at most once per 2 s. */
export const apiKeys = createLiveResource(
  () => call("listKeys"),
  (e) => isConfig(e, "key") || e.type === "request" || e.type === "budget",
  { minReloadIntervalMs: 2_000 },
);

export const health = createLiveResource(
  () => call("monitoringHealth"),
  (e) => e.type === "breaker" || e.type.startsWith("lockout.") || e.type === "queues" || isConfig(e, "provider"),
);

/** The Health charts' window: the last hour in 5-minute buckets (R14.2). */
export const HEALTH_STATS_QUERY = { windowMs: 3_600_000, bucketMs: 300_000 } as const;

/**
 * Aggregated by the backend over the whole request log (R15.1). Every request makes it stale, so
 * a burst of traffic is collapsed into at most one load per second.
 */
export const requestStats = createLiveResource(
  () => call("requestStats", { ...HEALTH_STATS_QUERY }),
  (e) => e.type === "request",
  { minReloadIntervalMs: 1_000 },
);

/**
 * Session pins and exclusive leases (R7). A pin moves with each answered request; a lease changes
 * through its own client route, which sends no event, so the page also offers a refresh.
 */
export const sessionPins = createLiveResource(
  async () => (await call("listSessionPins")).items,
  (e) => e.type === "request" || isConfig(e, "connection"),
  { minReloadIntervalMs: 1_000 },
);

export const sessionLeases = createLiveResource(
  async () => (await call("listSessionLeases")).items,
  (e) => e.type === "request" || isConfig(e, "connection") || isConfig(e, "key"),
  { minReloadIntervalMs: 1_000 },
);
