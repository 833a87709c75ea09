// What both transports (IPC in Electron, HTTP in a browser) offer the rest of the renderer.
import type { ContractMethod } from "../../shared/contract.js";
import type { SwitchyardEvent } from "../../shared/types.js";

export type EventStreamState = "connecting" | "open" | "reconnecting" | "closed";

export interface Transport {
  kind: "ipc" | "http";
  call(method: ContractMethod, input?: Record<string, unknown>): Promise<unknown>;
  /** Delivers pushed events until the returned function is called. */
  subscribe(listener: (event: SwitchyardEvent) => void, onState?: (state: EventStreamState) => void): () => void;
}
