// Providers & connections concern: the lists and their breaker states, one live resource so the
// reload and event handling are the same as every other page's.
import type { BreakerState, Connection, Provider } from "../../../shared/types.js";
import { call, ContractCallError } from "../transport.js";
import { affectsProviders } from "./liveEvents.js";
import { createLiveResource } from "./liveResource.js";

export interface ProviderLists {
  providers: Provider[];
  connections: Connection[];
  /** provider id -> breaker state; empty when health could not be read. */
  breakers: Record<string, BreakerState>;
}

export const providerLists = createLiveResource(async (): Promise<ProviderLists> => {
  const [providers, connections, breakers] = await Promise.all([call("listProviders"), call("listConnections"), readBreakers()]);
  return { providers, connections, breakers };
}, affectsProviders);

// One shared value, so selectors and memo dependencies see the same arrays until the first load.
const NONE: ProviderLists = { providers: [], connections: [], breakers: {} };

/** The lists, empty until the first load arrives. */
export function useProviderLists(): ProviderLists {
  return providerLists.use((s) => s.data) ?? NONE;
}

/** Breaker states are a bonus on this page: a failing health call must not hide the lists. */
async function readBreakers(): Promise<Record<string, BreakerState>> {
  try {
    const health = await call("monitoringHealth");
    return Object.fromEntries(health.providerBreakers.map((row) => [row.provider, row.state]));
  } catch (err) {
    if (err instanceof ContractCallError && err.status === 401) throw err;
    return {};
  }
}
