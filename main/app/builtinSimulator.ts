// A `simulator` provider with no baseUrl talks to Switchyard's own simulator (R0.5): started on
// first use on an ephemeral loopback port, so "add a simulated provider" needs nothing else.
import type { Provider } from "../../shared/types.js";
import { startSimulator, type Simulator } from "../simulator/index.js";

export interface BuiltinSimulator {
  /** The upstream origin for this provider: its own baseUrl (at once), or the built-in simulator's. */
  baseUrlFor(provider: Provider): string | Promise<string>;
  close(): Promise<void>;
}

export function createBuiltinSimulator(): BuiltinSimulator {
  let starting: Promise<Simulator> | null = null;
  return {
    baseUrlFor(provider) {
      if (provider.format !== "simulator" || provider.baseUrl) return provider.baseUrl;
      starting ??= startSimulator({ port: 0, label: "built-in simulator", recordLimit: 0, quotaHeaders: true });
      return starting.then((sim) => sim.url);
    },
    async close() {
      if (starting) await (await starting).close();
    },
  };
}
