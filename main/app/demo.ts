// `--demo` (R0.5): two simulated providers and a combo, so a newcomer sees failover with no keys.
import { startSimulator, type Simulator } from "../simulator/index.js";
import type { Clock } from "../engine/ports.js";
import type { Store } from "../store/types.js";
import type { EventBus } from "./eventBus.js";

export const DEMO_MODEL = "demo-model";
export const DEMO_COMBO = "demo";

/** `progress` hears each step as it starts, so a terminal or the dashboard is never left silent. */
export async function startDemo(
  store: Store,
  bus: EventBus,
  clock: Clock,
  progress: (line: string) => void = () => undefined,
): Promise<{ simulators: Simulator[]; close(): Promise<void> }> {
  progress("Demo: starting simulated provider A…");
  const a = await startSimulator({ port: 0, label: "simulated provider A", quotaHeaders: true });
  progress("Demo: starting simulated provider B…");
  const b = await startSimulator({ port: 0, label: "simulated provider B", quotaHeaders: true });
  progress(`Demo: adding providers sim-a and sim-b, three connections and the combo "${DEMO_COMBO}"…`);
  // Key 1 of provider A is rate-limited on its first call: the first demo request fails over live.
  a.addFault("demo-a-1", { status: 429, retryAfter: 15, times: 1 });
  store.transaction(() => {
    for (const [id, sim] of [
      ["sim-a", a],
      ["sim-b", b],
    ] as const) {
      const fields = {
        format: "simulator" as const,
        baseUrl: sim.url,
        category: "local" as const,
        models: [DEMO_MODEL],
        quotaFamilies: {},
        passthroughModels: true,
        rateLimitCooldownSeconds: null,
        priority: 0,
        options: { demo: true },
      };
      if (store.providers.get(id)) store.providers.update(id, fields);
      else store.providers.create({ id, ...fields });
    }
    const connections: Array<[string, string, string, string, number]> = [
      ["demo-a-1", "sim-a", "Provider A · key 1", "demo-a-1", 0],
      ["demo-a-2", "sim-a", "Provider A · key 2", "demo-a-2", 1],
      ["demo-b-1", "sim-b", "Provider B · key 1", "demo-b-1", 0],
    ];
    for (const [id, provider, name, key, priority] of connections) {
      if (store.connections.get(id)) continue;
      store.connections.create(
        { id, provider, name, priority, weight: 1, active: true, maxConcurrent: null, rateLimitOverrides: {}, providerSpecificData: {}, disableCooling: false },
        key,
      );
    }
    if (!store.combos.get(DEMO_COMBO)) {
      store.combos.create({ name: DEMO_COMBO, strategy: "priority", targets: [{ model: `sim-a/${DEMO_MODEL}` }, { model: `sim-b/${DEMO_MODEL}` }], config: {} });
    }
  });
  bus.emit({ type: "config", entity: "provider", id: "sim-a", action: "updated", at: clock.now() });
  return {
    simulators: [a, b],
    async close() {
      await Promise.all([a.close(), b.close()]);
    },
  };
}
