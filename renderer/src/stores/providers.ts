// Providers & connections concern: the lists and their breaker states, one live resource so the
// reload and event handling are the same as every other page's.
import type { BreakerState, Connection, Provider } from "../../../shared/types.js";
import { isRecord } from "../callError.js";
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
  const [providers, connections, breakers] = await Promise.all([
    call<Provider[]>("listProviders"),
    call<Connection[]>("listConnections"),
    readBreakers(),
  ]);
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
    const health = await call<unknown>("monitoringHealth");
    const out: Record<string, BreakerState> = {};
    const list = isRecord(health) && Array.isArray(health.providerBreakers) ? health.providerBreakers : [];
    for (const item of list) {
      if (isRecord(item) && typeof item.provider === "string" && typeof item.state === "string") {
        out[item.provider] = item.state as BreakerState;
      }
    }
    return out;
  } catch (err) {
    if (err instanceof ContractCallError && err.status === 401) throw err;
    return {};
  }
}
