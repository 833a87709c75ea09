// The Electron transport: calls go through the preload bridge, events are pushed by main.
import type { SwitchyardBridge } from "./bridge.js";
import { toContractCallError } from "./callError.js";
import type { Transport } from "./transportTypes.js";

export function createIpcTransport(bridge: SwitchyardBridge): Transport {
  return {
    kind: "ipc",
    async call(method, ...args) {
      try {
        return await bridge.invoke(method, ...args);
      } catch (reason) {
        throw toContractCallError(reason);
      }
    },
    subscribe(listener, onState) {
      const unsubscribe = bridge.onEvent(listener);
      // IPC push needs no connection: it is live as soon as the listener is registered.
      onState?.("open");
      return () => {
        unsubscribe();
        onState?.("closed");
      };
    },
  };
}
