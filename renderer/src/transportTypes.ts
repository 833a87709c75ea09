// What both transports (IPC in Electron, HTTP in a browser) offer the rest of the renderer.
import type { ContractCallArgs, ContractMethod, ContractOutput } from "../../shared/contract.js";
import type { SwitchyardEvent } from "../../shared/types.js";

export type EventStreamState = "connecting" | "open" | "reconnecting" | "closed";

export interface Transport {
  kind: "ipc" | "http";
  /** Resolves with the method's typed answer; rejects with a ContractCallError. */
  call<M extends ContractMethod>(method: M, ...args: ContractCallArgs<M>): Promise<ContractOutput<M>>;
  /** Delivers pushed events until the returned function is called. */
  subscribe(listener: (event: SwitchyardEvent) => void, onState?: (state: EventStreamState) => void): () => void;
}
