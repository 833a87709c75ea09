// The Electron transport: calls go through the preload bridge, events are pushed by main.
import type { ContractCallArgs, ContractMethod, ContractOutput } from "../../shared/contract.js";
import type { SwitchyardBridge } from "./bridge.js";
import { toContractCallError } from "./callError.js";
import type { Transport } from "./transportTypes.js";

export function createIpcTransport(bridge: SwitchyardBridge): Transport {
  return {
    kind: "ipc",
    async call<M extends ContractMethod>(method: M, ...[input]: ContractCallArgs<M>): Promise<ContractOutput<M>> {
      try {
        // Main answered this method through its contract handler, so the value is its output.
        return (await bridge.invoke(method, input ?? {})) as ContractOutput<M>;
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
