// The built-in demo (R0.5) as something a running instance can start on request: from `--demo` at
// startup or from the dashboard's first screen (POST /api/demo). Started at most once per process.
import type { DemoStartResult } from "../../shared/apiTypes.js";
import type { HandlersFor } from "../api/handlerTypes.js";
import type { Clock } from "../engine/ports.js";
import type { Store } from "../store/types.js";
import { DEMO_COMBO, startDemo } from "./demo.js";
import type { EventBus } from "./eventBus.js";

export interface DemoControl {
  start(): Promise<DemoStartResult>;
  close(): Promise<void>;
}

export function createDemoControl(store: Store, bus: EventBus, clock: Clock, progress: (line: string) => void = () => undefined): DemoControl {
  let running: ReturnType<typeof startDemo> | null = null;
  const result = (started: boolean): DemoStartResult => ({ ok: true, started, combo: DEMO_COMBO, providers: ["sim-a", "sim-b"] });
  return {
    async start() {
      if (running) {
        await running;
        return result(false);
      }
      running = startDemo(store, bus, clock, progress);
      try {
        await running;
      } catch (err) {
        // A failed start may be tried again (a port was busy, the store was closing).
        running = null;
        throw err;
      }
      return result(true);
    },
    async close() {
      const demo = running && (await running.catch(() => null));
      await demo?.close();
    },
  };
}

/** The instance's own methods: start the demo, say where the gateway listens (`url` is read per call: it is known once the server listens). */
export function createInstanceHandlers(demo: DemoControl, url: () => string, version: string): HandlersFor<"startDemo" | "getInstance"> {
  return {
    startDemo: () => demo.start(),
    getInstance: () => ({ url: url(), version }),
  };
}
